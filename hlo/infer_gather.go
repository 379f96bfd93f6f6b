package hlo

import "slices"

// Rules for gather, dynamic_gather and scatter.

// gatherCheck checks gather's dimension numbers against the operand and
// start indices (slice sizes given when known) and returns the result shape.
func (c *inferCtx) gatherCheck(x, idx *TensorType, dn *GatherDimsAttr, sizes []int64) ([]int64, error) {
	if !idx.DType.IsInt() || idx.Quant != nil {
		return nil, c.errf("start_indices has type %s, want a tensor of integer type", idx)
	}
	if n := len(dn.OffsetDims) + len(dn.CollapsedSliceDims) + len(dn.OperandBatchingDims); n != x.Rank() {
		return nil, c.errf("offset_dims %s, collapsed_slice_dims %s and operand_batching_dims %s have %d entries, operand %s has rank %d",
			fmtInts(dn.OffsetDims), fmtInts(dn.CollapsedSliceDims), fmtInts(dn.OperandBatchingDims), n, x, x.Rank())
	}
	ivd := dn.IndexVectorDim
	if ivd < 0 || ivd > int64(idx.Rank()) {
		return nil, c.errf("index_vector_dim %d is out of range for start_indices %s", ivd, idx)
	}
	if ivd < int64(idx.Rank()) {
		if n := idx.Dims[ivd]; n >= 0 && n != int64(len(dn.StartIndexMap)) {
			return nil, c.errf("start_index_map %s has %d entries, start_indices %s has %d in index_vector_dim %d", fmtInts(dn.StartIndexMap), len(dn.StartIndexMap), idx, n, ivd)
		}
	} else if len(dn.StartIndexMap) != 1 {
		return nil, c.errf("start_index_map %s must have 1 entry when index_vector_dim is %d (the rank of %s)", fmtInts(dn.StartIndexMap), ivd, idx)
	}
	if err := c.checkSorted("offset_dims", dn.OffsetDims); err != nil {
		return nil, err
	}
	collapsedAndBatch := append(append([]int64{}, dn.CollapsedSliceDims...), dn.OperandBatchingDims...)
	if err := c.checkAxes("collapsed_slice_dims + operand_batching_dims", collapsedAndBatch, x.Rank(), true); err != nil {
		return nil, err
	}
	if err := c.checkSorted("collapsed_slice_dims", dn.CollapsedSliceDims); err != nil {
		return nil, err
	}
	if err := c.checkSorted("operand_batching_dims", dn.OperandBatchingDims); err != nil {
		return nil, err
	}
	if err := c.checkAxes("start_indices_batching_dims", dn.StartIndicesBatchingDims, idx.Rank(), true); err != nil {
		return nil, err
	}
	if slices.Contains(dn.StartIndicesBatchingDims, ivd) {
		return nil, c.errf("start_indices_batching_dims %s contains index_vector_dim %d", fmtInts(dn.StartIndicesBatchingDims), ivd)
	}
	if len(dn.OperandBatchingDims) != len(dn.StartIndicesBatchingDims) {
		return nil, c.errf("operand_batching_dims %s and start_indices_batching_dims %s differ in size", fmtInts(dn.OperandBatchingDims), fmtInts(dn.StartIndicesBatchingDims))
	}
	for i := range dn.OperandBatchingDims {
		a, b := x.Dims[dn.OperandBatchingDims[i]], idx.Dims[dn.StartIndicesBatchingDims[i]]
		if _, ok := mergeDim(a, b); !ok {
			return nil, c.errf("batching dimension sizes differ: operand %s has %d, start_indices %s has %d", x, a, idx, b)
		}
	}
	if err := c.checkAxes("start_index_map + operand_batching_dims", append(append([]int64{}, dn.StartIndexMap...), dn.OperandBatchingDims...), x.Rank(), true); err != nil {
		return nil, err
	}
	if sizes == nil {
		sizes = make([]int64, x.Rank())
		for i := range sizes {
			sizes[i] = DynamicDim
		}
	}
	if len(sizes) != x.Rank() {
		return nil, c.errf("slice_sizes %s has %d entries, operand %s has rank %d", fmtInts(sizes), len(sizes), x, x.Rank())
	}
	for i, s := range sizes {
		if s < 0 {
			continue
		}
		if x.Dims[i] >= 0 && s > x.Dims[i] {
			return nil, c.errf("slice_sizes %s exceeds operand %s in dimension %d", fmtInts(sizes), x, i)
		}
		if slices.Contains(collapsedAndBatch, int64(i)) && s > 1 {
			return nil, c.errf("slice_sizes %s: collapsed or batching dimension %d has size %d, want <= 1", fmtInts(sizes), i, s)
		}
	}
	var batch, offset []int64
	for i, d := range idx.Dims {
		if int64(i) != ivd {
			batch = append(batch, d)
		}
	}
	for i, s := range sizes {
		if !slices.Contains(collapsedAndBatch, int64(i)) {
			offset = append(offset, s)
		}
	}
	rank := len(batch) + len(offset)
	if err := c.checkAxes("offset_dims", dn.OffsetDims, rank, true); err != nil {
		return nil, err
	}
	dims := make([]int64, rank)
	bi, oi := 0, 0
	for i := range dims {
		if slices.Contains(dn.OffsetDims, int64(i)) {
			dims[i] = offset[oi]
			oi++
		} else {
			dims[i] = batch[bi]
			bi++
		}
	}
	return dims, nil
}

