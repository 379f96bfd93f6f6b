package host

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// allocLiteral returns a literal of dtype dt and shape dims with
// unspecified contents: recycled from the execution's pool when it has
// storage of that size, else newly allocated (kernel.NewLiteral).
func allocLiteral(x *kernel.Ctx, dt hlo.DType, dims []int64) *hlo.Literal {
	if l := x.Pool.Get(dt, dims); l != nil {
		return l
	}
	return kernel.NewLiteral(dt, dims)
}
