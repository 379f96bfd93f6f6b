package gspmd

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
)

func attrInts(p *pass, op *hlo.Op, name string) []int64 {
	xs, ok := hlo.AttrInts(op.Attr(name))
	if !ok && op.Attr(name) != nil {
		p.fail("attribute %s is %s", name, hlo.AttrString(op.Attr(name)))
	}
	return xs
}

// ruleBroadcast: operand dimension i keeps its cut on result dimension
// bdims[i] (a size-1 dimension that is expanded must be whole); new
// dimensions are whole. A broadcast of a replicated operand is generated
// in whatever layout its users want.
func ruleBroadcast(p *pass, op *hlo.Op) {
	x := op.Operands[0]
	xt := x.TensorType()
	rt := op.Results[0].TensorType()
	bd := attrInts(p, op, "broadcast_dimensions")
	src := make([]int, rt.Rank()) // result dim → operand dim, -1 new
	for j := range src {
		src[j] = -1
	}
	for i, j := range bd {
		src[j] = i
	}
	emit := func(xl *layout, rl *layout) *hlo.Value {
		xv := p.get(x, xl, true)
		return p.emit(op.Name, []*hlo.Value{xv}, op.Attrs, nil, localType(rt, rl))[0]
	}
	pv := p.val(x)
	if pv.lay.isReplicated() {
		// The operand dims that map onto full result dims follow the
		// wanted layout (local slices of the replicated operand); expanded
		// size-1 dims stay whole.
		p.setGen(op.Results[0], replicatedLayout(rt.Rank(), p.n), func(rl *layout, _ bool) *hlo.Value {
			opSrc := make([]int, xt.Rank())
			for i, j := range bd {
				opSrc[i] = int(j)
				if xt.Dims[i] != rt.Dims[j] {
					opSrc[i] = -1
				}
			}
			return emit(rl.project(opSrc), rl)
		})
		return
	}
	xl := pv.lay
	var whole []int
	for i, j := range bd {
		if xl.tiles[i] > 1 && xt.Dims[i] != rt.Dims[j] {
			whole = append(whole, i)
		}
	}
	if len(whole) > 0 {
		xl = xl.untile(whole...)
	}
	rl := xl.project(src)
	p.set(op.Results[0], emit(xl, rl), rl)
}

// ruleTranspose: the cuts follow the permutation.
func ruleTranspose(p *pass, op *hlo.Op) {
	x := op.Operands[0]
	perm := attrInts(p, op, "permutation")
	src := make([]int, len(perm))
	for j, i := range perm {
		src[j] = int(i)
	}
	pv := p.val(x)
	rt := op.Results[0].TensorType()
	if pv.local == nil {
		inv := make([]int, len(perm))
		for j, i := range perm {
			inv[i] = j
		}
		p.setGen(op.Results[0], pv.lay.project(src), func(rl *layout, count bool) *hlo.Value {
			xv := p.get(x, rl.project(inv), count)
			return p.emit(op.Name, []*hlo.Value{xv}, op.Attrs, nil, localType(rt, rl))[0]
		})
		return
	}
	rl := pv.lay.project(src)
	out := p.emit(op.Name, []*hlo.Value{pv.local}, op.Attrs, nil, localType(rt, rl))[0]
	p.set(op.Results[0], out, rl)
}

// reshapeGroups pairs runs of operand dims with runs of result dims of
// equal element count.
func reshapeGroups(in, out []int64) (groups [][2][]int, ok bool) {
	i, j := 0, 0
	for i < len(in) || j < len(out) {
		var I, J []int
		pi, pj := int64(1), int64(1)
		if i < len(in) {
			pi *= in[i]
			I = append(I, i)
			i++
		}
		if j < len(out) {
			pj *= out[j]
			J = append(J, j)
			j++
		}
		for pi != pj {
			if pi < pj {
				if i >= len(in) {
					return nil, false
				}
				pi *= in[i]
				I = append(I, i)
				i++
			} else {
				if j >= len(out) {
					return nil, false
				}
				pj *= out[j]
				J = append(J, j)
				j++
			}
		}
		groups = append(groups, [2][]int{I, J})
	}
	return groups, true
}

