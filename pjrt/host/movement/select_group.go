package movement

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The gradient of a ReLU before a max pool: a 2x2 stride-2
// select_and_scatter (f32, a FLOAT comparison or PyTorch's pooling rule,
// add) whose one reader is
// select(compare(a, 0, GT), result, splat(c)) or its mirror
// select(compare(a, 0, LE), splat(c), result) (which keeps the result
// where a is NaN), with a of the result's shape, compiles as one compound
// step (kernel.Compound): each chunk of
// window rows is masked right after the kernel wrote it, while it is in
// cache, instead of in a pass of its own over the whole gradient and a.
// The comparison is exact and the select copies bits, so the results are
// the separate ops' bits.

func groupSelectScatter(g *kernel.GroupCtx) (*kernel.Compound, error) {
	op := g.Op
	if len(op.Operands) != 3 || len(op.Results) != 1 {
		return nil, nil
	}
	res := op.Results[0]
	us := g.Users(res)
	if len(us) != 1 || g.Returned(res) || !g.InBlock(us[0]) {
		return nil, nil
	}
	sel := us[0]
	if sel.Name != "stablehlo.select" || len(sel.Operands) != 3 || sel.Operands[0] == res {
		return nil, nil
	}
	rt := res.TensorType()
	if rt == nil || rt.DType != hlo.F32 || !rt.IsStatic() || rt.Quant != nil || !hlo.TypesEqual(sel.Results[0].Type, rt) {
		return nil, nil
	}
	// keep: the result stays where compare(a, 0, dir) is true (GT), or
	// where it is false (LE, the mirror).
	pred, dir, fill := sel.Operands[0], "GT", sel.Operands[2]
	switch {
	case sel.Operands[1] == res && sel.Operands[2] != res:
	case sel.Operands[2] == res && sel.Operands[1] != res:
		dir, fill = "LE", sel.Operands[1]
	default:
		return nil, nil
	}
	cmp := pred.Def
	if cmp == nil || cmp.Name != "stablehlo.compare" || len(cmp.Operands) != 2 {
		return nil, nil
	}
	cc := g.OpCtx(cmp)
	if d, _ := cc.Enum("comparison_direction"); d != dir {
		return nil, nil
	}
	if t, ok := cc.Enum("compare_type"); ok && t != "FLOAT" {
		return nil, nil
	}
	a := cmp.Operands[0]
	if !hlo.TypesEqual(a.Type, rt) {
		return nil, nil
	}
	if z, ok := splatConstant(cmp.Operands[1]); !ok || z != 0 {
		return nil, nil
	}
	c, ok := splatConstant(fill)
	if !ok {
		return nil, nil
	}
	so, err := newSelectScatter(g.OpCtx(op))
	if err != nil || so.pool == nil || !so.typed || so.dt != hlo.F32 || !so.pool.tiles2x2() {
		return nil, nil
	}
	ops := []*hlo.Op{op, sel}
	if onlyReader(g, pred, sel) && g.InBlock(cmp) {
		ops = append(ops, cmp)
		if z := cmp.Operands[1]; onlyReader(g, z, cmp) && g.InBlock(z.Def) {
			ops = append(ops, z.Def)
		}
	}
	if onlyReader(g, fill, sel) && g.InBlock(fill.Def) {
		ops = append(ops, fill.Def)
	}
	return &kernel.Compound{
		Ops:     ops,
		Inputs:  []*hlo.Value{op.Operands[0], op.Operands[1], op.Operands[2], a},
		Outputs: []*hlo.Value{sel.Results[0]},
		Run: func(x *kernel.Ctx, args, results []kernel.Value) error {
			var ls [4]*hlo.Literal
			if err := lits(op, args, ls[:]); err != nil {
				return err
			}
			if ls[3].DType != hlo.F32 || ls[3].NumElements() != ls[0].NumElements() {
				return runErr(op, "mask operand %s does not match operand %s", ls[3].ShapeString(), ls[0].ShapeString())
			}
			out, err := so.runSelectPoolMasked(x, so.pool, ls[0], ls[1], ls[2], ls[3], c, dir == "LE")
			if err != nil {
				return err
			}
			results[0] = out
			return nil
		},
	}, nil
}

// onlyReader reports whether op is the only reader of v (not returned).
func onlyReader(g *kernel.GroupCtx, v *hlo.Value, op *hlo.Op) bool {
	us := g.Users(v)
	return len(us) == 1 && us[0] == op && !g.Returned(v)
}

// splatConstant returns the value of every element of w when the program
// fixes it (kernel.SplatElement) and it is an f32.
func splatConstant(w *hlo.Value) (float32, bool) {
	e, ok := kernel.SplatElement(w)
	if !ok || e.DType != hlo.F32 {
		return 0, false
	}
	return e.F32()[0], true
}

// maskGT0 sets out[i] = c wherever !(a[i] > 0).
func maskGT0(out, a []float32, c float32) {
	a = a[:len(out)]
	done := maskGT0Vec(out, a, c)
	cb := math.Float32bits(c)
	for i := done; i < len(out); i++ {
		if !(a[i] > 0) {
			out[i] = math.Float32frombits(cb)
		}
	}
}

// maskLE0 sets out[i] = c wherever a[i] <= 0 (NaNs keep out[i]).
func maskLE0(out, a []float32, c float32) {
	a = a[:len(out)]
	done := maskLE0Vec(out, a, c)
	cb := math.Float32bits(c)
	for i := done; i < len(out); i++ {
		if a[i] <= 0 {
			out[i] = math.Float32frombits(cb)
		}
	}
}
