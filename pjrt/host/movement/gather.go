package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// gatherPlan is a gather prepared for one operand, start_indices and
// slice_sizes shape: one box copy per batch point.
type gatherPlan struct {
	outDims []int64
	b       *box // the slice: operand strides -> result offset-dim strides
	nBatch  int
	// Batch dimensions: the start_indices dims other than index_vector_dim,
	// with their sizes, their start_indices strides and the result strides
	// of the matching result dims.
	bSize, bIdxS, bOutS []int
	ivS                 int   // start_indices stride of index_vector_dim (0 when implicit)
	mapDim              []int // start_index_map: operand dim of each index component
	mapHi               []int64
	opS                 []int // operand strides
	batchOp             []int // operand_batching_dims
	batchPos            []int // their batch-dimension position
}

func newGatherPlan(dn *hlo.GatherDimsAttr, opDims, idxDims, sizes []int64, es int) (*gatherPlan, error) {
	ro, ri := len(opDims), len(idxDims)
	ivd := int(dn.IndexVectorDim)
	if ivd < 0 || ivd > ri {
		return nil, fmt.Errorf("index_vector_dim %d out of range for start_indices of rank %d", ivd, ri)
	}
	if len(sizes) != ro {
		return nil, fmt.Errorf("slice_sizes %v has %d entries for an operand of rank %d", sizes, len(sizes), ro)
	}
	nIdx := int64(1)
	if ivd < ri {
		nIdx = idxDims[ivd]
	}
	if int64(len(dn.StartIndexMap)) != nIdx {
		return nil, fmt.Errorf("start_index_map %v has %d entries, index vectors have %d", dn.StartIndexMap, len(dn.StartIndexMap), nIdx)
	}
	dropped := map[int64]bool{}
	for _, d := range dn.CollapsedSliceDims {
		if d < 0 || int(d) >= ro || dropped[d] {
			return nil, fmt.Errorf("collapsed_slice_dims %v must be unique and in [0, %d)", dn.CollapsedSliceDims, ro)
		}
		dropped[d] = true
	}
	for _, d := range dn.OperandBatchingDims {
		if d < 0 || int(d) >= ro || dropped[d] {
			return nil, fmt.Errorf("operand_batching_dims %v must be unique, in [0, %d) and apart from collapsed_slice_dims", dn.OperandBatchingDims, ro)
		}
		dropped[d] = true
	}
	for d, s := range sizes {
		if s < 0 || s > opDims[d] {
			return nil, fmt.Errorf("slice_sizes %v exceeds the operand in dimension %d", sizes, d)
		}
		if dropped[int64(d)] && s > 1 {
			return nil, fmt.Errorf("slice_sizes %v must be 0 or 1 in collapsed or batching dimension %d", sizes, d)
		}
	}
	if !uniqueIn(dn.StartIndexMap, ro) {
		return nil, fmt.Errorf("start_index_map %v must be unique and in [0, %d)", dn.StartIndexMap, ro)
	}
	if len(dn.StartIndicesBatchingDims) != len(dn.OperandBatchingDims) {
		return nil, fmt.Errorf("start_indices_batching_dims %v and operand_batching_dims %v differ in length", dn.StartIndicesBatchingDims, dn.OperandBatchingDims)
	}
	nBatchDims := ri
	if ivd < ri {
		nBatchDims--
	}
	rr := nBatchDims + ro - len(dropped)
	if len(dn.OffsetDims) != ro-len(dropped) {
		return nil, fmt.Errorf("offset_dims %v has %d entries, want %d (operand rank minus collapsed and batching dims)", dn.OffsetDims, len(dn.OffsetDims), ro-len(dropped))
	}
	isOffset := make([]bool, rr)
	for i, d := range dn.OffsetDims {
		if d < 0 || int(d) >= rr || isOffset[d] || (i > 0 && d <= dn.OffsetDims[i-1]) {
			return nil, fmt.Errorf("offset_dims %v must be sorted, unique and in [0, %d)", dn.OffsetDims, rr)
		}
		isOffset[d] = true
	}
	p := &gatherPlan{opS: stridesInt(opDims), ivS: 0, nBatch: 1}
	idxS := stridesInt(idxDims)
	if ivd < ri {
		p.ivS = idxS[ivd]
	}
	// Result shape: batch dims from start_indices, offset dims from slice_sizes.
	out := make([]int64, rr)
	batchIdxDims := []int{}
	for d := 0; d < ri; d++ {
		if d != ivd {
			batchIdxDims = append(batchIdxDims, d)
		}
	}
	var offOpDims []int
	for d := 0; d < ro; d++ {
		if !dropped[int64(d)] {
			offOpDims = append(offOpDims, d)
		}
	}
	bi, oi := 0, 0
	var batchOutDims, offOutDims []int
	for d := 0; d < rr; d++ {
		if isOffset[d] {
			out[d] = sizes[offOpDims[oi]]
			offOutDims = append(offOutDims, d)
			oi++
		} else {
			out[d] = idxDims[batchIdxDims[bi]]
			batchOutDims = append(batchOutDims, d)
			bi++
		}
	}
	p.outDims = out
	outS := stridesInt(out)
	for k, d := range batchIdxDims {
		p.bSize = append(p.bSize, int(idxDims[d]))
		p.bIdxS = append(p.bIdxS, idxS[d])
		p.bOutS = append(p.bOutS, outS[batchOutDims[k]])
		p.nBatch *= int(idxDims[d])
	}
	for _, d := range dn.StartIndexMap {
		p.mapDim = append(p.mapDim, int(d))
		p.mapHi = append(p.mapHi, opDims[d]-sizes[d])
	}
	for i, d := range dn.OperandBatchingDims {
		sd := dn.StartIndicesBatchingDims[i]
		if sd < 0 || int(sd) >= ri || int(sd) == ivd {
			return nil, fmt.Errorf("start_indices_batching_dims %v must be in [0, %d) and not index_vector_dim %d", dn.StartIndicesBatchingDims, ri, ivd)
		}
		pos := int(sd)
		if pos > ivd {
			pos--
		}
		if idxDims[sd] != opDims[d] {
			return nil, fmt.Errorf("batching dimension %d of start_indices (size %d) and %d of the operand (size %d) differ", sd, idxDims[sd], d, opDims[d])
		}
		p.batchOp = append(p.batchOp, int(d))
		p.batchPos = append(p.batchPos, pos)
	}
	bDims := make([]int64, len(offOpDims))
	dS := make([]int, len(offOpDims))
	sS := make([]int, len(offOpDims))
	for k, d := range offOpDims {
		bDims[k] = sizes[d]
		dS[k] = outS[offOutDims[k]]
		sS[k] = p.opS[d]
	}
	p.b = newBox(bDims, dS, sS, es)
	return p, nil
}