// ruleReshape: in each run of dimensions that maps to a run of result
// dimensions, a cut on the run's major (first non-1) dimension carries to
// the result's major dimension when its tile count divides both sizes (or
// the run is one dimension of the same size); any other cut is gathered
// first (a reshard).
func ruleReshape(p *pass, op *hlo.Op) {
	x := op.Operands[0]
	xt := x.TensorType()
	rt := op.Results[0].TensorType()
	pv := p.materialize(x)
	groups, ok := reshapeGroups(xt.Dims, rt.Dims)
	if !ok || slices.Contains(xt.Dims, 0) {
		p.fallback(op)
		return
	}
	xl := pv.lay
	var whole []int
	src := make([]int, rt.Rank())
	for j := range src {
		src[j] = -1
	}
	for _, g := range groups {
		I, J := g[0], g[1]
		major := func(ds []int, dims []int64) int {
			for _, d := range ds {
				if dims[d] > 1 {
					return d
				}
			}
			return -1
		}
		mi, mj := major(I, xt.Dims), major(J, rt.Dims)
		for _, i := range I {
			if xl.tiles[i] == 1 {
				continue
			}
			t := xl.tiles[i]
			keep := false
			if i == mi && mj >= 0 {
				same := len(I) == 1 && len(J) == 1 && xt.Dims[i] == rt.Dims[mj]
				divides := xt.Dims[i]%t == 0 && rt.Dims[mj]%t == 0
				keep = same || divides
			}
			if keep {
				src[mj] = i
			} else {
				whole = append(whole, i)
			}
		}
	}
	if len(whole) > 0 {
		xl = xl.untile(whole...)
	}
	xv := p.get(x, xl, true)
	rl := xl.project(src)
	out := p.emit(op.Name, []*hlo.Value{xv}, op.Attrs, nil, localType(rt, rl))[0]
	p.set(op.Results[0], out, rl)
}

// wholeAlong runs op with the dimensions in touched of operand 0 (and of
// every operand of the same rank) whole, keeping the other dimensions'
// cuts: the op must act on those dimensions independently per index of
// the others (slice, pad, reverse, concatenate, sort). The result takes
// the operand's layout; ops whose other attributes refer to absolute
// positions along kept dims are not handled here.
func wholeAlong(p *pass, op *hlo.Op, touched []int) {
	rt := op.Results[0].TensorType()
	x := op.Operands[0]
	pv := p.materialize(x)
	l := pv.lay
	if len(touched) > 0 {
		l = l.untile(touched...)
	}
	ins := make([]*hlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		vt := v.TensorType()
		if vt.Rank() == rt.Rank() {
			ins[i] = p.get(v, l, true)
		} else {
			ins[i] = p.get(v, replicatedLayout(vt.Rank(), p.n), true)
		}
	}
	types := make([]hlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = localType(r.TensorType(), l)
	}
	outs := p.emit(op.Name, ins, op.Attrs, p.cloneRegions(op, nil), types...)
	for i, r := range op.Results {
		p.set(r, outs[i], l)
	}
}

// changedDims lists the dimensions where a and b differ.
func changedDims(a, b []int64) []int {
	var out []int
	for d := range a {
		if a[d] != b[d] {
			out = append(out, d)
		}
	}
	return out
}

// ruleSlice: dimensions the slice keeps whole (start 0, full limit, stride
// 1) keep their cut; sliced ones are gathered first.
func ruleSlice(p *pass, op *hlo.Op) {
	xt := op.Operands[0].TensorType()
	start := attrInts(p, op, "start_indices")
	limit := attrInts(p, op, "limit_indices")
	strides := attrInts(p, op, "strides")
	var touched []int
	for d := range xt.Dims {
		st := int64(1)
		if d < len(strides) {
			st = strides[d]
		}
		if start[d] != 0 || limit[d] != xt.Dims[d] || st != 1 {
			touched = append(touched, d)
		}
	}
	l := p.materialize(op.Operands[0]).lay.untile(touched...)
	// Local limits: whole along touched dims, the shard along the others.
	local := l.shardDims(xt.Dims)
	lim := slicesClone(limit)
	for d := range lim {
		if !slices.Contains(touched, d) {
			lim[d] = local[d]
		}
	}
	xv := p.get(op.Operands[0], l, true)
	rt := op.Results[0].TensorType()
	out := p.f.Slice(xv, start, lim, strides)
	p.set(op.Results[0], out, l)
	_ = rt
}

