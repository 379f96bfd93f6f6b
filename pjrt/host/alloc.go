package host

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// allocLiteral returns a literal of dtype dt and shape dims with
// unspecified contents: recycled from the execution's pool when it has
// storage of that size, else from storage Go found unreferenced, else
// newly allocated (Ctx.NewLiteralUninit).
func allocLiteral(x *kernel.Ctx, dt hlo.DType, dims []int64) *hlo.Literal {
	return x.NewLiteralUninit(dt, dims)
}
