package collective

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// convertLiteral converts l to element type dt (value-preserving where the
// type allows: is_promotable conversions of the collectives).
func convertLiteral(l *hlo.Literal, dt hlo.DType) *hlo.Literal {
	if l.DType == dt {
		return l
	}
	out := hlo.NewLiteral(dt, l.Dims...)
	n := l.NumElements()
	for i := 0; i < n; i++ {
		switch {
		case dt.IsComplex():
			out.SetComplex(i, l.Complex(i))
		case dt.IsFloat():
			out.SetFloat(i, l.Float(i))
		case l.DType.IsUnsigned() || l.DType.IsBool():
			out.SetInt(i, int64(l.Uint(i)))
		default:
			out.SetInt(i, l.Int(i))
		}
	}
	return out
}

// zerosOf returns a zero literal of type t.
func zerosOf(t *hlo.TensorType) *hlo.Literal { return kernel.Alloc(t) }
