package elementwise

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// select and clamp. Their predicate (select) and bounds (clamp) may be
// rank-0 tensors applying to every element: such a one-element source is
// read at index 0 (see kernel.TileFn).

func init() {
	kernel.Register(
		withScalars(ew("select", costCheap, prepSelect)),
		withScalars(ew("clamp", costCheap, prepClamp)),
	)
}

func withScalars(e kernel.Entry) kernel.Entry {
	e.Elementwise.ScalarOperands = true
	return e
}

func prepSelect(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 3 {
		return nil, c.Errorf("expected 3 operands, got %d", len(c.In))
	}
	pt, err := operandDType(c, 0)
	if err != nil {
		return nil, err
	}
	if pt != hlo.Bool {
		return nil, c.Errorf("predicate must be i1, got %s", c.In[0])
	}
	dt, err := operandDType(c, 1)
	if err != nil {
		return nil, err
	}
	if d2, err := operandDType(c, 2); err != nil || d2 != dt {
		return nil, c.Errorf("on_true and on_false types differ: %s", typesString(c.In))
	}
	if rt, err := resultDType(c); err != nil || rt != dt {
		return nil, c.Errorf("result type %s differs from operand type %s", typesString(c.Out), c.In[1])
	}
	switch dt.Size() {
	case 1:
		return selBits[uint8], nil
	case 2:
		return selBits[uint16], nil
	case 4:
		return selBits[uint32], nil
	case 8:
		return selBits[uint64], nil
	case 16:
		return selTile[[2]uint64], nil
	}
	return nil, unsupported(c, dt)
}

// selBits is selTile for storage of up to 8 bytes, without a branch per
// element: predicates computed from data (a ReLU's mask) are true about
// half the time at random, and a mispredicted branch costs more than the
// element.
func selBits[T uint8 | uint16 | uint32 | uint64](dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
	p := srcs[0].Data
	if len(p) == 1 {
		selTile[T](dst, srcs, lo, hi)
		return
	}
	d := view[T](dst, lo, hi)
	p = p[lo:hi]
	t, f := view[T](srcs[1], lo, hi), view[T](srcs[2], lo, hi)
	t, f, p = t[:len(d)], f[:len(d)], p[:len(d)]
	for i := range d {
		var m T
		if p[i] != 0 {
			m = ^T(0)
		}
		d[i] = f[i] ^ (t[i]^f[i])&m
	}
}

// selTile moves raw elements, so it serves every type of one storage size.
func selTile[T any](dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
	d := view[T](dst, lo, hi)
	p := srcs[0].Data
	if len(p) == 1 {
		if p[0] != 0 {
			copy(d, view[T](srcs[1], lo, hi))
		} else {
			copy(d, view[T](srcs[2], lo, hi))
		}
		return
	}
	p = p[lo:hi]
	t, f := view[T](srcs[1], lo, hi), view[T](srcs[2], lo, hi)
	for i := range d {
		if p[i] != 0 {
			d[i] = t[i]
		} else {
			d[i] = f[i]
		}
	}
}

