package kernel

import (
	"slices"

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
		l := f[len(f)-1]
		f[len(f)-1] = nil
		p.free[i] = f[:len(f)-1]
		p.held -= n
		if l.DType == dt && slices.Equal(l.Dims, dims) {
			return l
		}
		return &hlo.Literal{DType: dt, Dims: append([]int64(nil), dims...), Data: l.Data}
	}
	return nil
}

// NewLiteralUninit returns a literal of dtype dt and shape dims with
// unspecified contents, recycled from x.Pool when it has storage of that
// size. Kernels that overwrite every element use it.
func (x *Ctx) NewLiteralUninit(dt hlo.DType, dims []int64) *hlo.Literal {
	if x != nil {
		if l := x.Pool.Get(dt, dims); l != nil {
			return l
		}
	}
	return hlo.NewLiteral(dt, dims...)
}

// NewLiteral is NewLiteralUninit with zeroed contents (as hlo.NewLiteral).
func (x *Ctx) NewLiteral(dt hlo.DType, dims []int64) *hlo.Literal {
	if x != nil {
		if l := x.Pool.Get(dt, dims); l != nil {
			clear(l.Data)
			return l
		}
	}
	return hlo.NewLiteral(dt, dims...)
}
