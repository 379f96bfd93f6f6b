package gspmd

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
)

// keepOnly returns l with every dimension outside keep whole.
func keepOnly(l *layout, keep []int) *layout {
	var drop []int
	for d := 0; d < l.rank(); d++ {
		if !slices.Contains(keep, d) && l.tiles[d] > 1 {
			drop = append(drop, d)
		}
	}
	if len(drop) == 0 {
		return l
	}
	return l.untile(drop...)
}

// alignPair makes dimension a of *x and b of *y cut alike: the whole side
// is sliced to the other's cut; if both are cut differently y follows x.
func alignPair(x **layout, a int, y **layout, b int) {
	switch {
	case (*x).dimEqual(a, *y, b):
	case (*y).tiles[b] == 1:
		*y = (*y).setDim(b, *x, a)
	case (*x).tiles[a] == 1:
		*x = (*x).setDim(a, *y, b)
	default:
		*y = (*y).setDim(b, *x, a)
	}
}

// indexBatchDims lists the dimensions of an index tensor of rank r other
// than the index vector dimension, in order.
func indexBatchDims(r int, ivd int64) []int {
	var out []int
	for d := 0; d < r; d++ {
		if int64(d) != ivd {
			out = append(out, d)
		}
	}
	return out
}

// ruleGather: the operand may stay cut along its batching dimensions and
// the indices along their batch dimensions (the batching ones cut as the
// operand's); the output's batch dimensions follow the indices. Any other
// cut is gathered first.
func ruleGather(p *pass, op *hlo.Op) {
	dn, ok := op.Attr("dimension_numbers").(*hlo.GatherDimsAttr)
	if !ok {
		p.fallback(op)
		return
	}
	operand, indices := op.Operands[0], op.Operands[1]
	it := indices.TensorType()
	rt := op.Results[0].TensorType()
	ol := keepOnly(p.materialize(operand).lay, ints(dn.OperandBatchingDims))
	ibd := indexBatchDims(it.Rank(), dn.IndexVectorDim)
	il := keepOnly(p.materialize(indices).lay, ibd)
	for k := range dn.OperandBatchingDims {
		alignPair(&ol, int(dn.OperandBatchingDims[k]), &il, int(dn.StartIndicesBatchingDims[k]))
	}
	// Output dims: offset dims whole, batch dims from the indices.
	outSrc := func(il *layout) *layout {
		src := make([]int, rt.Rank())
		k := 0
		for d := range src {
			if slices.Contains(dn.OffsetDims, int64(d)) {
				src[d] = -1
				continue
			}
			src[d] = ibd[k]
			k++
		}
		return il.project(src)
	}
	out := outSrc(il)
	if _, ok := out.sharding(); !ok {
		// Non-batching index cuts collide with the batching ones.
		il = keepOnly(il, ints(dn.StartIndicesBatchingDims))
		out = outSrc(il)
		if _, ok := out.sharding(); !ok {
			p.fallback(op)
			return
		}
	}
	ov := p.get(operand, ol, true)
	iv := p.get(indices, il, true)
	x := p.emit(op.Name, []*hlo.Value{ov, iv}, op.Attrs, nil, localType(rt, out))[0]
	p.set(op.Results[0], x, out)
}

// ruleScatter: inputs may stay cut along their batching dimensions, with
// the indices' batching dimensions and the matching update dimensions cut
// alike; everything else is whole.
func ruleScatter(p *pass, op *hlo.Op) {
	dn, ok := op.Attr("scatter_dimension_numbers").(*hlo.ScatterDimsAttr)
	if !ok || len(op.Operands)%2 != 1 {
		p.fallback(op)
		return
	}
	n := (len(op.Operands) - 1) / 2
	inputs, indices, updates := op.Operands[:n], op.Operands[n], op.Operands[n+1:]
	it := indices.TensorType()
	ut := updates[0].TensorType()
	ol := keepOnly(p.materialize(inputs[0]).lay, ints(dn.InputBatchingDims))
	il := keepOnly(p.materialize(indices).lay, ints(dn.ScatterIndicesBatchingDims))
	for k := range dn.InputBatchingDims {
		alignPair(&ol, int(dn.InputBatchingDims[k]), &il, int(dn.ScatterIndicesBatchingDims[k]))
	}
	if _, ok := ol.sharding(); !ok {
		// The indices cut batching dims along the same devices: no layout
		// of the result matches.
		p.fallback(op)
		return
	}
	// Update dims: the scatter dims follow the indices' batch dims.
	ibd := indexBatchDims(it.Rank(), dn.IndexVectorDim)
	src := make([]int, ut.Rank())
	k := 0
	for d := range src {
		if slices.Contains(dn.UpdateWindowDims, int64(d)) {
			src[d] = -1
			continue
		}
		src[d] = ibd[k]
		k++
	}
	ul := il.project(src)
	ins := make([]*hlo.Value, 0, len(op.Operands))
	for _, v := range inputs {
		ins = append(ins, p.get(v, ol, true))
	}
	ins = append(ins, p.get(indices, il, true))
	for _, v := range updates {
		ins = append(ins, p.get(v, ul, true))
	}
	types := make([]hlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = localType(r.TensorType(), ol)
	}
	outs := p.emit(op.Name, ins, op.Attrs, p.cloneRegions(op, nil), types...)
	for i, r := range op.Results {
		p.set(r, outs[i], ol)
	}
}

// ruleConvolution: a convolution cut along the input batch dimension only,
// with a whole kernel and no batch grouping, is local; its output is cut
// along the output batch dimension. Anything else runs on whole tensors.
func ruleConvolution(p *pass, op *hlo.Op) {
	dn, ok := op.Attr("dimension_numbers").(*hlo.ConvDimsAttr)
	if bg, has := hlo.AttrInt(op.Attr("batch_group_count")); !ok || (has && bg != 1) {
		p.fallback(op)
		return
	}
	lhs, rhs := op.Operands[0], op.Operands[1]
	lt := lhs.TensorType()
	ll := keepOnly(p.materialize(lhs).lay, []int{int(dn.InputBatchDim)})
	if ll.tiles[dn.InputBatchDim] == 1 {
		p.fallback(op)
		return
	}
	rt := op.Results[0].TensorType()
	src := make([]int, rt.Rank())
	for d := range src {
		src[d] = -1
	}
	src[dn.OutputBatchDim] = int(dn.InputBatchDim)
	out := ll.project(src)
	lv := p.get(lhs, ll, true)
	rv := p.get(rhs, replicatedLayout(rhs.TensorType().Rank(), p.n), true)
	x := p.emit(op.Name, []*hlo.Value{lv, rv}, op.Attrs, nil, localType(rt, out))[0]
	p.set(op.Results[0], x, out)
	_ = lt
}
