package elementwise

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Math is a float/complex function's element kernels, chosen per element
// type when an op compiles; a nil field is a form the op does not have.
type Math struct {
	// Real computes every float type: f64 directly, narrower types
	// (f32 included, unless F32 is set) in float64, rounded once.
	Real func(dt hlo.DType) func(float64) float64
	// F32, when set, replaces Real for f32 tensors (a vector kernel).
	F32 func(d, a []float32)
	// Complex computes both complex types (complex64 in complex128,
	// rounded once).
	Complex func(dt hlo.DType) func(complex128) complex128
}

// Same returns the kernel f for every element type.
func Same[F any](f F) func(hlo.DType) F {
	return func(hlo.DType) F { return f }
}

// MathRow declares a same-type unary float/complex op (name is the full
// op name) from its element functions.
func MathRow(name string, cost int, m Math) kernel.Entry {
	return Row(name, cost, func(c *kernel.OpCtx) (kernel.TileFn, error) {
		dt, err := sameTypes(c, 1)
		if err != nil {
			return nil, err
		}
		fs := &fns1{}
		switch {
		case dt.IsFloat() && m.Real != nil:
			fs.f64 = mapF64(m.Real(dt))
			if dt == hlo.F32 {
				fs.f32 = m.F32
			}
		case dt.IsComplex() && m.Complex != nil:
			fs.c128 = mapC(m.Complex(dt))
		}
		if f := tile1(dt, fs); f != nil {
			return f, nil
		}
		return nil, unsupported(c, dt)
	})
}

// BinaryMathRow declares a same-type binary float op (name is the full op
// name) from its float64 function: every float type is computed in
// float64 and rounded once.
func BinaryMathRow(name string, cost int, f func(a, b float64) float64) kernel.Entry {
	return Row(name, cost, func(c *kernel.OpCtx) (kernel.TileFn, error) {
		dt, err := sameTypes(c, 2)
		if err != nil {
			return nil, err
		}
		if t := tile2(dt, &fns2{f64: map2F64(f)}); t != nil && dt.IsFloat() {
			return t, nil
		}
		return nil, unsupported(c, dt)
	})
}

func map2F64(f func(a, b float64) float64) func(d, a, b []float64) {
	return func(d, a, b []float64) {
		a, b = a[:len(d)], b[:len(d)]
		for i, v := range a {
			d[i] = f(v, b[i])
		}
	}
}
