package gspmd

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
)

// ruleReduce: reducing whole dimensions is local; reducing cut ones masks
// the padding with the init values, reduces locally and combines the
// partial results across the devices that hold the other parts: an
// all-reduce with the same computation for a one-input reduce whose body
// is one elementwise op, else an all-gather of the partial results along
// a new dimension and a second reduce over it. The result keeps the cuts
// of the dimensions that remain.
func ruleReduce(p *pass, op *hlo.Op) {
	n := len(op.Operands) / 2
	inputs, inits := op.Operands[:n], op.Operands[n:]
	xt := inputs[0].TensorType()
	dims := ints(attrInts(p, op, "dimensions"))
	l := p.materialize(inputs[0]).lay
	ins := make([]*hlo.Value, 0, 2*n)
	for _, v := range inputs {
		ins = append(ins, p.get(v, l, true))
	}
	var initVals []*hlo.Value
	for _, v := range inits {
		initVals = append(initVals, p.get(v, replicatedLayout(0, p.n), true))
	}
	var cut []int
	for _, d := range dims {
		if l.tiles[d] > 1 {
			cut = append(cut, d)
		}
	}
	if len(cut) > 0 {
		for i := range ins {
			init := initVals[i]
			ins[i] = p.maskPadding(ins[i], l, xt.Dims, cut, func() *hlo.Value { return init })
		}
	}
	var kept []int
	for d := 0; d < xt.Rank(); d++ {
		if !slices.Contains(dims, d) {
			kept = append(kept, d)
		}
	}
	rl := l.project(kept)
	types := make([]hlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = localType(r.TensorType(), rl)
	}
	outs := p.emit(op.Name, append(ins, initVals...), op.Attrs, p.cloneRegions(op, nil), types...)
	if len(cut) > 0 {
		groups, err := l.groups(cut)
		if err != nil {
			p.fail("%v", err)
		}
		if body := simpleBody(op); n == 1 && body != "" {
			outs[0] = p.f.AllReduce([]*hlo.Value{outs[0]}, p.collective(groups), func(s *hlo.Scope, args []*hlo.Value) *hlo.Value {
				return s.Op(body, args, nil)[0]
			})[0]
		} else {
			outs = p.combinePartials(op, outs, initVals, groups)
		}
	}
	for i, r := range op.Results {
		p.set(r, outs[i], rl)
	}
}

// simpleBody returns the op name when a reduce body is one elementwise op
// of its two arguments, in order or swapped (add, multiply, max, min,
// and, or, xor), else "".
func simpleBody(op *hlo.Op) string {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return ""
	}
	b := op.Regions[0].Blocks[0]
	if len(b.Args) != 2 || len(b.Ops) != 2 {
		return ""
	}
	f, ret := b.Ops[0], b.Ops[1]
	switch f.Name {
	case "stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
		"stablehlo.and", "stablehlo.or", "stablehlo.xor":
	default:
		return ""
	}
	if len(f.Operands) != 2 || len(ret.Operands) != 1 || ret.Operands[0] != f.Results[0] {
		return ""
	}
	a, c := f.Operands[0], f.Operands[1]
	if (a == b.Args[0] && c == b.Args[1]) || (a == b.Args[1] && c == b.Args[0]) {
		return f.Name
	}
	return ""
}

// combinePartials gathers each device group's partial results of a
// reduce along a new leading dimension and reduces them with the op's
// computation.
func (p *pass) combinePartials(op *hlo.Op, partials, inits []*hlo.Value, groups [][]int64) []*hlo.Value {
	gathered := make([]*hlo.Value, len(partials))
	for i, x := range partials {
		t := tensorOf(x)
		r := p.f.Reshape(x, append([]int64{1}, t.Dims...)...)
		gathered[i] = p.f.AllGather([]*hlo.Value{r}, 0, p.collective(groups))[0]
	}
	types := make([]hlo.Type, len(partials))
	for i, x := range partials {
		types[i] = x.Type
	}
	attrs := []hlo.NamedAttr{{Name: "dimensions", Value: hlo.I64sAttr([]int64{0})}}
	return p.emit("stablehlo.reduce", append(gathered, inits...), attrs, p.cloneRegions(op, nil), types...)
}
