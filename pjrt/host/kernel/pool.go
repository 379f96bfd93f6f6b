package kernel

import (
	"math"
	"slices"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

// Pool recycles tensor storage. The planner puts in the results of Fresh
// kernels after their last use (never arguments or constants; returned
// values only once the caller has read and dropped them, as
// ExecuteReading's), and kernels get storage back through Ctx.NewLiteral. A Pool is
// used by one goroutine at a time; the planner keeps one per running
// execution and reuses it for the next execution of the same program, and
// calls Settle when an execution's results have left it.
//
// Headers. Storage asked for as another type or shape than it was put in
// as needs a header of that type. A header the pool made itself and lent
// only to the current execution is private: no value outside that
// execution (a lazy tensor's shape holding its Dims, a storage account or
// derived data keyed by its identity) has seen it, so when it comes back
// it can take another type in place. Every other header (an argument
// donated to the pool, a kernel's own literal) keeps its type, and storage
// of it asked for as another type gets a new, private header. Settle ends
// the privacy of the headers still lent: those among the results are seen
// by the caller, the rest are dropped.
type Pool struct {
	sizes   []int         // byte sizes with a free list
	free    [][]pooledLit // free[i]: literals of sizes[i] bytes
	held    int           // bytes held
	scratch []*hlo.Literal
	headers []*viewHeader // literal headers of dead views
	// lent is the private headers handed out to the current execution
	// (at most maxLent; past it, headers are made public).
	lent []*viewHeader
}

// pooledLit is a free literal; own says its header is private (a
// viewHeader this pool made that never left an execution).
type pooledLit struct {
	l   *hlo.Literal
	own bool
}

// Storage of at most smallKeepBytes keeps the type it was put in as while
// its size's free list is shorter than smallKeepList (see Get).
const (
	smallKeepBytes = 4 << 10
	smallKeepList  = 64
)

// maxLent bounds the private headers an execution holds at once: finding
// one when it comes back is a scan of the list.
const maxLent = 64

// viewHeader is a literal header with room for its dims.
type viewHeader struct {
	lit  hlo.Literal
	dims [6]int64
}

// View returns a literal dt[dims] over data (a view of another literal's
// storage): its header is a dead view's, when the pool has one.
func (x *Ctx) View(dt hlo.DType, dims []int64, data []byte) *hlo.Literal {
	var h *viewHeader
	if x != nil && x.Pool != nil && len(x.Pool.headers) > 0 {
		p := x.Pool
		h = p.headers[len(p.headers)-1]
		p.headers[len(p.headers)-1] = nil
		p.headers = p.headers[:len(p.headers)-1]
	} else {
		h = &viewHeader{}
	}
	return h.set(dt, dims, data)
}

// PutHeader offers the header of a dead view made by View for reuse (the
// caller guarantees nothing references it; its storage is not the pool's).
func (p *Pool) PutHeader(l *hlo.Literal) {
	h := (*viewHeader)(unsafe.Pointer(l))
	if p == nil || len(p.headers) >= 64 || len(l.Dims) > len(h.dims) || !ownDims(h) {
		return
	}
	h.lit.Data = nil
	p.headers = append(p.headers, h)
}

// ownDims reports whether h's dims live in h (View, the pool and the
// recycler make such headers).
func ownDims(h *viewHeader) bool {
	return len(h.lit.Dims) == 0 || unsafe.SliceData(h.lit.Dims) == &h.dims[0]
}

// Scratch returns n literal pointers for passing an operand list without
// allocating. The slice is reused by the next Scratch call; callers clear
// it when done so that the pool keeps no storage alive.
func (p *Pool) Scratch(n int) []*hlo.Literal {
	if cap(p.scratch) < n {
		p.scratch = make([]*hlo.Literal, n)
	}
	return p.scratch[:n]
}

// Held is the bytes of storage the pool keeps.
func (p *Pool) Held() int { return p.held }

// Reset drops everything the pool keeps.
func (p *Pool) Reset() {
	clear(p.sizes)
	for i := range p.free {
		clear(p.free[i])
	}
	p.sizes, p.free, p.held = p.sizes[:0], p.free[:0], 0
	p.Settle()
}

// Settle ends the execution the pool served: the headers it still holds
// (results handed to the caller, values dropped) are no longer private.
func (p *Pool) Settle() {
	if p != nil && len(p.lent) > 0 {
		p.settle()
	}
}

func (p *Pool) settle() {
	clear(p.lent)
	p.lent = p.lent[:0]
}

// lend records h as a private header out in the current execution.
func (p *Pool) lend(h *viewHeader) {
	if len(p.lent) < maxLent {
		p.lent = append(p.lent, h)
	}
}

// returned reports whether l is a private header lent out, and takes it
// off the lent list.
func (p *Pool) returned(l *hlo.Literal) bool {
	for i := len(p.lent) - 1; i >= 0; i-- {
		if &p.lent[i].lit == l {
			last := len(p.lent) - 1
			p.lent[i] = p.lent[last]
			p.lent[last] = nil
			p.lent = p.lent[:last]
			return true
		}
	}
	return false
}

// poolMaxBytes bounds what one Pool keeps: beyond it, Put drops buffers.
const poolMaxBytes = 1 << 30

// Put offers l's storage for reuse. The caller guarantees nothing else
// references l or its Data.
func (p *Pool) Put(l *hlo.Literal) {
	n := len(l.Data)
	if p == nil || n == 0 {
		return
	}
	own := len(p.lent) > 0 && p.returned(l)
	if p.held+n > poolMaxBytes {
		return
	}
	p.held += n
	for i, s := range p.sizes {
		if s == n {
			p.free[i] = append(p.free[i], pooledLit{l, own})
			return
		}
	}
	p.sizes = append(p.sizes, n)
	p.free = append(p.free, []pooledLit{{l, own}})
}

// Get returns a literal of dtype dt and shape dims whose storage comes from
// the pool (contents unspecified), or nil if the pool has none of that size
// (or, for small storage, none whose header it may retype).
func (p *Pool) Get(dt hlo.DType, dims []int64) *hlo.Literal {
	if p == nil || len(p.sizes) == 0 {
		return nil
	}
	n := int(hlo.NumElements(dims)) * dt.Size()
	for i, s := range p.sizes {
		if s != n {
			continue
		}
		f := p.free[i]
		if len(f) == 0 {
			return nil
		}
		// From the most recently put: a literal of the same type (no new
		// header: an execution asks for the shapes the previous one gave
		// back), else a private header (it takes the type in place), else
		// the last one with a new header. Small storage keeps its type:
		// when only other types' public headers are free, a new literal is
		// made, and from the next execution on each type finds its own.
		small := n <= smallKeepBytes && len(f) < smallKeepList
		window := 9
		if small {
			window = smallKeepList
		}
		k, match, own := len(f)-1, false, -1
		for j := k; j >= 0 && j >= len(f)-window; j-- {
			if f[j].l.DType == dt && slices.Equal(f[j].l.Dims, dims) {
				k, match = j, true
				break
			}
			if own < 0 && f[j].own {
				own = j
			}
		}
		if !match {
			if own >= 0 {
				k = own
			} else if small {
				return nil
			}
		}
		e := f[k]
		f[k] = f[len(f)-1]
		f[len(f)-1] = pooledLit{}
		p.free[i] = f[:len(f)-1]
		p.held -= n
		l := e.l
		if match {
			if e.own {
				p.lend((*viewHeader)(unsafe.Pointer(l)))
			}
			return l
		}
		if len(dims) > len(viewHeader{}.dims) {
			return &hlo.Literal{DType: dt, Dims: append([]int64(nil), dims...), Data: l.Data}
		}
		// A private header takes the new type in place; any other keeps
		// its own (its Dims may be a lazy shape's, its identity may key a
		// storage account or derived data), and the storage gets a new
		// private header with its dims in the same allocation.
		var h *viewHeader
		if e.own {
			h = (*viewHeader)(unsafe.Pointer(l))
		} else {
			h = &viewHeader{}
		}
		p.lend(h)
		return h.set(dt, dims, l.Data)
	}
	return nil
}

// NewLiteralUninit returns a literal of dtype dt and shape dims with
// unspecified contents, recycled from x.Pool when it has storage of that
// size, else from storage Go found unreferenced (recycle.go). Kernels that
// overwrite every element use it.
// A new literal of a pooled execution is private (see Pool): nobody
// outside the execution has seen it, so it can take another type in place
// when it comes back.
func (x *Ctx) NewLiteralUninit(dt hlo.DType, dims []int64) *hlo.Literal {
	if x != nil && x.Pool != nil {
		if l := x.Pool.Get(dt, dims); l != nil {
			return l
		}
		return newLiteralUninit(dt, dims, x.Pool)
	}
	return newLiteralUninit(dt, dims, nil)
}

// NewLiteral is NewLiteralUninit with zeroed contents (as hlo.NewLiteral).
func (x *Ctx) NewLiteral(dt hlo.DType, dims []int64) *hlo.Literal {
	if x != nil && x.Pool != nil {
		if l := x.Pool.Get(dt, dims); l != nil {
			clear(l.Data)
			return l
		}
		return newLiteralZero(dt, dims, x.Pool)
	}
	return newLiteralZero(dt, dims, nil)
}

// smallLit is a literal with up to four dimensions and a small payload in
// one allocation. The header and dims take 88 bytes and the padding puts
// data at offset 96: Go allocates objects of this size (128 bytes) at
// 16-byte aligned addresses, so data keeps the 16-byte alignment of
// hlo.AlignedBytes.
type smallLit struct {
	lit  hlo.Literal
	dims [4]int64
	_    [8]byte
	data [smallBytes]byte
}

// smallBytes is the largest payload stored inside its literal's allocation.
const smallBytes = 32

// NewLiteral returns a new zeroed literal of dtype dt and shape dims: in
// one allocation when its payload is small (a loss, a count), else its
// header and dims in one and its data (hlo.AlignedBytes) in another.
func NewLiteral(dt hlo.DType, dims []int64) *hlo.Literal { return newLiteral(dt, dims, nil) }

// newLiteral is NewLiteral; a literal that is not small is lent by lender
// (a private header of its execution) when lender is not nil.
func newLiteral(dt hlo.DType, dims []int64, lender *Pool) *hlo.Literal {
	if len(dims) > 4 {
		return newLarge(dt, dims, lender)
	}
	// The size with no overflow check: each dimension is at most
	// smallBytes here, so four of them and an element size cannot
	// overflow.
	n := int64(dt.Size())
	for _, d := range dims {
		if d < 0 || d > smallBytes {
			return newLarge(dt, dims, lender)
		}
		n *= d
	}
	if n > smallBytes {
		return newLarge(dt, dims, lender)
	}
	s := &smallLit{}
	for i, d := range dims {
		s.dims[i] = d
	}
	s.lit.DType = dt
	s.lit.Dims = s.dims[:len(dims):len(dims)]
	s.lit.Data = s.data[:n:n]
	return &s.lit
}

// newLarge is newLiteral's literal that is not small: a viewHeader with
// its data, or hlo.NewLiteral's (and its errors) beyond the header's reach.
func newLarge(dt hlo.DType, dims []int64, lender *Pool) *hlo.Literal {
	n, ok := headedSize(dt, dims)
	if !ok {
		return hlo.NewLiteral(dt, dims...)
	}
	return literalOver(dt, dims, hlo.AlignedBytes(n), lender)
}

// headedSize is the byte size of a dt[dims] literal a viewHeader holds (a
// rank within the header's dims, an element count and a byte size that
// are valid ints), or false.
func headedSize(dt hlo.DType, dims []int64) (int, bool) {
	if len(dims) > len(viewHeader{}.dims) || hlo.NumElements(dims) < 0 {
		return 0, false
	}
	n, ok := hlo.ByteSize(dt, dims)
	if !ok || n > math.MaxInt {
		return 0, false
	}
	return int(n), true
}

// set makes h's literal dt[dims] over data, its dims in h when they fit,
// and returns it.
func (h *viewHeader) set(dt hlo.DType, dims []int64, data []byte) *hlo.Literal {
	if len(dims) <= len(h.dims) {
		h.lit.Dims = h.dims[:len(dims):len(dims)]
		copy(h.lit.Dims, dims)
	} else {
		h.lit.Dims = append([]int64(nil), dims...)
	}
	h.lit.DType, h.lit.Data = dt, data
	return &h.lit
}
