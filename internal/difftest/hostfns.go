package difftest

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

// hostFnDef is a Go callback the programs run through lazy.HostFunc. Each
// is pure (its result depends on its inputs only), so every mode computes
// the same bits however often it calls it.
type hostFnDef struct {
	name    string // registered as "difftest." + name
	nIn     int
	nOut    int
	accepts func(s []lazy.Shape) bool
	outs    func(s []lazy.Shape) []lazy.Shape
	// outsText writes the declared output shapes from operand names.
	outsText func(a []string) string
	fn       lazy.HostFn
	// fails: the callback returns an error on some data.
	fails bool
}

// FailThreshold is the value above which the "failbig" callback fails.
const FailThreshold = 2.5

func floatOnly(s []lazy.Shape) bool { return isFloat(s[0].DType) }

func sameShape(s []lazy.Shape) []lazy.Shape { return []lazy.Shape{s[0]} }

func sameShapeText(a []string) string { return a[0] + ".Shape()" }

// eachFloat maps a float literal elementwise in its own precision.
func eachFloat(l *hlo.Literal, f32 func(float32) float32, f64 func(float64) float64) *hlo.Literal {
	out := l.Clone()
	switch l.DType {
	case lazy.F32:
		for i, v := range out.F32() {
			out.F32()[i] = f32(v)
		}
	case lazy.F64:
		for i, v := range out.F64() {
			out.F64()[i] = f64(v)
		}
	}
	return out
}

var hostFns = []hostFnDef{
	{
		name: "affine", nIn: 1, accepts: floatOnly, outs: sameShape, outsText: sameShapeText,
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			return []*hlo.Literal{eachFloat(in[0],
				func(v float32) float32 { return float32(v*2) + 1 },
				func(v float64) float64 { return float64(v*2) + 1 })}, nil
		},
	},
	{
		name: "cumsum", nIn: 1, accepts: floatOnly, outs: sameShape, outsText: sameShapeText,
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			var s32 float32
			var s64 float64
			return []*hlo.Literal{eachFloat(in[0],
				func(v float32) float32 { s32 += v; return s32 },
				func(v float64) float64 { s64 += v; return s64 })}, nil
		},
	},
	{
		name: "pair", nIn: 2, nOut: 2,
		accepts: func(s []lazy.Shape) bool { return isFloat(s[0].DType) && s[0].Equal(s[1]) },
		outs:    func(s []lazy.Shape) []lazy.Shape { return []lazy.Shape{s[0], s[0]} },
		outsText: func(a []string) string {
			return a[0] + ".Shape(), " + a[0] + ".Shape()"
		},
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			sum, prod := in[0].Clone(), in[0].Clone()
			for i := 0; i < sum.NumElements(); i++ {
				a, b := in[0].Float(i), in[1].Float(i)
				if in[0].DType == lazy.F32 {
					sum.F32()[i] = float32(a) + float32(b)
					prod.F32()[i] = float32(a) * float32(b)
				} else {
					sum.F64()[i] = a + b
					prod.F64()[i] = a * b
				}
			}
			return []*hlo.Literal{sum, prod}, nil
		},
	},
	{
		name: "countpos", nIn: 1,
		accepts:  func(s []lazy.Shape) bool { return isNumeric(s[0].DType) },
		outs:     func(s []lazy.Shape) []lazy.Shape { return []lazy.Shape{shp(lazy.I32)} },
		outsText: func(a []string) string { return "lazy.NewShape(lazy.I32)" },
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			n := int32(0)
			for i := 0; i < in[0].NumElements(); i++ {
				if in[0].Float(i) > 0 {
					n++
				}
			}
			return []*hlo.Literal{hlo.ScalarLiteral(lazy.I32, float64(n))}, nil
		},
	},
	{
		name: "posmask", nIn: 1,
		accepts:  func(s []lazy.Shape) bool { return isNumeric(s[0].DType) },
		outs:     func(s []lazy.Shape) []lazy.Shape { return []lazy.Shape{shp(lazy.Bool, s[0].Dims...)} },
		outsText: func(a []string) string { return "lazy.NewShape(lazy.Bool, " + a[0] + ".Dims()...)" },
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			out := hlo.NewLiteral(lazy.Bool, in[0].Dims...)
			for i := 0; i < in[0].NumElements(); i++ {
				out.Bools()[i] = in[0].Float(i) > 0
			}
			return []*hlo.Literal{out}, nil
		},
	},
	{
		name: "reverse", nIn: 1,
		accepts: func(s []lazy.Shape) bool { return true }, outs: sameShape, outsText: sameShapeText,
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			out := in[0].Clone()
			n, sz := out.NumElements(), out.DType.Size()
			for i := 0; i < n; i++ {
				copy(out.Data[i*sz:(i+1)*sz], in[0].Data[(n-1-i)*sz:(n-i)*sz])
			}
			return []*hlo.Literal{out}, nil
		},
	},
	{
		name: "failbig", nIn: 1, accepts: floatOnly, outs: sameShape, outsText: sameShapeText, fails: true,
		fn: func(in []*hlo.Literal) ([]*hlo.Literal, error) {
			for i := 0; i < in[0].NumElements(); i++ {
				if v := in[0].Float(i); v > FailThreshold {
					return nil, fmt.Errorf("failbig: element %d is %v > %v", i, v, FailThreshold)
				}
			}
			return []*hlo.Literal{in[0].Clone()}, nil
		},
	},
}

// HostFn returns the callback named name (for printed programs).
func HostFn(name string) lazy.HostFn {
	for _, h := range hostFns {
		if h.name == name {
			return h.fn
		}
	}
	panic("difftest: no host function " + name)
}