// rulePad: dimensions without padding keep their cut.
func rulePad(p *pass, op *hlo.Op) {
	lo := attrInts(p, op, "edge_padding_low")
	hi := attrInts(p, op, "edge_padding_high")
	in := attrInts(p, op, "interior_padding")
	var touched []int
	for d := range lo {
		if lo[d] != 0 || hi[d] != 0 || (d < len(in) && in[d] != 0) {
			touched = append(touched, d)
		}
	}
	wholeAlong(p, op, touched)
}

// ruleReverse: the reversed dimensions are gathered.
func ruleReverse(p *pass, op *hlo.Op) {
	var touched []int
	for _, d := range attrInts(p, op, "dimensions") {
		touched = append(touched, int(d))
	}
	wholeAlong(p, op, touched)
}

// ruleConcat: the concatenated dimension is gathered; the others keep the
// first operand's cut.
func ruleConcat(p *pass, op *hlo.Op) {
	d, _ := hlo.AttrInt(op.Attr("dimension"))
	wholeAlong(p, op, []int{int(d)})
}

// ruleSort: the sorted dimension is gathered.
func ruleSort(p *pass, op *hlo.Op) {
	d, ok := hlo.AttrInt(op.Attr("dimension"))
	if !ok {
		d = -1
	}
	rank := op.Operands[0].TensorType().Rank()
	if d < 0 {
		d += int64(rank)
	}
	// Every operand shares operand 0's shape.
	wholeAlong(p, op, []int{int(d)})
}

// ruleReduceWindow: dimensions with a window, stride, dilation or padding
// are gathered; the others keep their cut.
func ruleReduceWindow(p *pass, op *hlo.Op) {
	x := op.Operands[0].TensorType()
	n := len(op.Operands) / 2
	touched := windowDims(p, op, x.Rank())
	pv := p.materialize(op.Operands[0])
	l := pv.lay.untile(touched...)
	ins := make([]*hlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		if i < n {
			ins[i] = p.get(v, l, true)
		} else {
			ins[i] = p.get(v, replicatedLayout(0, p.n), true)
		}
	}
	types := make([]hlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = localType(r.TensorType(), l)
	}
	outs := p.emit(op.Name, ins, op.Attrs, p.cloneRegions(op, nil), types...)
	for i, r := range op.Results {
		p.set(r, outs[i], l)
	}
}

// windowDims lists the dimensions a windowed op mixes.
func windowDims(p *pass, op *hlo.Op, rank int) []int {
	dims := attrInts(p, op, "window_dimensions")
	strides := attrInts(p, op, "window_strides")
	bd := attrInts(p, op, "base_dilations")
	wd := attrInts(p, op, "window_dilations")
	var pad []int64
	if a := op.Attr("padding"); a != nil {
		if d, ok := a.(*hlo.DenseElementsAttr); ok {
			for i := 0; i < d.Value.NumElements(); i++ {
				pad = append(pad, d.Value.Int(i))
			}
		} else {
			// Unknown form: treat every dimension as mixed.
			return allDims(rank)
		}
	}
	var touched []int
	for d := 0; d < rank; d++ {
		mixed := d < len(dims) && dims[d] != 1
		mixed = mixed || (d < len(strides) && strides[d] != 1)
		mixed = mixed || (d < len(bd) && bd[d] != 1)
		mixed = mixed || (d < len(wd) && wd[d] != 1)
		mixed = mixed || (2*d+1 < len(pad) && (pad[2*d] != 0 || pad[2*d+1] != 0))
		if mixed {
			touched = append(touched, d)
		}
	}
	return touched
}

// ruleSelectAndScatter: like reduce_window, on operand and source.
func ruleSelectAndScatter(p *pass, op *hlo.Op) {
	x := op.Operands[0].TensorType()
	touched := windowDims(p, op, x.Rank())
	pv := p.materialize(op.Operands[0])
	l := pv.lay.untile(touched...)
	src := op.Operands[1].TensorType()
	if !slices.Equal(src.Dims, x.Dims) {
		// Strided windows: source and operand differ in shape.
		l = replicatedLayout(x.Rank(), p.n)
	}
	ins := []*hlo.Value{p.get(op.Operands[0], l, true), p.get(op.Operands[1], l, true), p.get(op.Operands[2], replicatedLayout(0, p.n), true)}
	outs := p.emit(op.Name, ins, op.Attrs, p.cloneRegions(op, nil), localType(op.Results[0].TensorType(), l))
	p.set(op.Results[0], outs[0], l)
}