func inferGather(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	dn, ok := c.attr("dimension_numbers").(*GatherDimsAttr)
	if !ok {
		return nil, c.errf("missing attribute dimension_numbers")
	}
	sizes, err := c.reqInts("slice_sizes")
	if err != nil {
		return nil, err
	}
	for _, s := range sizes {
		if s < 0 {
			return nil, c.errf("slice_sizes %s has a negative size", fmtInts(sizes))
		}
	}
	dims, err := c.gatherCheck(x, idx, dn, sizes)
	if err != nil {
		return nil, err
	}
	return []Type{withDims(x, dims)}, nil
}

func inferDynamicGather(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if err := c.shapeOperandOf(2, "slice_sizes", "operand", x); err != nil {
		return nil, err
	}
	dn, ok := c.attr("dimension_numbers").(*GatherDimsAttr)
	if !ok {
		return nil, c.errf("missing attribute dimension_numbers")
	}
	dims, err := c.gatherCheck(x, idx, dn, nil)
	if err != nil {
		return nil, err
	}
	g, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if !sameElem(g, x) || !dimsCompatible(g.Dims, dims) {
		return nil, c.errf("result type %s does not match the gather shape %s", g, ShapeString(x.DType, dims))
	}
	return []Type{g}, nil
}

func inferScatter(c *inferCtx) ([]Type, error) {
	if len(c.operands) < 3 || len(c.operands)%2 == 0 {
		return nil, c.errf("expected N inputs, scatter_indices and N updates, got %d operands (%s)", len(c.operands), c.operandTypes())
	}
	n := (len(c.operands) - 1) / 2
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	inputs, idx, updates := ts[:n], ts[n], ts[n+1:]
	dn, ok := c.attr("scatter_dimension_numbers").(*ScatterDimsAttr)
	if !ok {
		return nil, c.errf("missing attribute scatter_dimension_numbers")
	}
	x := inputs[0]
	for _, t := range inputs[1:] {
		if !dimsCompatible(t.Dims, x.Dims) {
			return nil, c.errf("input shapes %s and %s differ", x, t)
		}
	}
	u := updates[0]
	for i, t := range updates {
		if !dimsCompatible(t.Dims, u.Dims) {
			return nil, c.errf("update shapes %s and %s differ", u, t)
		}
		if !sameElem(t, inputs[i]) {
			return nil, c.errf("update #%d type %s and input #%d type %s have different element types", i, t, i, inputs[i])
		}
	}
	if !idx.DType.IsInt() || idx.Quant != nil {
		return nil, c.errf("scatter_indices has type %s, want a tensor of integer type", idx)
	}
	if k := len(dn.UpdateWindowDims) + len(dn.InsertedWindowDims) + len(dn.InputBatchingDims); k != x.Rank() {
		return nil, c.errf("update_window_dims %s, inserted_window_dims %s and input_batching_dims %s have %d entries, input %s has rank %d",
			fmtInts(dn.UpdateWindowDims), fmtInts(dn.InsertedWindowDims), fmtInts(dn.InputBatchingDims), k, x, x.Rank())
	}
	if err := c.checkSorted("update_window_dims", dn.UpdateWindowDims); err != nil {
		return nil, err
	}
	if err := c.checkAxes("update_window_dims", dn.UpdateWindowDims, u.Rank(), true); err != nil {
		return nil, err
	}
	insAndBatch := append(append([]int64{}, dn.InsertedWindowDims...), dn.InputBatchingDims...)
	if err := c.checkAxes("inserted_window_dims + input_batching_dims", insAndBatch, x.Rank(), true); err != nil {
		return nil, err
	}
	if err := c.checkSorted("inserted_window_dims", dn.InsertedWindowDims); err != nil {
		return nil, err
	}
	if err := c.checkSorted("input_batching_dims", dn.InputBatchingDims); err != nil {
		return nil, err
	}
	if err := c.checkAxes("scatter_indices_batching_dims", dn.ScatterIndicesBatchingDims, idx.Rank(), true); err != nil {
		return nil, err
	}
	ivd := dn.IndexVectorDim
	if ivd < 0 || ivd > int64(idx.Rank()) {
		return nil, c.errf("index_vector_dim %d is out of range for scatter_indices %s", ivd, idx)
	}
	if slices.Contains(dn.ScatterIndicesBatchingDims, ivd) {
		return nil, c.errf("scatter_indices_batching_dims %s contains index_vector_dim %d", fmtInts(dn.ScatterIndicesBatchingDims), ivd)
	}
	if len(dn.InputBatchingDims) != len(dn.ScatterIndicesBatchingDims) {
		return nil, c.errf("input_batching_dims %s and scatter_indices_batching_dims %s differ in size", fmtInts(dn.InputBatchingDims), fmtInts(dn.ScatterIndicesBatchingDims))
	}
	for i := range dn.InputBatchingDims {
		a, b := x.Dims[dn.InputBatchingDims[i]], idx.Dims[dn.ScatterIndicesBatchingDims[i]]
		if _, ok := mergeDim(a, b); !ok {
			return nil, c.errf("batching dimension sizes differ: input %s has %d, scatter_indices %s has %d", x, a, idx, b)
		}
	}
	if ivd < int64(idx.Rank()) {
		if k := idx.Dims[ivd]; k >= 0 && k != int64(len(dn.ScatterDimsToOperandDims)) {
			return nil, c.errf("scatter_dims_to_operand_dims %s has %d entries, scatter_indices %s has %d in index_vector_dim %d",
				fmtInts(dn.ScatterDimsToOperandDims), len(dn.ScatterDimsToOperandDims), idx, k, ivd)
		}
	} else if len(dn.ScatterDimsToOperandDims) != 1 {
		return nil, c.errf("scatter_dims_to_operand_dims %s must have 1 entry when index_vector_dim is %d (the rank of %s)", fmtInts(dn.ScatterDimsToOperandDims), ivd, idx)
	}
	if err := c.checkAxes("scatter_dims_to_operand_dims + input_batching_dims", append(append([]int64{}, dn.ScatterDimsToOperandDims...), dn.InputBatchingDims...), x.Rank(), true); err != nil {
		return nil, err
	}
	// Updates: scatter dimensions from the indices, window dimensions no
	// larger than the matching input dimensions.
	var scatterSizes, windowBounds []int64
	for i, d := range idx.Dims {
		if int64(i) != ivd {
			scatterSizes = append(scatterSizes, d)
		}
	}
	for i, d := range x.Dims {
		if !slices.Contains(insAndBatch, int64(i)) {
			windowBounds = append(windowBounds, d)
		}
	}
	if want := len(scatterSizes) + len(dn.UpdateWindowDims); u.Rank() != want {
		return nil, c.errf("updates %s has rank %d, want %d (%d scatter + %d window dimensions)", u, u.Rank(), want, len(scatterSizes), len(dn.UpdateWindowDims))
	}
	si, wi := 0, 0
	for i, d := range u.Dims {
		if slices.Contains(dn.UpdateWindowDims, int64(i)) {
			if b := windowBounds[wi]; d >= 0 && b >= 0 && d > b {
				return nil, c.errf("updates %s window dimension %d has size %d, larger than input %s allows (%d)", u, i, d, x, b)
			}
			wi++
			continue
		}
		if _, ok := mergeDim(d, scatterSizes[si]); !ok {
			return nil, c.errf("updates %s dimension %d has size %d, scatter_indices %s gives %d", u, i, d, idx, scatterSizes[si])
		}
		si++
	}
	acc, err := c.checkReducer(0, "update_computation", inputs)
	if err != nil {
		return nil, err
	}
	out := make([]Type, n)
	for i, t := range inputs {
		out[i] = &TensorType{DType: acc[i].DType, Dims: append([]int64{}, t.Dims...), Quant: acc[i].Quant}
	}
	return out, nil
}
