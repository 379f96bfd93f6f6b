package movement

import (
	"fmt"
	"slices"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// scatterPlan is a scatter prepared for one input, indices and updates
// shape. Per update scatter point it computes the window's start in the
// input, clips the window to the input's bounds (the spec skips exactly the
// out-of-bounds update elements, which form the complement of a sub-box),
// and applies the update computation over that sub-box.
type scatterPlan struct {
	inDims []int64
	inS    []int
	// Scatter (batch) dims of updates: sizes, updates strides, index strides.
	sSize, sUpdS, sIdxS []int
	nPoints             int
	ivS                 int
	mapDim              []int // scatter_dims_to_operand_dims
	batchIn             []int // input_batching_dims
	batchPos            []int // their scatter-dim position
	// Window: per input dim, its size and the updates stride of the
	// matching update window dim (0 for inserted and batching dims).
	wSize []int64
	wUpdS []int
	// Row-major walk of the updates: dims, and per update dim its scatter
	// position (>= 0) or its input dim d as -(d+1).
	updDims  []int64
	updRole  []int
	trailing bool // the window dims are the updates' last dims
}

func newScatterPlan(dn *hlo.ScatterDimsAttr, inDims, idxDims, updDims []int64) (*scatterPlan, error) {
	rin, ri, ru := len(inDims), len(idxDims), len(updDims)
	ivd := int(dn.IndexVectorDim)
	if ivd < 0 || ivd > ri {
		return nil, fmt.Errorf("index_vector_dim %d out of range for scatter_indices of rank %d", ivd, ri)
	}
	nIdx := int64(1)
	if ivd < ri {
		nIdx = idxDims[ivd]
	}
	if int64(len(dn.ScatterDimsToOperandDims)) != nIdx {
		return nil, fmt.Errorf("scatter_dims_to_operand_dims %v has %d entries, index vectors have %d", dn.ScatterDimsToOperandDims, len(dn.ScatterDimsToOperandDims), nIdx)
	}
	if !uniqueIn(dn.ScatterDimsToOperandDims, rin) {
		return nil, fmt.Errorf("scatter_dims_to_operand_dims %v must be unique and in [0, %d)", dn.ScatterDimsToOperandDims, rin)
	}
	dropped := map[int64]bool{}
	for _, d := range dn.InsertedWindowDims {
		if d < 0 || int(d) >= rin || dropped[d] {
			return nil, fmt.Errorf("inserted_window_dims %v must be unique and in [0, %d)", dn.InsertedWindowDims, rin)
		}
		dropped[d] = true
	}
	for _, d := range dn.InputBatchingDims {
		if d < 0 || int(d) >= rin || dropped[d] {
			return nil, fmt.Errorf("input_batching_dims %v must be unique, in [0, %d) and apart from inserted_window_dims", dn.InputBatchingDims, rin)
		}
		dropped[d] = true
	}
	if len(dn.UpdateWindowDims) != rin-len(dropped) {
		return nil, fmt.Errorf("update_window_dims %v has %d entries, want %d (input rank minus inserted and batching dims)", dn.UpdateWindowDims, len(dn.UpdateWindowDims), rin-len(dropped))
	}
	isWin := make([]bool, ru)
	for i, d := range dn.UpdateWindowDims {
		if d < 0 || int(d) >= ru || isWin[d] || (i > 0 && d <= dn.UpdateWindowDims[i-1]) {
			return nil, fmt.Errorf("update_window_dims %v must be sorted, unique and in [0, %d)", dn.UpdateWindowDims, ru)
		}
		isWin[d] = true
	}
	nScatter := ri
	if ivd < ri {
		nScatter--
	}
	if ru-len(dn.UpdateWindowDims) != nScatter {
		return nil, fmt.Errorf("updates of rank %d with update_window_dims %v have %d scatter dims, scatter_indices have %d", ru, dn.UpdateWindowDims, ru-len(dn.UpdateWindowDims), nScatter)
	}
	if len(dn.ScatterIndicesBatchingDims) != len(dn.InputBatchingDims) {
		return nil, fmt.Errorf("scatter_indices_batching_dims %v and input_batching_dims %v differ in length", dn.ScatterIndicesBatchingDims, dn.InputBatchingDims)
	}
	p := &scatterPlan{inDims: inDims, inS: stridesInt(inDims), nPoints: 1}
	idxS, updS := stridesInt(idxDims), stridesInt(updDims)
	if ivd < ri {
		p.ivS = idxS[ivd]
	}
	k := 0
	for d := 0; d < ri; d++ {
		if d == ivd {
			continue
		}
		for isWin[k] {
			k++
		}
		if updDims[k] != idxDims[d] {
			return nil, fmt.Errorf("updates dimension %d (size %d) and scatter_indices dimension %d (size %d) differ", k, updDims[k], d, idxDims[d])
		}
		p.sSize = append(p.sSize, int(idxDims[d]))
		p.sUpdS = append(p.sUpdS, updS[k])
		p.sIdxS = append(p.sIdxS, idxS[d])
		p.nPoints *= int(idxDims[d])
		k++
	}
	for _, d := range dn.ScatterDimsToOperandDims {
		p.mapDim = append(p.mapDim, int(d))
	}
	for i, d := range dn.InputBatchingDims {
		sd := dn.ScatterIndicesBatchingDims[i]
		if sd < 0 || int(sd) >= ri || int(sd) == ivd {
			return nil, fmt.Errorf("scatter_indices_batching_dims %v must be in [0, %d) and not index_vector_dim %d", dn.ScatterIndicesBatchingDims, ri, ivd)
		}
		pos := int(sd)
		if pos > ivd {
			pos--
		}
		p.batchIn = append(p.batchIn, int(d))
		p.batchPos = append(p.batchPos, pos)
	}
	p.wSize = make([]int64, rin)
	p.wUpdS = make([]int, rin)
	w := 0
	for d := 0; d < rin; d++ {
		if dropped[int64(d)] {
			p.wSize[d] = 1
			continue
		}
		ud := dn.UpdateWindowDims[w]
		w++
		if updDims[ud] > inDims[d] {
			return nil, fmt.Errorf("update window dimension %d (size %d) exceeds input dimension %d (size %d)", ud, updDims[ud], d, inDims[d])
		}
		p.wSize[d] = updDims[ud]
		p.wUpdS[d] = updS[ud]
	}
	p.updDims = updDims
	p.updRole = make([]int, ru)
	for u := range p.updRole {
		p.updRole[u] = -1 << 30
	}
	k = 0
	for u := 0; u < ru; u++ {
		if !isWin[u] {
			p.updRole[u] = k
			k++
		}
	}
	w = 0
	for d := 0; d < rin; d++ {
		if !dropped[int64(d)] {
			p.updRole[dn.UpdateWindowDims[w]] = -(d + 1)
			w++
		}
	}
	p.trailing = true
	for i, d := range dn.UpdateWindowDims {
		if int(d) != ru-len(dn.UpdateWindowDims)+i {
			p.trailing = false
		}
	}
	return p, nil
}

// startOf returns the full start index (start_index plus batching index)
// of scatter point t into start.
func (p *scatterPlan) startOf(idx *hlo.Literal, t int, start []int64) {
	clear(start)
	iOff := 0
	for k := len(p.sSize) - 1; k >= 0; k-- {
		dig := t % p.sSize[k]
		t /= p.sSize[k]
		iOff += dig * p.sIdxS[k]
		for j, d := range p.batchIn {
			if p.batchPos[j] == k {
				start[d] += int64(dig)
			}
		}
	}
	for j, d := range p.mapDim {
		start[d] += clampI(readIndex(idx, iOff+j*p.ivS), -1<<40, 1<<40)
	}
}

// runRowMajor calls fn(result offset, update offset) for every in-bounds
// update element in row-major order of the updates, the order of the
// reference interpreter (it matters for non-commutative bodies and
// colliding windows).
func (p *scatterPlan) runRowMajor(idx *hlo.Literal, fn func(dOff, uOff int) error) error {
	rin := len(p.inDims)
	starts := make([]int64, p.nPoints*rin)
	for t := 0; t < p.nPoints; t++ {
		p.startOf(idx, t, starts[t*rin:(t+1)*rin])
	}
	ru := len(p.updDims)
	dig := make([]int64, ru)
	sStride := make([]int, len(p.sSize)) // flattened scatter point stride
	acc := 1
	for k := len(p.sSize) - 1; k >= 0; k-- {
		sStride[k] = acc
		acc *= p.sSize[k]
	}
	total := int(hlo.NumElements(p.updDims))
	w := make([]int64, rin)
	for u := 0; u < total; u++ {
		t := 0
		clear(w)
		for k, role := range p.updRole {
			if role >= 0 {
				t += int(dig[k]) * sStride[role]
			} else {
				w[-role-1] = dig[k]
			}
		}
		dOff, ok := 0, true
		for d := 0; d < rin; d++ {
			v := starts[t*rin+d] + w[d]
			if v < 0 || v >= p.inDims[d] {
				ok = false
				break
			}
			dOff += int(v) * p.inS[d]
		}
		if ok {
			if err := fn(dOff, u); err != nil {
				return err
			}
		}
		for k := ru - 1; k >= 0; k-- {
			dig[k]++
			if dig[k] < p.updDims[k] {
				break
			}
			dig[k] = 0
		}
	}
	return nil
}

// scatterApply applies the update computation to one clipped window:
// dims (per input dim), destination offset and strides into the results,
// source offset and strides into the updates.
type scatterApply func(dims []int64, dOff int, dS []int, sOff int, sS []int) error

var boxDims = sync.Pool{New: func() any { return new([maxStackRank]int64) }}

// run walks every update scatter point and hands its clipped window to
// apply.
func (p *scatterPlan) run(idx *hlo.Literal, apply scatterApply) error {
	rin := len(p.inDims)
	ns := len(p.sSize)
	var digBuf [maxStackRank]int
	var dig []int
	var bdims []int64
	if ns <= maxStackRank && rin <= maxStackRank {
		// The window dims reach apply (a function value): pooled, not on
		// the stack, from where they would escape.
		boxBuf := boxDims.Get().(*[maxStackRank]int64)
		defer boxDims.Put(boxBuf)
		dig, bdims = digBuf[:ns], boxBuf[:rin]
	} else {
		dig, bdims = make([]int, ns), make([]int64, rin)
	}
	var startBuf [maxStackRank]int64
	var start []int64
	if rin <= maxStackRank {
		start = startBuf[:rin]
	} else {
		start = make([]int64, rin)
	}
	for t := 0; t < p.nPoints; t++ {
		iOff, uOff := 0, 0
		for k := 0; k < ns; k++ {
			iOff += dig[k] * p.sIdxS[k]
			uOff += dig[k] * p.sUpdS[k]
		}
		clear(start)
		for j, d := range p.mapDim {
			// Clamp far out-of-range indices so that offsets cannot overflow;
			// they stay out of bounds.
			start[d] = clampI(readIndex(idx, iOff+j*p.ivS), -1<<40, 1<<40)
		}
		for j, d := range p.batchIn {
			start[d] += int64(dig[p.batchPos[j]])
		}
		dOff, sOff := 0, uOff
		skip := false
		for d := 0; d < rin; d++ {
			lo := max(0, -start[d])
			hi := min(p.wSize[d], p.inDims[d]-start[d])
			if hi <= lo {
				skip = true
				break
			}
			bdims[d] = hi - lo
			dOff += int(start[d]+lo) * p.inS[d]
			sOff += int(lo) * p.wUpdS[d]
		}
		if !skip {
			if err := apply(bdims, dOff, p.inS, sOff, p.wUpdS); err != nil {
				return err
			}
		}
		for k := ns - 1; k >= 0; k-- {
			dig[k]++
			if dig[k] < p.sSize[k] {
				break
			}
			dig[k] = 0
		}
	}
	return nil
}

// forEachBoxRow calls fn for each innermost row of the box dims with the
// destination and source offsets of its first element.
func forEachBoxRow(dims []int64, dOff int, dS []int, sOff int, sS []int, fn func(dOff, sOff, n, ds, ss int) error) error {
	r := len(dims)
	if r == 0 {
		return fn(dOff, sOff, 1, 1, 1)
	}
	var idxBuf [maxStackRank]int64
	var idx []int64
	if r <= maxStackRank {
		idx = idxBuf[:r]
	} else {
		idx = make([]int64, r)
	}
	n, ds, ss := int(dims[r-1]), dS[r-1], sS[r-1]
	for {
		if err := fn(dOff, sOff, n, ds, ss); err != nil {
			return err
		}
		k := r - 2
		for ; k >= 0; k-- {
			idx[k]++
			dOff += dS[k]
			sOff += sS[k]
			if idx[k] < dims[k] {
				break
			}
			dOff -= int(idx[k]) * dS[k]
			sOff -= int(idx[k]) * sS[k]
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

type scatterOp struct {
	op     *hlo.Op
	n      int
	dn     *hlo.ScatterDimsAttr
	body   *region
	inDT   []hlo.DType
	updDT  []hlo.DType
	outDT  []hlo.DType
	static *scatterPlan
	acc    accFn
	// orderFree says the typed body gives the same result in any update
	// order (exact, commutative and associative: integer add/multiply,
	// max/min, bitwise ops).
	orderFree bool
}

func compileScatter(c *kernel.OpCtx) (kernel.RunFn, error) {
	n := len(c.Out)
	if n == 0 || len(c.In) != 2*n+1 {
		return nil, c.Errorf("has %d operands and %d results, want N inputs, scatter_indices, N updates and N results", len(c.In), len(c.Out))
	}
	dn, ok := c.Op.Attr("scatter_dimension_numbers").(*hlo.ScatterDimsAttr)
	if !ok {
		return nil, c.Errorf("missing or malformed attribute scatter_dimension_numbers (want #stablehlo.scatter<...>)")
	}
	so := &scatterOp{op: c.Op, n: n, dn: dn}
	idxT, err := tensorIn(c, n)
	if err != nil {
		return nil, err
	}
	if !idxT.DType.IsInt() {
		return nil, c.Errorf("scatter_indices %s must have an integer element type", idxT.ShapeString())
	}
	var ins, upds []*hlo.TensorType
	for i := 0; i < n; i++ {
		it, err := tensorIn(c, i)
		if err != nil {
			return nil, err
		}
		ut, err := tensorIn(c, n+1+i)
		if err != nil {
			return nil, err
		}
		ot, err := tensorOut(c, i)
		if err != nil {
			return nil, err
		}
		if i > 0 && (!sameShape(it, ins[0]) || !sameShape(ut, upds[0])) {
			return nil, c.Errorf("inputs %s, %s or updates %s, %s differ in shape", ins[0].ShapeString(), it.ShapeString(), upds[0].ShapeString(), ut.ShapeString())
		}
		if !sameShape(it, ot) {
			return nil, c.Errorf("result %d %s and input %s differ in shape", i, ot.ShapeString(), it.ShapeString())
		}
		ins, upds = append(ins, it), append(upds, ut)
		so.inDT = append(so.inDT, it.DType)
		so.updDT = append(so.updDT, ut.DType)
		so.outDT = append(so.outDT, ot.DType)
	}
	if so.body, err = compileRegion(c, 0, "update_computation", 2*n, n); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		b := so.body
		if b.args[i] != so.outDT[i] || b.res[i] != so.outDT[i] || !promotable(so.inDT[i], so.outDT[i]) || !promotable(so.updDT[i], b.args[n+i]) {
			return nil, c.Errorf("update_computation types %v -> %v do not match input %s, updates %s and result %s",
				b.args, b.res, ins[i].ShapeString(), upds[i].ShapeString(), shapeOf(c.Out[i]))
		}
	}
	if allStatic(ins[0], idxT, upds[0]) {
		if so.static, err = newScatterPlan(dn, ins[0].Dims, idxT.Dims, upds[0].Dims); err != nil {
			return nil, c.Errorf("%v (input %s, scatter_indices %s, updates %s)", err, ins[0].ShapeString(), idxT.ShapeString(), upds[0].ShapeString())
		}
	}
	if n == 1 && so.inDT[0] == so.outDT[0] && so.updDT[0] == so.outDT[0] {
		so.acc, _, _ = binKernels(so.body.kind, so.outDT[0])
		k, dt := so.body.kind, so.outDT[0]
		so.orderFree = so.acc != nil && (k == binMax || k == binMin || k == binAnd || k == binOr || k == binXor ||
			k == binFirst || ((k == binAdd || k == binMul) && (dt.IsInt() || dt.IsBool())))
	}
	return so.run, nil
}

func (so *scatterOp) run(x *kernel.Ctx, args, results []kernel.Value) error {
	op, n := so.op, so.n
	ins := make([]*hlo.Literal, 2*n+1)
	if err := lits(op, args, ins); err != nil {
		return err
	}
	idx := ins[n]
	upds := ins[n+1:]
	p := so.static
	if p == nil {
		var err error
		if p, err = newScatterPlan(so.dn, ins[0].Dims, idx.Dims, upds[0].Dims); err != nil {
			return runErr(op, "%v (input %s, scatter_indices %s, updates %s)", err, ins[0].ShapeString(), idx.ShapeString(), upds[0].ShapeString())
		}
	}
	outs := make([]*hlo.Literal, n)
	for i := 0; i < n; i++ {
		if !slices.Equal(ins[i].Dims, ins[0].Dims) || !slices.Equal(upds[i].Dims, upds[0].Dims) {
			return runErr(op, "inputs %s, %s or updates %s, %s differ in shape", ins[0].ShapeString(), ins[i].ShapeString(), upds[0].ShapeString(), upds[i].ShapeString())
		}
		outs[i] = newOut(x, so.outDT[i], ins[i].Dims)
		if so.outDT[i] == so.inDT[i] {
			copy(outs[i].Data, ins[i].Data)
		} else {
			es, is := so.outDT[i].Size(), so.inDT[i].Size()
			for e := 0; e < outs[i].NumElements(); e++ {
				convertElem(so.outDT[i], outs[i].Data[e*es:e*es+es], so.inDT[i], ins[i].Data[e*is:e*is+is])
			}
		}
		results[i] = outs[i]
	}
	if !p.trailing && !so.orderFree {
		// The update order is observable: follow the reference's.
		if so.acc != nil {
			out, upd := outs[0].Data, upds[0].Data
			return p.runRowMajor(idx, func(dOff, uOff int) error {
				so.acc(out, dOff, 0, upd, uOff, 0, 1)
				return nil
			})
		}
		c := so.body.newCaller(x)
		return p.runRowMajor(idx, func(dOff, uOff int) error {
			return so.callAt(c, outs, upds, dOff, uOff)
		})
	}
	if so.acc != nil {
		out, upd := outs[0].Data, upds[0].Data
		return p.run(idx, func(dims []int64, dOff int, dS []int, sOff int, sS []int) error {
			return forEachBoxRow(dims, dOff, dS, sOff, sS, func(dOff, sOff, m, ds, ss int) error {
				so.acc(out, dOff, ds, upd, sOff, ss, m)
				return nil
			})
		})
	}
	c := so.body.newCaller(x)
	return p.run(idx, func(dims []int64, dOff int, dS []int, sOff int, sS []int) error {
		return forEachBoxRow(dims, dOff, dS, sOff, sS, func(dOff, sOff, m, ds, ss int) error {
			for j := 0; j < m; j++ {
				if err := so.callAt(c, outs, upds, dOff, sOff); err != nil {
					return err
				}
				dOff += ds
				sOff += ss
			}
			return nil
		})
	})
}

// callAt applies the update computation to result element dOff with update
// element uOff.
func (so *scatterOp) callAt(c *caller, outs, upds []*hlo.Literal, dOff, uOff int) error {
	n := so.n
	for i := 0; i < n; i++ {
		c.set(i, outs[i].Data, dOff, so.outDT[i])
		c.set(n+i, upds[i].Data, uOff, so.updDT[i])
	}
	if err := c.call(so.op); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		es := so.outDT[i].Size()
		copy(outs[i].Data[dOff*es:dOff*es+es], c.res(i))
	}
	return nil
}