func prepClamp(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 3 {
		return nil, c.Errorf("expected 3 operands, got %d", len(c.In))
	}
	dt, err := operandDType(c, 1)
	if err != nil {
		return nil, err
	}
	for _, i := range []int{0, 2} {
		if d, err := operandDType(c, i); err != nil || d != dt {
			return nil, c.Errorf("min, operand and max element types differ: %s", typesString(c.In))
		}
	}
	if rt, err := resultDType(c); err != nil || rt != dt {
		return nil, c.Errorf("result type %s differs from operand type %s", typesString(c.Out), c.In[1])
	}
	switch dt {
	case hlo.Bool:
		return clampTile(func(x, lo, hi bool) bool { return (x || lo) && hi }), nil
	case hlo.I2, hlo.I4, hlo.I8:
		return clampNum[int8], nil
	case hlo.I16:
		return clampNum[int16], nil
	case hlo.I32:
		return clampNum[int32], nil
	case hlo.I64:
		return clampNum[int64], nil
	case hlo.U2, hlo.U4, hlo.U8:
		return clampNum[uint8], nil
	case hlo.U16:
		return clampNum[uint16], nil
	case hlo.U32:
		return clampNum[uint32], nil
	case hlo.U64:
		return clampNum[uint64], nil
	case hlo.F32:
		return clampNum[float32], nil
	case hlo.F64:
		return clampNum[float64], nil
	case hlo.C64:
		return clampTile(func(x, lo, hi complex64) complex64 { return cmin(cmax(x, lo), hi) }), nil
	case hlo.C128:
		return clampTile(func(x, lo, hi complex128) complex128 { return cmin(cmax(x, lo), hi) }), nil
	}
	if dt.IsFloat() {
		return clampSmallFloat(dt), nil
	}
	return nil, unsupported(c, dt)
}

// bound returns the bound slice for [lo, hi) and whether it is a scalar.
func bound[T any](l *hlo.Literal, lo, hi int) ([]T, bool) {
	all := hlo.ViewAs[T](l)
	if len(all) == 1 {
		return all, true
	}
	return all[lo:hi], false
}

// clampNum is minimum(maximum(x, lo), hi) with Go's max and min, which are
// IEEE maximum and minimum for floats.
func clampNum[T num](dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
	d := view[T](dst, lo, hi)
	x := view[T](srcs[1], lo, hi)
	mn, mnS := bound[T](srcs[0], lo, hi)
	mx, mxS := bound[T](srcs[2], lo, hi)
	if mnS && mxS {
		a, b := mn[0], mx[0]
		for i, v := range x {
			d[i] = min(max(v, a), b)
		}
		return
	}
	for i, v := range x {
		a, b := mn[0], mx[0]
		if !mnS {
			a = mn[i]
		}
		if !mxS {
			b = mx[i]
		}
		d[i] = min(max(v, a), b)
	}
}

func clampTile[T any](f func(x, lo, hi T) T) kernel.TileFn {
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		d := view[T](dst, lo, hi)
		x := view[T](srcs[1], lo, hi)
		mn, mnS := bound[T](srcs[0], lo, hi)
		mx, mxS := bound[T](srcs[2], lo, hi)
		for i, v := range x {
			a, b := mn[0], mx[0]
			if !mnS {
				a = mn[i]
			}
			if !mxS {
				b = mx[i]
			}
			d[i] = f(v, a, b)
		}
	}
}

// clampSmallFloat clamps narrow floats in float64, where max and min are
// exact.
func clampSmallFloat(dt hlo.DType) kernel.TileFn {
	dec, enc := floatDecoder(dt), floatEncoder(dt)
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		sc := f64Pool.Get().(*f64Scratch)
		var a, b float64
		mnS, mxS := srcs[0].NumElements() == 1, srcs[2].NumElements() == 1
		if mnS {
			dec(sc.bufs[1][:1], srcs[0], 0)
			a = sc.bufs[1][0]
		}
		if mxS {
			dec(sc.bufs[2][:1], srcs[2], 0)
			b = sc.bufs[2][0]
		}
		for s := lo; s < hi; s += chunkLen {
			n := min(chunkLen, hi-s)
			x, mn, mx := sc.bufs[0][:n], sc.bufs[1][:n], sc.bufs[2][:n]
			dec(x, srcs[1], s)
			if !mnS {
				dec(mn, srcs[0], s)
			}
			if !mxS {
				dec(mx, srcs[2], s)
			}
			for i, v := range x {
				l, h := a, b
				if !mnS {
					l = mn[i]
				}
				if !mxS {
					h = mx[i]
				}
				x[i] = min(max(v, l), h)
			}
			enc(dst, s, x)
		}
		f64Pool.Put(sc)
	}
}
