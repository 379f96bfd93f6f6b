package lazy

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// windowParams are ReduceWindow's attributes (one entry per axis).
type windowParams struct {
	kind                          string // sum, max, min
	window, strides, padLo, padHi []int64
}

func (w windowParams) attrs() Attrs {
	return Attrs{{"kind", w.kind}, {"window", w.window}, {"strides", w.strides}, {"pad_lo", w.padLo}, {"pad_hi", w.padHi}}
}

func windowFrom(a Attrs) windowParams {
	return windowParams{a.Str("kind"), a.Ints("window"), a.Ints("strides"), a.Ints("pad_lo"), a.Ints("pad_hi")}
}

func inferWindow(in []Shape, a Attrs) ([]Shape, error) {
	w := windowFrom(a)
	r := in[0].Rank()
	if len(w.window) != r || len(w.strides) != r || len(w.padLo) != r || len(w.padHi) != r {
		return nil, fmt.Errorf("window attributes need %d entries", r)
	}
	switch w.kind {
	case "sum", "max", "min":
	default:
		return nil, fmt.Errorf("unknown window reduction %q", w.kind)
	}
	out := make([]int64, r)
	for i := 0; i < r; i++ {
		if w.window[i] < 1 || w.strides[i] < 1 {
			return nil, fmt.Errorf("window and strides must be positive")
		}
		x := in[0].Dims[i] + w.padLo[i] + w.padHi[i]
		if x < w.window[i] {
			out[i] = 0
		} else {
			out[i] = (x-w.window[i])/w.strides[i] + 1
		}
	}
	return []Shape{NewShape(in[0].DType, out...)}, nil
}

func lowerWindow(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
	w := windowFrom(n.attrs)
	dt := tensorType(in[0]).DType
	pad := make([][2]int64, len(w.padLo))
	for i := range pad {
		pad[i] = [2]int64{w.padLo[i], w.padHi[i]}
	}
	body := reducer(w.kind)
	return lc.S.ReduceWindow([]*hlo.Value{in[0]}, []*hlo.Value{lc.S.Constant(reduceInit(dt, w.kind))}, hlo.Window{
		Dimensions: w.window, Strides: w.strides, Padding: pad,
	}, func(s *hlo.Scope, args []*hlo.Value) []*hlo.Value { return []*hlo.Value{body(s, args[0], args[1])} })
}

func windowVJP(x, y, dy []*Tensor, a Attrs) []*Tensor {
	w := windowFrom(a)
	if w.kind == "sum" {
		// Spread each output gradient over its window: dilate by the
		// strides, pad by window-1 minus the original padding, sum windows.
		r := x[0].Rank()
		lo, hi, interior := make([]int64, r), make([]int64, r), make([]int64, r)
		ones := make([]int64, r)
		for i := 0; i < r; i++ {
			ones[i] = 1
			interior[i] = w.strides[i] - 1
			lo[i] = w.window[i] - 1 - w.padLo[i]
			covered := dilate(dy[0].Dims()[i], w.strides[i])
			hi[i] = x[0].Dims()[i] + w.window[i] - 1 - covered - lo[i]
		}
		p := dy[0].PadWith(lo, hi, interior, 0)
		zero := make([]int64, r)
		return []*Tensor{apply1(opReduceWindow, windowParams{"sum", w.window, ones, zero, zero}.attrs(), p)}
	}
	sel := "GE"
	if w.kind == "min" {
		sel = "LE"
	}
	return []*Tensor{apply1(opSelectAndScatterMax, append(w.attrs(), Attr{"select", sel}), x[0], dy[0])}
}

