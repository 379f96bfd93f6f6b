package gspmd

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
)

// ruleDot partitions dot_general (GSPMD's rules):
//   - batch dimensions cut alike in both operands stay cut (local dots);
//   - a free dimension cut in one operand, with the other operand whole on
//     the same devices' axis, gives a cut result dimension (local dots);
//   - contracting dimensions cut alike in both operands give partial sums:
//     padding is masked with zeros, and the local dots are summed over the
//     devices holding the other parts where the result is used: by a
//     reduce-scatter when the user wants a free dimension cut across them,
//     else by an all-reduce;
//   - a batch or contracting dimension cut in one operand only is sliced
//     locally from the other (which holds it whole);
//   - cuts that disagree are resharded (the right operand is brought to
//     the left's cut), and free dimensions of both operands cut along the
//     same devices are undone on the right operand (an all-gather), until
//     every output tile is computed by the same number of devices.
func ruleDot(p *pass, op *hlo.Op) {
	dn, ok := op.Attr("dot_dimension_numbers").(*hlo.DotDimsAttr)
	if !ok {
		p.fallback(op)
		return
	}
	lhs, rhs := op.Operands[0], op.Operands[1]
	lt, rt := lhs.TensorType(), rhs.TensorType()
	ll := p.materialize(lhs).lay
	rl := p.materialize(rhs).lay
	lb, rb := ints(dn.LhsBatchingDims), ints(dn.RhsBatchingDims)
	lc, rc := ints(dn.LhsContractingDims), ints(dn.RhsContractingDims)
	lf := freeDims(lt.Rank(), lb, lc)
	rf := freeDims(rt.Rank(), rb, rc)

	// Align the paired dimensions (batch and contracting).
	align := func(li, ri int) {
		switch {
		case ll.dimEqual(li, rl, ri):
		case rl.tiles[ri] == 1:
			rl = rl.setDim(ri, ll, li)
		case ll.tiles[li] == 1:
			ll = ll.setDim(li, rl, ri)
		default:
			rl = rl.setDim(ri, ll, li)
		}
	}
	for k := range lb {
		align(lb[k], rb[k])
	}
	for k := range lc {
		align(lc[k], rc[k])
	}
	// Output coordinates: batch, lhs free, rhs free. Undo free cuts until
	// the output is regular.
	var groups [][]int64
	var out *layout
	for {
		out = dotOutLayout(ll, rl, lb, lf, rf)
		var ok bool
		groups, ok = reduceGroups(out, ll, lc)
		if ok {
			break
		}
		if d := firstCut(rl, rf); d >= 0 {
			rl = rl.untile(d)
			continue
		}
		if d := firstCut(ll, lf); d >= 0 {
			ll = ll.untile(d)
			continue
		}
		// Batch or contracting cuts that cannot be combined: whole tensors.
		ll = replicatedLayout(lt.Rank(), p.n)
		rl = replicatedLayout(rt.Rank(), p.n)
	}
	lv := p.get(lhs, ll, true)
	rv := p.get(rhs, rl, true)
	partial := false
	for _, d := range lc {
		partial = partial || ll.tiles[d] > 1
	}
	if partial {
		lv = p.maskPadding(lv, ll, lt.Dims, lc, func() *hlo.Value { return p.zero(lt.DType) })
		rv = p.maskPadding(rv, rl, rt.Dims, rc, func() *hlo.Value { return p.zero(rt.DType) })
	}
	res := op.Results[0].TensorType()
	x := p.emit(op.Name, []*hlo.Value{lv, rv}, op.Attrs, nil, localType(res, out))[0]
	if !partial {
		p.set(op.Results[0], x, out)
		return
	}
	// Partial sums: summed when a user asks for them, by a reduce-scatter
	// when it wants a dimension cut across each group (the sum lands cut),
	// else by an all-reduce.
	var summed *hlo.Value
	p.setGen(op.Results[0], out, func(l *layout, count bool) *hlo.Value {
		if d, ok := scatterDim(out, groups, l); ok {
			return p.reduceScatter(x, res.Dims, d, groups)
		}
		if summed == nil {
			summed = p.allReduce(x, groups, addBody)
		}
		if l.equal(out) {
			return summed
		}
		return p.reshard(&pval{typ: res, lay: out, local: summed}, l, count)
	})
}

// scatterDim finds the dimension d that l cuts and out does not, with l
// equal to out elsewhere and each group's devices holding l's tiles of d in
// group order: a reduce-scatter along d over the groups makes l.
func scatterDim(out *layout, groups [][]int64, l *layout) (int, bool) {
	d := -1
	for i := range out.tiles {
		if out.dimEqual(i, l, i) {
			continue
		}
		if d >= 0 || out.tiles[i] != 1 {
			return -1, false
		}
		d = i
	}
	if d < 0 || len(groups) == 0 || l.tiles[d] != int64(len(groups[0])) {
		return -1, false
	}
	for _, g := range groups {
		for k, dev := range g {
			if l.coord[dev][d] != int64(k) {
				return -1, false
			}
		}
	}
	return d, true
}

func ints(xs []int64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func freeDims(rank int, batch, contract []int) []int {
	var out []int
	for d := 0; d < rank; d++ {
		if !slices.Contains(batch, d) && !slices.Contains(contract, d) {
			out = append(out, d)
		}
	}
	return out
}

func firstCut(l *layout, dims []int) int {
	for _, d := range dims {
		if l.tiles[d] > 1 {
			return d
		}
	}
	return -1
}

// dotOutLayout is the per-device coordinates of the output of a local dot.
func dotOutLayout(ll, rl *layout, lb, lf, rf []int) *layout {
	rank := len(lb) + len(lf) + len(rf)
	out := &layout{tiles: make([]int64, 0, rank), coord: make([][]int64, ll.n())}
	for _, d := range lb {
		out.tiles = append(out.tiles, ll.tiles[d])
	}
	for _, d := range lf {
		out.tiles = append(out.tiles, ll.tiles[d])
	}
	for _, d := range rf {
		out.tiles = append(out.tiles, rl.tiles[d])
	}
	for q := range out.coord {
		c := make([]int64, 0, rank)
		for _, d := range lb {
			c = append(c, ll.coord[q][d])
		}
		for _, d := range lf {
			c = append(c, ll.coord[q][d])
		}
		for _, d := range rf {
			c = append(c, rl.coord[q][d])
		}
		out.coord[q] = c
	}
	return out
}

// reduceGroups checks that out is regular and that, among the devices of
// each output tile, every tuple of contracting coordinates (lhs dims lc of
// ll) occurs equally often; it returns the all-reduce groups (one device
// per contracting tuple, equal output tile) when contracting dims are cut.
func reduceGroups(out *layout, ll *layout, lc []int) ([][]int64, bool) {
	if _, ok := out.sharding(); !ok {
		return nil, false
	}
	ct := int64(1)
	for _, d := range lc {
		ct *= ll.tiles[d]
	}
	if ct == 1 {
		return nil, true
	}
	// Combined layout: output dims then contracting dims.
	comb := &layout{tiles: slices.Clone(out.tiles), coord: make([][]int64, out.n())}
	for _, d := range lc {
		comb.tiles = append(comb.tiles, ll.tiles[d])
	}
	for q := range comb.coord {
		c := slices.Clone(out.coord[q])
		for _, d := range lc {
			c = append(c, ll.coord[q][d])
		}
		comb.coord[q] = c
	}
	var cdims []int
	for i := range lc {
		cdims = append(cdims, out.rank()+i)
	}
	groups, err := comb.groups(cdims)
	if err != nil {
		return nil, false
	}
	return groups, true
}
