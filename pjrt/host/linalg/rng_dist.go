package linalg

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// stablehlo.rng draws a tensor of the result's shape from the UNIFORM
// distribution over [a, b) or the NORMAL one with mean a and standard
// deviation b. The spec leaves the generator implementation-defined (it may
// be stateless or keep hidden state); this device's is stateless, like
// rng_bit_generator's explicit-state generators: element i (row-major index)
// takes the two words Threefry-2x32 (20 rounds, key 0) gives for counter i,
// so a program's results depend on its operands and shapes only.
//
//   - UNIFORM, floating point: u = (the 64 bits >> 11) / 2^53 in [0, 1),
//     a + (b-a)·u computed in float64 (a·(1-u) + b·u when b-a overflows)
//     and rounded to the element type; a value that rounds to b is
//     replaced by the next value below b.
//   - UNIFORM, integers and booleans: a + (the 64 bits mod (b-a)).
//   - NORMAL: Box–Muller on the two words, u1 = (w0+1)/2^32 in (0, 1],
//     u2 = w1/2^32: a + b·sqrt(-2 ln u1)·cos(2π u2), rounded.
//
// Bounds the spec calls undefined (a >= b for UNIFORM, b < 0 for NORMAL,
// NaN) are run-time errors, as is a shape operand that differs from the
// result's dimensions.

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.rng", Compile: compileRng, Fresh: true})
}

func compileRng(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 3 || len(c.Out) != 1 {
		return nil, c.Errorf("expects 3 operands and 1 result, has %d and %d", len(c.In), len(c.Out))
	}
	var in [3]*hlo.TensorType
	for i := range in {
		t, err := tensorIn(c, i)
		if err != nil {
			return nil, err
		}
		in[i] = t
	}
	ot, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	dist, err := enumAttr(c, "rng_distribution", "")
	if err != nil {
		return nil, err
	}
	dt := ot.DType
	switch {
	case in[0].Rank() != 0 || in[1].Rank() != 0 || in[0].DType != dt || in[1].DType != dt:
		return nil, c.Errorf("a %s and b %s must be 0-d tensors of the result's element type %s", in[0].ShapeString(), in[1].ShapeString(), dt)
	case in[2].Rank() != 1 || !in[2].DType.IsInt() || in[2].Dims[0] != int64(ot.Rank()):
		return nil, c.Errorf("shape %s must be a 1-D integer tensor of the result's rank %d", in[2].ShapeString(), ot.Rank())
	case !ot.IsStatic():
		return nil, c.Errorf("result %s must have a static shape", ot.ShapeString())
	case dt.IsComplex() || ot.Quant != nil:
		return nil, c.Errorf("result %s: element type must be an integer, boolean or floating-point type", ot.ShapeString())
	}
	switch dist {
	case "UNIFORM":
	case "NORMAL":
		if !dt.IsFloat() {
			return nil, c.Errorf("NORMAL needs a floating-point result, got %s", ot.ShapeString())
		}
	default:
		return nil, c.Errorf("rng_distribution %q is not UNIFORM or NORMAL", dist)
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		var ops [3]*hlo.Literal
		for i := range ops {
			l, err := argLiteral(c, args, i)
			if err != nil {
				return err
			}
			ops[i] = l
		}
		for k, d := range ot.Dims {
			if got := ops[2].Int(k); got != d {
				return c.Errorf("shape operand %s differs from the result shape %s", ops[2].String(), ot.ShapeString())
			}
		}
		out := x.NewLiteralUninit(dt, ot.Dims)
		var err error
		switch {
		case dist == "NORMAL":
			err = rngNormal(c, out, ops[0].Float(0), ops[1].Float(0))
		case dt.IsFloat():
			err = rngUniformFloat(c, out, ops[0].Float(0), ops[1].Float(0))
		default:
			err = rngUniformInt(c, out, ops[0], ops[1])
		}
		if err != nil {
			return err
		}
		results[0] = out
		return nil
	}, nil
}

// rngWords returns the two random words of element i.
func rngWords(i int) (uint32, uint32) {
	return threeFry2x32(0, 0, uint32(i), uint32(uint64(i)>>32))
}

func rngUniformFloat(c *kernel.OpCtx, out *hlo.Literal, a, b float64) error {
	if !(a < b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return c.Errorf("UNIFORM needs finite bounds a < b, got a = %v, b = %v", a, b)
	}
	span := b - a
	parallelRange(out.NumElements(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w0, w1 := rngWords(i)
			u := float64((uint64(w0)<<32|uint64(w1))>>11) / (1 << 53)
			v := a + span*u
			if math.IsInf(span, 0) { // bounds of float64's whole range
				v = a*(1-u) + b*u
			}
			out.SetFloat(i, v)
			if out.Float(i) >= b {
				out.SetBits(i, nextBelow(out.DType, out.Bits(i)))
				if v := out.Float(i); !(v >= a && v < b) {
					out.SetFloat(i, a)
				}
			}
		}
	})
	return nil
}

// nextBelow returns the bit pattern of the element type's next value below
// the one with pattern v (sign-magnitude formats).
func nextBelow(dt hlo.DType, v uint64) uint64 {
	sign := uint64(1) << (dt.Bits() - 1)
	switch {
	case v == 0 || v == sign: // ±0: the smallest negative value
		return sign | 1
	case v&sign != 0:
		return v + 1
	}
	return v - 1
}

func rngUniformInt(c *kernel.OpCtx, out, la, lb *hlo.Literal) error {
	dt := out.DType
	var a, b uint64
	var less bool
	if dt.IsSigned() {
		sa, sb := la.Int(0), lb.Int(0)
		a, b, less = uint64(sa), uint64(sb), sa < sb
	} else {
		a, b = la.Uint(0), lb.Uint(0)
		less = a < b
	}
	if !less {
		return c.Errorf("UNIFORM needs a < b, got a = %s, b = %s", la.ElemString(0), lb.ElemString(0))
	}
	span := b - a
	parallelRange(out.NumElements(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w0, w1 := rngWords(i)
			out.SetInt(i, int64(a+(uint64(w0)<<32|uint64(w1))%span))
		}
	})
	return nil
}

func rngNormal(c *kernel.OpCtx, out *hlo.Literal, mean, std float64) error {
	if !(std >= 0) || math.IsInf(std, 0) || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return c.Errorf("NORMAL needs a finite mean a and standard deviation b >= 0, got a = %v, b = %v", mean, std)
	}
	parallelRange(out.NumElements(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w0, w1 := rngWords(i)
			u1 := (float64(w0) + 1) / (1 << 32)
			u2 := float64(w1) / (1 << 32)
			out.SetFloat(i, mean+std*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2))
		}
	})
	return nil
}