// poolSelect is the select region of a float max (sel GE) or min (LE)
// pool's gradient: PyTorch's CPU kernels scan a window in row-major order
// and move to a candidate when `cand > cur || isnan(cand)` (cand < cur for
// min), so the first maximum wins among numbers and the last NaN wins over
// everything. select_and_scatter keeps the current choice while the region
// is true: keep = !(cand > cur || cand != cand). A plain GE would also keep
// the first maximum but leave a NaN for any later number.
func poolSelect(s *hlo.Scope, sel string, cur, cand *hlo.Value) *hlo.Value {
	dir := hlo.CmpGT
	if sel == "LE" {
		dir = hlo.CmpLT
	}
	return s.Not(s.Or(s.Compare(dir, cand, cur), s.Compare(hlo.CmpNE, cand, cand)))
}

func init() {
	define(opReduceWindow, &OpDef{Name: "ReduceWindow", Infer: inferWindow, Lower: lowerWindow, VJP: windowVJP})
	define(opSelectAndScatterMax, &OpDef{
		Name: "SelectAndScatter",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			out, err := inferWindow(in[:1], a)
			if err != nil {
				return nil, err
			}
			if !out[0].Equal(in[1]) {
				return nil, fmt.Errorf("source %s does not match the window output %s", in[1], out[0])
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			w := windowFrom(n.attrs)
			dt := tensorType(in[0]).DType
			pad := make([][2]int64, len(w.padLo))
			for i := range pad {
				pad[i] = [2]int64{w.padLo[i], w.padHi[i]}
			}
			sel := n.attrs.Str("select")
			return []*hlo.Value{lc.S.SelectAndScatter(in[0], in[1], lc.scalar(dt, 0), hlo.Window{
				Dimensions: w.window, Strides: w.strides, Padding: pad,
			}, func(s *hlo.Scope, args []*hlo.Value) *hlo.Value {
				if !dt.IsFloat() {
					return s.Compare(hlo.CompareDir(sel), args[0], args[1])
				}
				return poolSelect(s, sel, args[0], args[1])
			}, func(s *hlo.Scope, args []*hlo.Value) *hlo.Value {
				return s.Add(args[0], args[1])
			})}
		},
		VJP: selectAndScatterVJP,
	})
	define(opCumsum, &OpDef{
		Name: "Cumsum",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if !numeric.accepts(in[0].DType) {
				return nil, fmt.Errorf("needs a numeric tensor")
			}
			if ax := a.Int("axis"); ax < 0 || int(ax) >= in[0].Rank() {
				return nil, fmt.Errorf("axis %d out of range for rank %d", ax, in[0].Rank())
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			t := tensorType(in[0])
			axis := n.attrs.Int("axis")
			r := len(t.Dims)
			win, strides := make([]int64, r), make([]int64, r)
			pad := make([][2]int64, r)
			for i := range win {
				win[i], strides[i] = 1, 1
			}
			win[axis] = t.Dims[axis]
			if n.attrs.Bool("reverse") {
				pad[axis][1] = t.Dims[axis] - 1
			} else {
				pad[axis][0] = t.Dims[axis] - 1
			}
			if t.Dims[axis] == 0 {
				return in
			}
			return lc.S.ReduceWindow([]*hlo.Value{in[0]}, []*hlo.Value{lc.scalar(t.DType, 0)}, hlo.Window{
				Dimensions: win, Strides: strides, Padding: pad,
			}, func(s *hlo.Scope, args []*hlo.Value) []*hlo.Value { return []*hlo.Value{s.Add(args[0], args[1])} })
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{apply1(opCumsum, Attrs{{"axis", a.Int("axis")}, {"reverse", !a.Bool("reverse")}}, dy[0])}
		},
	})
	define(opSort, &OpDef{
		Name: "Sort",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if ax := a.Int("axis"); ax < 0 || int(ax) >= in[0].Rank() {
				return nil, fmt.Errorf("axis %d out of range for rank %d", ax, in[0].Rank())
			}
			if in[0].DType.IsComplex() {
				return nil, fmt.Errorf("cannot sort complex values")
			}
			return []Shape{in[0], in[0].with(I64)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			t := tensorType(in[0])
			axis := n.attrs.Int("axis")
			idx := lc.S.Iota(hlo.NewTensorType(I64, t.Dims...), axis)
			dir := "LT"
			if n.attrs.Bool("descending") {
				dir = "GT"
			}
			cmp := func(s *hlo.Scope, args []*hlo.Value) *hlo.Value {
				return s.CompareWithType(hlo.CompareDir(dir), args[0], args[1], totalOrderType(t.DType))
			}
			if !t.DType.IsFloat() {
				return lc.S.Sort([]*hlo.Value{in[0], idx}, axis, true, cmp)
			}
			// PyTorch's order: -0 and +0 are equal (a stable sort keeps
			// them in place) and every NaN is above +inf. Sort on a key with
			// +0 for -0 and +NaN for any NaN, in total order.
			key := lc.S.Add(in[0], lc.splat(t, 0))
			key = lc.S.Select(lc.S.Compare(hlo.CmpNE, in[0], in[0]), lc.splat(t, math.NaN()), key)
			res := lc.S.Sort([]*hlo.Value{key, in[0], idx}, axis, true, cmp)
			return res[1:]
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			if dy[0] == nil {
				return []*Tensor{nil}
			}
			return []*Tensor{apply1(opScatterAddAlong, Attrs{{"axis", a.Int("axis")}}, ZerosLike(x[0]), y[1], dy[0])}
		},
	})
}

