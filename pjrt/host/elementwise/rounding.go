package elementwise

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Rounding to integral values, is_finite, and the complex part ops real,
// imag and complex.

func init() {
	kernel.Register(
		unaryOp("floor", costCheap, fixed1(&fns1{f32: round32(math.Floor), f64: mapF64(math.Floor)})),
		unaryOp("ceil", costCheap, fixed1(&fns1{f32: round32(math.Ceil), f64: mapF64(math.Ceil)})),
		unaryOp("round_nearest_afz", costCheap, fixed1(&fns1{f32: round32(math.Round), f64: mapF64(math.Round)})),
		unaryOp("round_nearest_even", costCheap, fixed1(&fns1{f32: round32(math.RoundToEven), f64: mapF64(math.RoundToEven)})),
		ew("is_finite", costCheap, prepIsFinite),
		ew("real", costCheap, prepPart(false)),
		ew("imag", costCheap, prepPart(true)),
		ew("complex", costCheap, prepComplex),
	)
}

// round32 rounds float32 values through float64, where every float32 and
// every integral result is exact.
func round32(f func(float64) float64) func(d, a []float32) {
	return func(d, a []float32) {
		a = a[:len(d)]
		for i, v := range a {
			d[i] = float32(f(float64(v)))
		}
	}
}

func prepIsFinite(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("expected 1 operand, got %d", len(c.In))
	}
	dt, err := operandDType(c, 0)
	if err != nil {
		return nil, err
	}
	if rt, err := resultDType(c); err != nil || rt != hlo.Bool {
		return nil, c.Errorf("result must be i1, got %s", typesString(c.Out))
	}
	switch {
	case dt == hlo.F32:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d := view[bool](dst, lo, hi)
			for i, v := range view[uint32](srcs[0], lo, hi) {
				d[i] = v&0x7f800000 != 0x7f800000
			}
		}, nil
	case dt == hlo.F64:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d := view[bool](dst, lo, hi)
			for i, v := range view[uint64](srcs[0], lo, hi) {
				d[i] = v&0x7ff0000000000000 != 0x7ff0000000000000
			}
		}, nil
	case dt.IsFloat():
		dec := floatDecoder(dt)
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			sc := f64Pool.Get().(*f64Scratch)
			for s := lo; s < hi; s += chunkLen {
				n := min(chunkLen, hi-s)
				b := sc.bufs[0][:n]
				dec(b, srcs[0], s)
				d := view[bool](dst, s, s+n)
				for i, v := range b {
					d[i] = !math.IsInf(v, 0) && v == v
				}
			}
			f64Pool.Put(sc)
		}, nil
	}
	return nil, unsupported(c, dt)
}

// prepPart makes real (imag=false) and imag: the part of a complex value,
// or for a real float operand the value itself (real) or zero (imag).
func prepPart(imagPart bool) prepFn {
	return func(c *kernel.OpCtx) (kernel.TileFn, error) {
		if len(c.In) != 1 {
			return nil, c.Errorf("expected 1 operand, got %d", len(c.In))
		}
		dt, err := operandDType(c, 0)
		if err != nil {
			return nil, err
		}
		rt, err := resultDType(c)
		if err != nil {
			return nil, err
		}
		switch {
		case dt.IsComplex():
			if rt != dt.ComplexPart() {
				return nil, c.Errorf("result of %s must be %s, got %s", dt, dt.ComplexPart(), rt)
			}
			if dt == hlo.C64 {
				return partTile[complex64, float32](imagPart), nil
			}
			return partTile[complex128, float64](imagPart), nil
		case dt.IsFloat() && rt == dt:
			if imagPart {
				return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
					s := dt.Size()
					clear(dst.Data[lo*s : hi*s])
				}, nil
			}
			return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
				s := dt.Size()
				copy(dst.Data[lo*s:hi*s], srcs[0].Data[lo*s:hi*s])
			}, nil
		}
		return nil, unsupported(c, dt)
	}
}

func partTile[C cplx, F float](imagPart bool) kernel.TileFn {
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		d := view[F](dst, lo, hi)
		a := view[C](srcs[0], lo, hi)
		if imagPart {
			for i, v := range a {
				d[i] = F(imag(complex128(v)))
			}
			return
		}
		for i, v := range a {
			d[i] = F(real(complex128(v)))
		}
	}
}

func prepComplex(c *kernel.OpCtx) (kernel.TileFn, error) {
	dt, err := sameOperandTypes(c, 2)
	if err != nil {
		return nil, err
	}
	rt, err := resultDType(c)
	if err != nil {
		return nil, err
	}
	if rt != hlo.ComplexOf(dt) || !rt.Valid() {
		return nil, c.Errorf("complex of %s operands must give complex<%s>, got %s", dt, dt, rt)
	}
	if dt == hlo.F32 {
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d := view[complex64](dst, lo, hi)
			a, b := view[float32](srcs[0], lo, hi), view[float32](srcs[1], lo, hi)
			for i := range d {
				d[i] = complex(a[i], b[i])
			}
		}, nil
	}
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		d := view[complex128](dst, lo, hi)
		a, b := view[float64](srcs[0], lo, hi), view[float64](srcs[1], lo, hi)
		for i := range d {
			d[i] = complex(a[i], b[i])
		}
	}, nil
}
