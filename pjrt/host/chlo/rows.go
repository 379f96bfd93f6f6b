package chlo

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The CHLO element-wise ops compute every element in float64 (complex128)
// and round once to the element type: for f16/bf16/f32 that is within half
// a ULP of the exact value whenever the float64 kernel is accurate, and the
// f64 kernels below are written for a few ULP at most.

// specialCost is the rough per-element cost of a special function relative
// to an f32 add (kernel.Elementwise.Cost).
const specialCost = 64

// realFn and complexFn are element kernels.
type (
	realFn    func(float64) float64
	complexFn func(complex128) complex128
)

// mapTile returns a tile function applying f (real types) or g (complex
// types) from srcs[0] to dst, which may differ in element type only when
// out is given (predicates write i1).
func mapTile(dt hlo.DType, f realFn, g complexFn) kernel.TileFn {
	switch {
	case dt == hlo.F32:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d, s := dst.F32(), srcs[0].F32()
			for i := lo; i < hi; i++ {
				d[i] = float32(f(float64(s[i])))
			}
		}
	case dt == hlo.F64:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d, s := dst.F64(), srcs[0].F64()
			for i := lo; i < hi; i++ {
				d[i] = f(s[i])
			}
		}
	case dt.IsFloat():
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			s := srcs[0]
			for i := lo; i < hi; i++ {
				dst.SetBits(i, hlo.Float64ToFloatBits(dt, f(hlo.FloatBitsToFloat64(dt, s.Bits(i)))))
			}
		}
	case dt == hlo.C64:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d, s := dst.C64(), srcs[0].C64()
			for i := lo; i < hi; i++ {
				d[i] = complex64(g(complex128(s[i])))
			}
		}
	case dt == hlo.C128:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d, s := dst.C128(), srcs[0].C128()
			for i := lo; i < hi; i++ {
				d[i] = g(s[i])
			}
		}
	}
	return nil
}

// map2Tile is mapTile for binary real ops.
func map2Tile(dt hlo.DType, f func(a, b float64) float64) kernel.TileFn {
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		a, b := srcs[0], srcs[1]
		ai, bi := scalarIndex(dst, a), scalarIndex(dst, b)
		for i := lo; i < hi; i++ {
			dst.SetFloat(i, f(a.Float(ai(i)), b.Float(bi(i))))
		}
	}
}

// scalarIndex maps a tile index to src's element: a one-element source of a
// larger destination is a scalar operand (kernel.TileFn).
func scalarIndex(dst, src *hlo.Literal) func(int) int {
	if src.NumElements() == 1 && dst.NumElements() > 1 {
		return func(int) int { return 0 }
	}
	return func(i int) int { return i }
}

// elementwiseEntry builds a table entry for an element-wise op from a
// tile-function factory: it runs unfused in parallel chunks, and offers
// itself to the planner for fusion.
func elementwiseEntry(name string, cost int, prepare func(c *kernel.OpCtx) (kernel.TileFn, error)) kernel.Entry {
	return kernel.Entry{
		Name:        name,
		Fresh:       true,
		Elementwise: &kernel.Elementwise{Prepare: prepare, Cost: cost},
		Compile: func(c *kernel.OpCtx) (kernel.RunFn, error) {
			tile, err := prepare(c)
			if err != nil {
				return nil, err
			}
			out, err := c.StaticTensor(c.Out[0], "result")
			if err != nil {
				return nil, err
			}
			op := c.Op
			return func(x *kernel.Ctx, args, results []kernel.Value) error {
				srcs := make([]*hlo.Literal, len(args))
				for i := range args {
					l, err := kernel.TensorArg(op, args, i)
					if err != nil {
						return err
					}
					if l.NumElements() != int(out.NumElements()) {
						return kernel.OpErrorf(op, "operand %d is %s, result is %s", i, l.ShapeString(), out.ShapeString())
					}
					srcs[i] = l
				}
				dst := x.NewLiteralUninit(out.DType, out.Dims)
				kernel.ParallelFor(dst.NumElements(), kernel.ElementGrain(cost), func(lo, hi int) { tile(dst, srcs, lo, hi) })
				results[0] = dst
				return nil
			}, nil
		},
	}
}

// unaryEntry registers a float/complex op; f or g may be nil when the op has
// no real or complex form.
func unaryEntry(name string, f realFn, g complexFn) kernel.Entry {
	var fdt func(hlo.DType) realFn
	if f != nil {
		fdt = func(hlo.DType) realFn { return f }
	}
	return unaryTypedEntry(name, fdt, sameComplex(g))
}

// sameComplex uses one complex kernel for both complex types.
func sameComplex(g complexFn) func(hlo.DType) complexFn {
	if g == nil {
		return nil
	}
	return func(hlo.DType) complexFn { return g }
}

// unaryTypedEntry is unaryEntry with kernels chosen per element type.
func unaryTypedEntry(name string, fdt func(hlo.DType) realFn, gdt func(hlo.DType) complexFn) kernel.Entry {
	return elementwiseEntry(name, specialCost, func(c *kernel.OpCtx) (kernel.TileFn, error) {
		if len(c.In) != 1 || len(c.Out) != 1 {
			return nil, c.Errorf("want 1 operand and 1 result")
		}
		in, out := c.InTensor(0), c.OutTensor(0)
		if in == nil || out == nil || in.DType != out.DType {
			return nil, c.Errorf("operand and result must be tensors of one element type, got %s -> %s", c.In[0], c.Out[0])
		}
		dt := in.DType
		var f realFn
		var g complexFn
		switch {
		case dt.IsFloat() && fdt != nil && dt != hlo.TF32:
			f = fdt(dt)
		case (dt == hlo.C64 || dt == hlo.C128) && gdt != nil:
			g = gdt(dt)
		default:
			return nil, c.Errorf("unsupported element type %s", dt)
		}
		return mapTile(dt, f, g), nil
	})
}

// binaryEntry registers a real binary op with same-typed operands.
func binaryEntry(name string, f func(a, b float64) float64) kernel.Entry {
	return elementwiseEntry(name, specialCost, func(c *kernel.OpCtx) (kernel.TileFn, error) {
		if len(c.In) != 2 || len(c.Out) != 1 {
			return nil, c.Errorf("want 2 operands and 1 result")
		}
		a, b, out := c.InTensor(0), c.InTensor(1), c.OutTensor(0)
		if a == nil || b == nil || out == nil || a.DType != b.DType || a.DType != out.DType || !a.DType.IsFloat() {
			return nil, c.Errorf("operands and result must be float tensors of one element type, got %s, %s -> %s", c.In[0], c.In[1], c.Out[0])
		}
		return map2Tile(a.DType, f), nil
	})
}
