package linalg

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// A convolution that runs with the taps kernel compiles as one compound
// step (kernel.Compound) with the bias added to its result: an add whose
// first operand is the convolution's result (read by nothing else) and
// whose second is a broadcast_in_dim of one value per output feature.
// The kernel adds the bias to each finished sum before storing it, so
// the broadcast is never materialised and the sums are not read back.
// Each element is the rounded sum plus the bias, rounded, with the sum as
// the first operand, exactly as the separate add computes it, so results
// are bit-identical.
func groupConv(g *kernel.GroupCtx) (*kernel.Compound, error) {
	op := g.Op
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, nil
	}
	res := op.Results[0]
	add := soleUser(g, res)
	if add == nil || add.Name != "stablehlo.add" || len(add.Operands) != 2 || add.Operands[0] != res || add.Operands[1] == res {
		return nil, nil
	}
	for _, v := range append([]*hlo.Value{add.Results[0]}, op.Operands...) {
		if t := v.TensorType(); t == nil || !t.IsStatic() || t.Quant != nil || t.DType != hlo.F32 {
			return nil, nil
		}
	}
	c := g.OpCtx(op)
	lt, rt, ot, err := convTypes(c)
	if err != nil || !hlo.TypesEqual(ot, add.Results[0].Type) {
		return nil, nil
	}
	a, err := readConvAttrs(c, lt.Rank(), true)
	if err != nil {
		return nil, nil
	}
	bias := featureBroadcast(add.Operands[1], int(a.dn.OutputFeatureDim))
	if bias == nil {
		return nil, nil
	}
	p, err := planConv(c, lt, rt, ot, a)
	if err != nil || p.taps == nil {
		return nil, nil
	}
	ops := []*hlo.Op{op, add}
	if b := add.Operands[1].Def; onlyReader(g, add.Operands[1], add) && g.InBlock(b) {
		ops = append(ops, b)
	}
	outputs := []*hlo.Value{add.Results[0]}
	relu := reluOf(g, add.Results[0])
	if relu != nil {
		ops = append(ops, relu)
		outputs = append(outputs, relu.Results[0])
		for _, z := range relu.Operands {
			if z != add.Results[0] && onlyReader(g, z, relu) && g.InBlock(z.Def) {
				ops = append(ops, z.Def)
			}
		}
	}
	return &kernel.Compound{
		Ops:     ops,
		Inputs:  []*hlo.Value{op.Operands[0], op.Operands[1], bias},
		Outputs: outputs,
		Run: func(x *kernel.Ctx, args, results []kernel.Value) error {
			l, r, err := argPair(c, args)
			if err != nil {
				return err
			}
			bl, err := argLiteral(c, args, 2)
			if err != nil {
				return err
			}
			if bl.DType != hlo.F32 || bl.NumElements() != p.o {
				return c.Errorf("bias operand is %s, want %d f32 values", bl.ShapeString(), p.o)
			}
			out := x.NewLiteralUninit(ot.DType, ot.Dims)
			var rl *hlo.Literal
			var rs []float32
			if relu != nil {
				rl = x.NewLiteralUninit(ot.DType, ot.Dims)
				rs = rl.F32()
				results[1] = rl
			}
			if out.NumElements() > 0 {
				runTaps(p.taps, l.F32(), r.F32(), out.F32(), bl.F32(), rs)
			}
			results[0] = out
			return nil
		},
	}, nil
}

// reluOf returns the op max(v, +0) (either operand order, the zero a
// splatted constant) when it reads v, v is read elsewhere too (or
// returned), and the op is free to join: the ReLU is then computed as v is
// stored. Go's max, which the elementwise maximum computes, is symmetric
// when one operand is +0, NaNs included.
func reluOf(g *kernel.GroupCtx, v *hlo.Value) *hlo.Op {
	us := g.Users(v)
	if len(us) < 2 && !g.Returned(v) {
		return nil
	}
	for _, u := range us {
		if u.Name != "stablehlo.maximum" || len(u.Operands) != 2 || !g.InBlock(u) || !hlo.TypesEqual(u.Results[0].Type, v.Type) {
			continue
		}
		z := u.Operands[1]
		if z == v {
			z = u.Operands[0]
		}
		if z != v && isPositiveZeroSplat(z) {
			return u
		}
	}
	return nil
}

// isPositiveZeroSplat matches a value whose every element the program
// fixes (kernel.SplatElement) at f32 +0.
func isPositiveZeroSplat(z *hlo.Value) bool {
	e, ok := kernel.SplatElement(z)
	if !ok || e.DType != hlo.F32 {
		return false
	}
	return math.Float32bits(e.F32()[0]) == 0
}

// featureBroadcast returns the operand of w = broadcast_in_dim(v) when v
// holds one value per element of w's dimension feature (every other
// dimension of v, if any, is 1 and broadcast), else nil.
func featureBroadcast(w *hlo.Value, feature int) *hlo.Value {
	b := w.Def
	if b == nil || b.Name != "stablehlo.broadcast_in_dim" || len(b.Operands) != 1 {
		return nil
	}
	v := b.Operands[0]
	t, wt := v.TensorType(), w.TensorType()
	dims, ok := hlo.AttrInts(b.Attr("broadcast_dimensions"))
	if !ok || t == nil || wt == nil || t.Quant != nil || t.DType != wt.DType || !t.IsStatic() || len(dims) != t.Rank() {
		return nil
	}
	found := false
	for i, d := range dims {
		switch {
		case int(d) == feature && t.Dims[i] == wt.Dims[feature]:
			found = true
		case t.Dims[i] != 1:
			return nil
		}
	}
	if !found && wt.Dims[feature] != 1 {
		return nil
	}
	return v
}