// selectAndScatterVJP: the output is linear in the source and piecewise
// constant in the operand, so only the source has a gradient: each window
// reads the output gradient at the position it selected. The selection is
// replayed as the select region makes it (poolSelect for floats; GE or LE
// for integers): the window offsets are visited in row-major order as
// strided slices of the padded operand, and an offset inside the operand
// replaces the current choice when there is none yet, when it beats it
// (> for max, < for min) or when it is NaN. Padding is never selected.
func selectAndScatterVJP(x, y, dy []*Tensor, a Attrs) []*Tensor {
	w := windowFrom(a)
	op, g := x[0], dy[0]
	r := op.Rank()
	zero := make([]int64, r)
	ext := op.PadWith(w.padLo, w.padHi, zero, 0)
	gp := g.PadWith(w.padLo, w.padHi, zero, 0)
	inside := FullOn(op.dev, Bool, 1, op.Dims()...).PadWith(w.padLo, w.padHi, zero, 0)
	out := x[1].Dims()
	ds := ZerosLike(x[1])
	if ds.Size() == 0 {
		return []*Tensor{nil, ds}
	}
	found := FullOn(op.dev, Bool, 0, out...)
	cur := FullOn(op.dev, op.DType(), 0, out...)
	k := make([]int64, r) // window offset, row-major
	for {
		start, limit := make([]int64, r), make([]int64, r)
		for d := 0; d < r; d++ {
			start[d] = k[d]
			limit[d] = k[d] + 1
			if out[d] > 0 {
				limit[d] += (out[d] - 1) * w.strides[d]
			}
		}
		xk := ext.SliceStrided(start, limit, w.strides)
		beats := xk.Gt(cur)
		if a.Str("select") == "LE" {
			beats = xk.Lt(cur)
		}
		take := inside.SliceStrided(start, limit, w.strides).And(found.Not().Or(beats).Or(xk.Ne(xk)))
		ds = Where(take, gp.SliceStrided(start, limit, w.strides), ds)
		cur = Where(take, xk, cur)
		found = found.Or(take)
		d := r - 1
		for ; d >= 0; d-- {
			if k[d]++; k[d] < w.window[d] {
				break
			}
			k[d] = 0
		}
		if d < 0 {
			break
		}
	}
	return []*Tensor{nil, ds}
}

// totalOrderType is the comparison type for sorting: TOTALORDER for floats
// (NaN last, -0 before +0), SIGNED/UNSIGNED for integers.
func totalOrderType(dt DType) string {
	switch {
	case dt.IsFloat():
		return "TOTALORDER"
	case dt.IsUnsigned() || dt.IsBool():
		return "UNSIGNED"
	}
	return "SIGNED"
}
