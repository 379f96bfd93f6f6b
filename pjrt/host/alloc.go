package host

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// litBox holds a literal and up to four dimensions in one allocation.
type litBox struct {
	lit  hlo.Literal
	dims [4]int64
}

// allocLiteral returns a literal of dtype dt and shape dims with
// unspecified contents: recycled from the execution's pool when it has
// storage of that size, else newly allocated (header and dimensions in one
// allocation, data in another).
func allocLiteral(x *kernel.Ctx, dt hlo.DType, dims []int64) *hlo.Literal {
	if l := x.Pool.Get(dt, dims); l != nil {
		return l
	}
	if len(dims) > 4 {
		return hlo.NewLiteral(dt, dims...)
	}
	b := &litBox{}
	n := copy(b.dims[:], dims)
	b.lit.DType = dt
	b.lit.Dims = b.dims[:n:n]
	b.lit.Data = hlo.AlignedBytes(int(hlo.NumElements(dims)) * dt.Size())
	return &b.lit
}