// run gathers batch points [lo, hi) into out.
func (p *gatherPlan) run(out, operand, idx *hlo.Literal, lo, hi int) {
	nb := len(p.bSize)
	var digBuf [maxStackRank]int
	var dig []int
	if nb <= maxStackRank {
		dig = digBuf[:nb]
	} else {
		dig = make([]int, nb)
	}
	o := lo
	for k := nb - 1; k >= 0; k-- {
		dig[k] = o % p.bSize[k]
		o /= p.bSize[k]
	}
	for t := lo; t < hi; t++ {
		iOff, dOff := 0, 0
		for k := 0; k < nb; k++ {
			iOff += dig[k] * p.bIdxS[k]
			dOff += dig[k] * p.bOutS[k]
		}
		sOff := 0
		for j, d := range p.mapDim {
			v := clampI(readIndex(idx, iOff+j*p.ivS), 0, p.mapHi[j])
			sOff += int(v) * p.opS[d]
		}
		for j, d := range p.batchOp {
			sOff += dig[p.batchPos[j]] * p.opS[d]
		}
		p.b.runRange(out.Data, operand.Data, dOff, sOff, 0, -1)
		for k := nb - 1; k >= 0; k-- {
			dig[k]++
			if dig[k] < p.bSize[k] {
				break
			}
			dig[k] = 0
		}
	}
}

