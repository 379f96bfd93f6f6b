package kernel

import (
	"slices"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

// Pool recycles tensor storage. The planner puts in the results of Fresh
// kernels after their last use (never arguments, constants or returned
// values), and kernels get storage back through Ctx.NewLiteral. A Pool is
// used by one goroutine at a time; the planner keeps one per running
// execution and reuses it for the next execution of the same program.
type Pool struct {
	sizes   []int            // byte sizes with a free list
	free    [][]*hlo.Literal // free[i]: literals of sizes[i] bytes
	held    int              // bytes held
	scratch []*hlo.Literal
	headers []*viewHeader // literal headers of dead views
}

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
	if len(dims) <= len(h.dims) {
		h.lit.Dims = h.dims[:len(dims):len(dims)]
		copy(h.lit.Dims, dims)
	} else {
		h.lit.Dims = append([]int64(nil), dims...)
	}
	h.lit.DType, h.lit.Data = dt, data
	return &h.lit
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

// ownDims reports whether h's dims live in h (it was made by View).
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
}

// poolMaxBytes bounds what one Pool keeps: beyond it, Put drops buffers.
const poolMaxBytes = 1 << 30

// Put offers l's storage for reuse. The caller guarantees nothing else
// references l or its Data.
func (p *Pool) Put(l *hlo.Literal) {
	n := len(l.Data)
	if p == nil || n == 0 || p.held+n > poolMaxBytes {
		return
	}
	p.held += n
	for i, s := range p.sizes {
		if s == n {
			p.free[i] = append(p.free[i], l)
			return
		}
	}
	p.sizes = append(p.sizes, n)
	p.free = append(p.free, []*hlo.Literal{l})
}

// Get returns a literal of dtype dt and shape dims whose storage comes from
// the pool (contents unspecified), or nil if the pool has none of that size.
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
		// Prefer a literal of the same type (no new header): an
		// execution asks for the shapes the previous one gave back.
		k := len(f) - 1
		for j := k; j >= 0 && j >= k-8; j-- {
			if f[j].DType == dt && slices.Equal(f[j].Dims, dims) {
				k = j
				break
			}
		}
		l := f[k]
		f[k] = f[len(f)-1]
		f[len(f)-1] = nil
		p.free[i] = f[:len(f)-1]
		p.held -= n
		if l.DType == dt && slices.Equal(l.Dims, dims) {
			return l
		}
		// A new header (the old one's identity may key derived data),
		// its dims in the same allocation when they fit.
		if len(dims) <= len(viewHeader{}.dims) {
			h := &viewHeader{}
			h.lit.Dims = h.dims[:len(dims):len(dims)]
			copy(h.lit.Dims, dims)
			h.lit.DType, h.lit.Data = dt, l.Data
			return &h.lit
		}
		return &hlo.Literal{DType: dt, Dims: append([]int64(nil), dims...), Data: l.Data}
	}
	return nil
}

// NewLiteralUninit returns a literal of dtype dt and shape dims with
// unspecified contents, recycled from x.Pool when it has storage of that
// size, else from storage Go found unreferenced (recycle.go). Kernels that
// overwrite every element use it.
func (x *Ctx) NewLiteralUninit(dt hlo.DType, dims []int64) *hlo.Literal {
	if x != nil {
		if l := x.Pool.Get(dt, dims); l != nil {
			return l
		}
	}
	return newLiteralUninit(dt, dims)
}

// NewLiteral is NewLiteralUninit with zeroed contents (as hlo.NewLiteral).
func (x *Ctx) NewLiteral(dt hlo.DType, dims []int64) *hlo.Literal {
	if x != nil {
		if l := x.Pool.Get(dt, dims); l != nil {
			clear(l.Data)
			return l
		}
	}
	return newLiteralZero(dt, dims)
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
// one allocation when its payload is small (a loss, a count), else as
// hlo.NewLiteral.
func NewLiteral(dt hlo.DType, dims []int64) *hlo.Literal {
	if len(dims) > 4 {
		return hlo.NewLiteral(dt, dims...)
	}
	// The size with no overflow check: each dimension is at most
	// smallBytes here, so four of them and an element size cannot
	// overflow.
	n := int64(dt.Size())
	for _, d := range dims {
		if d < 0 || d > smallBytes {
			return hlo.NewLiteral(dt, dims...)
		}
		n *= d
	}
	if n > smallBytes {
		return hlo.NewLiteral(dt, dims...)
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
