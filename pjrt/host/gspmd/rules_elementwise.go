package gspmd

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// ruleElementwise: every operand of the result's rank is brought to one
// layout (the most cut among the operands that exist in a layout, so that
// replicated operands are sliced locally), the op runs on the shards.
// 0-d operands (select's predicate, clamp's bounds) stay whole.
func ruleElementwise(p *pass, op *hlo.Op) {
	rt := op.Results[0].TensorType()
	var target *layout
	for _, v := range op.Operands {
		pv := p.val(v)
		if pv.typ.Rank() != rt.Rank() || pv.local == nil {
			continue
		}
		if target == nil || pv.lay.numTiles() > target.numTiles() {
			target = pv.lay
		}
	}
	if target == nil {
		// Only generated operands (splats, iotas): stay generated.
		if allGenerated(p, op) {
			// The most cut of the operands' natural layouts.
			natural := replicatedLayout(rt.Rank(), p.n)
			for _, v := range op.Operands {
				if pv := p.val(v); pv.typ.Rank() == rt.Rank() && pv.lay.numTiles() > natural.numTiles() {
					natural = pv.lay
				}
			}
			p.setGen(op.Results[0], natural, func(l *layout, count bool) *hlo.Value {
				return elementwiseIn(p, op, l, count)
			})
			return
		}
		target = replicatedLayout(rt.Rank(), p.n)
	}
	p.set(op.Results[0], elementwiseIn(p, op, target, true), target)
}

func allGenerated(p *pass, op *hlo.Op) bool {
	for _, v := range op.Operands {
		if p.val(v).gen == nil {
			return false
		}
	}
	return len(op.Operands) > 0
}

// elementwiseIn emits op with its operands in layout l.
func elementwiseIn(p *pass, op *hlo.Op, l *layout, count bool) *hlo.Value {
	rt := op.Results[0].TensorType()
	ins := make([]*hlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		pv := p.val(v)
		if pv.typ.Rank() != rt.Rank() {
			ins[i] = p.get(v, replicatedLayout(pv.typ.Rank(), p.n), count)
			continue
		}
		ins[i] = p.get(v, l, count)
	}
	return p.emit(op.Name, ins, op.Attrs, nil, localType(rt, l))[0]
}

// ruleConstant: a splat is generated in any layout; other constants are
// replicated (sliced locally where an op wants them cut).
func ruleConstant(p *pass, op *hlo.Op) {
	rt := op.Results[0].TensorType()
	a, ok := op.Attr("value").(*hlo.DenseElementsAttr)
	if !ok {
		p.fallback(op)
		return
	}
	natural := replicatedLayout(rt.Rank(), p.n)
	// The one element of a splat; a quantized one keeps its own op (the
	// rebuilt constant would lose the type's quantization), as does an
	// empty one.
	var elem []byte
	switch {
	case rt.Quant != nil:
	case a.Splat != nil:
		elem = a.Splat.Data
	case a.Value != nil && len(a.Value.Data) >= rt.DType.Size() && isSplat(a.Value):
		elem = a.Value.Data[:rt.DType.Size()]
	}
	if len(elem) > 0 && rt.Rank() > 0 {
		scalar := hlo.NewLiteral(rt.DType)
		copy(scalar.Data, elem)
		var c *hlo.Value
		p.setGen(op.Results[0], natural, func(l *layout, _ bool) *hlo.Value {
			if c == nil {
				c = p.f.Constant(scalar)
			}
			return p.f.BroadcastInDim(c, l.shardDims(rt.Dims), nil)
		})
		return
	}
	out := p.emit(op.Name, nil, op.Attrs, nil, rt)[0]
	p.set(op.Results[0], out, natural)
}

func isSplat(l *hlo.Literal) bool {
	es := l.DType.Size()
	if es == 0 || len(l.Data) <= es {
		return true
	}
	first := l.Data[:es]
	for i := es; i < len(l.Data); i += es {
		for k := 0; k < es; k++ {
			if l.Data[i+k] != first[k] {
				return false
			}
		}
	}
	return true
}

// ruleIota: generated in any layout, the local iota shifted by the shard's
// offset along the iota dimension.
func ruleIota(p *pass, op *hlo.Op) {
	rt := op.Results[0].TensorType()
	d, ok := hlo.AttrInt(op.Attr("iota_dimension"))
	if !ok || d < 0 || int(d) >= rt.Rank() {
		p.fallback(op)
		return
	}
	p.setGen(op.Results[0], replicatedLayout(rt.Rank(), p.n), func(l *layout, _ bool) *hlo.Value {
		local := l.shardDims(rt.Dims)
		it := p.f.Iota(hlo.NewTensorType(rt.DType, local...), d)
		if l.tiles[d] == 1 {
			return it
		}
		off := p.f.Convert(p.perDevice(offsets(l, rt.Dims, int(d))), rt.DType)
		return p.f.Add(it, p.f.BroadcastInDim(off, local, nil))
	})
}