func (p *gatherPlan) exec(out, operand, idx *hlo.Literal) {
	if p.b.empty || p.nBatch == 0 {
		return
	}
	per := p.b.count() * p.b.es
	if p.nBatch > 1 && p.nBatch*per >= parallelBytes {
		parallelRows(p.nBatch, per+64, func(lo, hi int) { p.run(out, operand, idx, lo, hi) })
		return
	}
	p.run(out, operand, idx, 0, p.nBatch)
}

func gatherDims(c *kernel.OpCtx) (*hlo.GatherDimsAttr, error) {
	a, ok := c.Op.Attr("dimension_numbers").(*hlo.GatherDimsAttr)
	if !ok {
		return nil, c.Errorf("missing or malformed attribute dimension_numbers (want #stablehlo.gather<...>)")
	}
	return a, nil
}

func checkGatherTypes(c *kernel.OpCtx) (opT, idxT, outT *hlo.TensorType, err error) {
	if opT, err = tensorIn(c, 0); err != nil {
		return
	}
	if idxT, err = tensorIn(c, 1); err != nil {
		return
	}
	if outT, err = tensorOut(c, 0); err != nil {
		return
	}
	if !idxT.DType.IsInt() {
		err = c.Errorf("start_indices %s must have an integer element type", idxT.ShapeString())
	} else if opT.DType != outT.DType {
		err = c.Errorf("operand %s and result %s differ in element type", opT.ShapeString(), outT.ShapeString())
	}
	return
}

func compileGather(c *kernel.OpCtx) (kernel.RunFn, error) {
	dn, err := gatherDims(c)
	if err != nil {
		return nil, err
	}
	opT, idxT, outT, err := checkGatherTypes(c)
	if err != nil {
		return nil, err
	}
	sizes, err := reqInts(c, "slice_sizes")
	if err != nil {
		return nil, err
	}
	es := opT.DType.Size()
	var static *gatherPlan
	if allStatic(opT, idxT) {
		if static, err = newGatherPlan(dn, opT.Dims, idxT.Dims, sizes, es); err != nil {
			return nil, c.Errorf("%v (operand %s, start_indices %s)", err, opT.ShapeString(), idxT.ShapeString())
		}
		if err := matchDims(outT, static.outDims); err != nil {
			return nil, c.Errorf("%v (operand %s, start_indices %s)", err, opT.ShapeString(), idxT.ShapeString())
		}
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		operand, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		idx, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		p := static
		if p == nil {
			if p, err = newGatherPlan(dn, operand.Dims, idx.Dims, sizes, es); err != nil {
				return runErr(op, "%v (operand %s, start_indices %s)", err, operand.ShapeString(), idx.ShapeString())
			}
		}
		out := newOut(x, operand.DType, p.outDims)
		p.exec(out, operand, idx)
		results[0] = out
		return nil
	}, nil
}

func compileDynamicGather(c *kernel.OpCtx) (kernel.RunFn, error) {
	dn, err := gatherDims(c)
	if err != nil {
		return nil, err
	}
	opT, _, outT, err := checkGatherTypes(c)
	if err != nil {
		return nil, err
	}
	if st := c.InTensor(2); st == nil || st.Rank() != 1 || !st.DType.IsInt() {
		return nil, c.Errorf("slice_sizes operand has type %s, want a 1-D integer tensor", shapeOf(c.In[2]))
	}
	op := c.Op
	es := opT.DType.Size()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		var ls [3]*hlo.Literal
		if err := lits(op, args, ls[:]); err != nil {
			return err
		}
		sizes, err := readShape(op, "slice_sizes", ls[2])
		if err != nil {
			return err
		}
		p, err := newGatherPlan(dn, ls[0].Dims, ls[1].Dims, sizes, es)
		if err != nil {
			return runErr(op, "%v (operand %s, start_indices %s)", err, ls[0].ShapeString(), ls[1].ShapeString())
		}
		if err := matchDims(outT, p.outDims); err != nil {
			return runErr(op, "%v", err)
		}
		if err := x.CheckAlloc(op, ls[0].DType, p.outDims); err != nil {
			return err
		}
		out := newOut(x, ls[0].DType, p.outDims)
		p.exec(out, ls[0], ls[1])
		results[0] = out
		return nil
	}, nil
}