// ruleCustomCall: @Sharding moves its operand to the annotated layout (a
// hard constraint); other custom calls run on whole tensors.
func ruleCustomCall(p *pass, op *hlo.Op) {
	target, _ := hlo.AttrStr(op.Attr("call_target_name"))
	if target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" {
		ruleManualBoundary(p, op, target)
		return
	}
	if target != "Sharding" || len(op.Operands) != 1 || len(op.Results) != 1 {
		if p.anyManual(op) {
			ruleManual(p, op)
			return
		}
		p.fallback(op)
		return
	}
	d := hlo.DictAttr(op.Attrs)
	s, err := shardingAttr(&d)
	if err != nil {
		p.fail("%v", err)
	}
	if x := p.val(op.Operands[0]); x.manual || s.Type == pjrt.ShardManual {
		if !x.manual || s.Type != pjrt.ShardManual {
			p.fail("sharding %s on a %s value: manual values enter through SPMDFullToShardShape and leave through SPMDShardToFullShape", s, map[bool]string{true: "manual", false: "partitioned"}[x.manual])
		}
		p.vals[op.Results[0]] = x
		return
	}
	rt := op.Results[0].TensorType()
	l, err := layoutOf(s, rt.Rank(), p.n)
	if err != nil {
		p.fail("%v", err)
	}
	x := p.get(op.Operands[0], l, false)
	p.set(op.Results[0], x, l)
}

func (p *pass) anyManual(op *hlo.Op) bool {
	for _, v := range op.Operands {
		if pv := p.vals[v]; pv != nil && pv.manual {
			return true
		}
	}
	return false
}

// ruleManual runs an op on manual values as written: manual operands are
// each device's own values, others whole (replicated); results are manual.
func ruleManual(p *pass, op *hlo.Op) {
	ins := make([]*hlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		if pv := p.val(v); pv.manual {
			ins[i] = pv.local
		} else {
			ins[i] = p.get(v, replicatedLayout(pv.typ.Rank(), p.n), true)
		}
	}
	outer := map[*hlo.Value]*hlo.Value{}
	for _, v := range op.CapturedValues() {
		if pv, ok := p.vals[v]; ok {
			if pv.manual {
				outer[v] = pv.local
			} else {
				outer[v] = p.get(v, replicatedLayout(pv.typ.Rank(), p.n), true)
			}
		}
	}
	types := make([]hlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	outs := p.emit(op.Name, ins, op.Attrs, p.cloneRegions(op, outer), types...)
	for i, r := range op.Results {
		tt := r.TensorType()
		if tt == nil {
			p.fail("manual result of type %s: tensors only", r.Type)
		}
		p.vals[r] = &pval{typ: tt, lay: replicatedLayout(tt.Rank(), p.n), local: outs[i], manual: true}
	}
}

// ruleManualBoundary enters a manual region (SPMDFullToShardShape: the
// operand's shards become each device's manual value) or leaves it
// (SPMDShardToFullShape: each device's manual value is its shard of the
// result, laid out by the op's sharding).
func ruleManualBoundary(p *pass, op *hlo.Op, target string) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		p.fail("@%s takes one operand and has one result", target)
	}
	rt := op.Results[0].TensorType()
	x := p.val(op.Operands[0])
	if target == "SPMDFullToShardShape" {
		if x.manual {
			p.fail("@%s of a value that is manual already", target)
		}
		x = p.materialize(op.Operands[0])
		if got := tensorOf(x.local).Dims; !slices.Equal(got, rt.Dims) {
			p.fail("@%s: the operand's shards are %v (layout %s), the result is %s", target, got, x.lay, rt)
		}
		p.vals[op.Results[0]] = &pval{typ: rt, lay: replicatedLayout(rt.Rank(), p.n), local: x.local, manual: true}
		return
	}
	if !x.manual {
		p.fail("@%s of a value that is not manual", target)
	}
	d := hlo.DictAttr(op.Attrs)
	s, err := shardingAttr(&d)
	if err != nil {
		p.fail("%v", err)
	}
	l, err := layoutOf(s, rt.Rank(), p.n)
	if err != nil {
		p.fail("%v", err)
	}
	if want := l.shardDims(rt.Dims); !slices.Equal(want, x.typ.Dims) {
		p.fail("@%s: shards of %s under %s are %v, the manual value is %s", target, rt, s, want, x.typ)
	}
	p.set(op.Results[0], x.local, l)
}
