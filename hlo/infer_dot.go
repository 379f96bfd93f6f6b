package hlo

import (
	"math"
	"slices"
)

// Rules for dot_general, dot, convolution and dynamic_conv.

// contractResult returns the result of a contraction of shape dims. Its
// element type is the declared one when given (these ops may widen, e.g.
// i8 x i8 -> i32), otherwise the lhs element type.
func (c *inferCtx) contractResult(lhs, rhs *TensorType, dims []int64) ([]Type, error) {
	if lhs.Quant == nil && rhs.Quant == nil && lhs.DType != rhs.DType {
		return nil, c.errf("operand types %s and %s have different element types", lhs, rhs)
	}
	if g := c.givenType(0); g != nil {
		t, ok := g.(*TensorType)
		if !ok {
			return nil, c.errf("result #0 has type %s, want a tensor", g)
		}
		return []Type{&TensorType{DType: t.DType, Dims: dims, Quant: t.Quant}}, nil
	}
	return []Type{withDims(lhs, dims)}, nil
}

// checkPrecision checks the optional precision_config attribute.
func (c *inferCtx) checkPrecision() error {
	a := c.attr("precision_config")
	if a == nil {
		return nil
	}
	arr, ok := a.(ArrayAttr)
	if !ok {
		return c.errf("precision_config = %s is not an array", AttrString(a))
	}
	if len(arr) > 2 {
		return c.errf("precision_config has %d entries, want at most 2", len(arr))
	}
	for _, e := range arr {
		v, ok := AttrEnum(e)
		if !ok || (v != "DEFAULT" && v != "HIGH" && v != "HIGHEST") {
			return c.errf("precision_config entry %s is not DEFAULT, HIGH or HIGHEST", AttrString(e))
		}
		if v != "DEFAULT" && c.attr("algorithm") != nil {
			return c.errf("precision_config must be DEFAULT when an algorithm is given, got %s", v)
		}
	}
	return nil
}

func inferDotGeneral(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	l, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	dn, ok := c.attr("dot_dimension_numbers").(*DotDimsAttr)
	if !ok {
		return nil, c.errf("missing attribute dot_dimension_numbers")
	}
	if err := c.checkPrecision(); err != nil {
		return nil, err
	}
	lb, rb, lc, rc := dn.LhsBatchingDims, dn.RhsBatchingDims, dn.LhsContractingDims, dn.RhsContractingDims
	if len(lb) != len(rb) {
		return nil, c.errf("lhs_batching_dimensions %s and rhs_batching_dimensions %s differ in size", fmtInts(lb), fmtInts(rb))
	}
	if len(lc) != len(rc) {
		return nil, c.errf("lhs_contracting_dimensions %s and rhs_contracting_dimensions %s differ in size", fmtInts(lc), fmtInts(rc))
	}
	if err := c.checkAxes("lhs_batching_dimensions + lhs_contracting_dimensions of "+l.String(), append(append([]int64{}, lb...), lc...), l.Rank(), true); err != nil {
		return nil, err
	}
	if err := c.checkAxes("rhs_batching_dimensions + rhs_contracting_dimensions of "+r.String(), append(append([]int64{}, rb...), rc...), r.Rank(), true); err != nil {
		return nil, err
	}
	var dims []int64
	for i := range lb {
		d, ok := mergeDim(l.Dims[lb[i]], r.Dims[rb[i]])
		if !ok {
			return nil, c.errf("batching dimension sizes differ: %s dimension %d is %d, %s dimension %d is %d", l, lb[i], l.Dims[lb[i]], r, rb[i], r.Dims[rb[i]])
		}
		dims = append(dims, d)
	}
	for i := range lc {
		if _, ok := mergeDim(l.Dims[lc[i]], r.Dims[rc[i]]); !ok {
			return nil, c.errf("contracting dimension sizes differ: %s dimension %d is %d, %s dimension %d is %d", l, lc[i], l.Dims[lc[i]], r, rc[i], r.Dims[rc[i]])
		}
	}
	for i, d := range l.Dims {
		if !slices.Contains(lb, int64(i)) && !slices.Contains(lc, int64(i)) {
			dims = append(dims, d)
		}
	}
	for i, d := range r.Dims {
		if !slices.Contains(rb, int64(i)) && !slices.Contains(rc, int64(i)) {
			dims = append(dims, d)
		}
	}
	return c.contractResult(l, r, dims)
}

func inferDot(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	l, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if err := c.checkPrecision(); err != nil {
		return nil, err
	}
	if l.Rank() < 1 || l.Rank() > 2 || r.Rank() < 1 || r.Rank() > 2 {
		return nil, c.errf("operands %s and %s must have rank 1 or 2", l, r)
	}
	if _, ok := mergeDim(l.Dims[l.Rank()-1], r.Dims[0]); !ok {
		return nil, c.errf("contracting dimension sizes of %s and %s differ", l, r)
	}
	dims := append(append([]int64{}, l.Dims[:l.Rank()-1]...), r.Dims[1:]...)
	return c.contractResult(l, r, dims)
}

// windowCount is the number of windows of a strided, dilated window over a
// padded, dilated input dimension (-1 when the input size is dynamic,
// dimOverflow when the padded or dilated sizes overflow an int64).
func windowCount(in int64, lo, hi, baseDil, win, winDil, stride int64) int64 {
	if in < 0 || win < 0 {
		return DynamicDim
	}
	ok := true
	step := func(v int64, good bool) int64 {
		ok = ok && good
		return v
	}
	dilIn := int64(0)
	if in > 0 {
		dilIn = step(addInt64(step(mulInt64(in-1, baseDil)), 1))
	}
	padded := step(addInt64(step(addInt64(lo, dilIn)), hi))
	dilWin := int64(0)
	if win > 0 {
		dilWin = step(addInt64(step(mulInt64(win-1, winDil)), 1))
	}
	if !ok {
		return dimOverflow
	}
	if padded <= 0 || dilWin > padded || stride <= 0 {
		return 0
	}
	return (padded-dilWin)/stride + 1
}

// dimOverflow marks a result dimension whose arithmetic overflowed an
// int64; InferResultTypesFrom reports it.
const dimOverflow int64 = math.MinInt64

func (c *inferCtx) convCheck(l, r *TensorType, dn *ConvDimsAttr, pad [][2]int64) ([]int64, error) {
	n := l.Rank()
	if r.Rank() != n || n < 2 {
		return nil, c.errf("lhs %s and rhs %s must have the same rank >= 2", l, r)
	}
	s := n - 2
	if len(dn.InputSpatialDims) != s || len(dn.KernelSpatialDims) != s || len(dn.OutputSpatialDims) != s {
		return nil, c.errf("dimension numbers %s need %d spatial dimensions for rank-%d operands", dn.Layout(), s, n)
	}
	in := append(append([]int64{dn.InputBatchDim}, dn.InputSpatialDims...), dn.InputFeatureDim)
	if err := c.checkAxes("input dimensions", in, n, true); err != nil {
		return nil, err
	}
	kn := append(append([]int64{}, dn.KernelSpatialDims...), dn.KernelInputFeatureDim, dn.KernelOutputFeatureDim)
	if err := c.checkAxes("kernel dimensions", kn, n, true); err != nil {
		return nil, err
	}
	out := append(append([]int64{dn.OutputBatchDim}, dn.OutputSpatialDims...), dn.OutputFeatureDim)
	if err := c.checkAxes("output dimensions", out, n, true); err != nil {
		return nil, err
	}
	strides, err := c.intsOr("window_strides", s, 1)
	if err != nil {
		return nil, err
	}
	lhsDil, err := c.intsOr("lhs_dilation", s, 1)
	if err != nil {
		return nil, err
	}
	rhsDil, err := c.intsOr("rhs_dilation", s, 1)
	if err != nil {
		return nil, err
	}
	for _, w := range []struct {
		name string
		xs   []int64
	}{{"window_strides", strides}, {"lhs_dilation", lhsDil}, {"rhs_dilation", rhsDil}} {
		if len(w.xs) != s {
			return nil, c.errf("%s %s has %d entries, want %d", w.name, fmtInts(w.xs), len(w.xs), s)
		}
		for _, v := range w.xs {
			if v <= 0 {
				return nil, c.errf("%s %s must be positive", w.name, fmtInts(w.xs))
			}
		}
	}
	if a := c.attr("window_reversal"); a != nil {
		if xs, ok := AttrInts(a); ok && len(xs) != s {
			return nil, c.errf("window_reversal has %d entries, want %d", len(xs), s)
		}
	}
	fgc, err := c.int("feature_group_count", 1)
	if err != nil {
		return nil, err
	}
	bgc, err := c.int("batch_group_count", 1)
	if err != nil {
		return nil, err
	}
	if fgc <= 0 || bgc <= 0 {
		return nil, c.errf("feature_group_count %d and batch_group_count %d must be positive", fgc, bgc)
	}
	if fgc != 1 && bgc != 1 {
		return nil, c.errf("feature_group_count %d and batch_group_count %d cannot both exceed 1", fgc, bgc)
	}
	if err := c.checkPrecision(); err != nil {
		return nil, err
	}
	batch, feat := l.Dims[dn.InputBatchDim], l.Dims[dn.InputFeatureDim]
	kin, kout := r.Dims[dn.KernelInputFeatureDim], r.Dims[dn.KernelOutputFeatureDim]
	if batch >= 0 && batch%bgc != 0 {
		return nil, c.errf("lhs %s batch size %d is not a multiple of batch_group_count %d", l, batch, bgc)
	}
	if feat >= 0 && feat%fgc != 0 {
		return nil, c.errf("lhs %s feature size %d is not a multiple of feature_group_count %d", l, feat, fgc)
	}
	if feat >= 0 && kin >= 0 && kin != feat/fgc {
		return nil, c.errf("rhs %s input feature size %d must be lhs %s feature size %d / feature_group_count %d", r, kin, l, feat, fgc)
	}
	if kout >= 0 && (kout%bgc != 0 || kout%fgc != 0) {
		return nil, c.errf("rhs %s output feature size %d is not a multiple of batch_group_count %d and feature_group_count %d", r, kout, bgc, fgc)
	}
	dims := make([]int64, n)
	dims[dn.OutputBatchDim] = DynamicDim
	if batch >= 0 {
		dims[dn.OutputBatchDim] = batch / bgc
	}
	dims[dn.OutputFeatureDim] = kout
	for i := 0; i < s; i++ {
		o := dn.OutputSpatialDims[i]
		if pad == nil {
			dims[o] = DynamicDim
			continue
		}
		dims[o] = windowCount(l.Dims[dn.InputSpatialDims[i]], pad[i][0], pad[i][1], lhsDil[i],
			r.Dims[dn.KernelSpatialDims[i]], rhsDil[i], strides[i])
	}
	return dims, nil
}

func inferConvolution(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	l, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	dn, ok := c.attr("dimension_numbers").(*ConvDimsAttr)
	if !ok {
		return nil, c.errf("missing attribute dimension_numbers")
	}
	if l.Rank() < 2 {
		return nil, c.errf("lhs %s must have rank >= 2", l)
	}
	pad, err := c.pairs("padding", l.Rank()-2)
	if err != nil {
		return nil, err
	}
	dims, err := c.convCheck(l, r, dn, pad)
	if err != nil {
		return nil, err
	}
	return c.contractResult(l, r, dims)
}

func inferDynamicConv(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	l, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	p, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	dn, ok := c.attr("dimension_numbers").(*ConvDimsAttr)
	if !ok {
		return nil, c.errf("missing attribute dimension_numbers")
	}
	if p.Rank() != 2 || !p.DType.IsInt() || (p.Dims[0] >= 0 && p.Dims[0] != int64(l.Rank()-2)) || (p.Dims[1] >= 0 && p.Dims[1] != 2) {
		return nil, c.errf("padding has type %s, want tensor<%dx2x(integer)>", p, l.Rank()-2)
	}
	dims, err := c.convCheck(l, r, dn, nil)
	if err != nil {
		return nil, err
	}
	g, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if !dimsCompatible(g.Dims, dims) {
		return nil, c.errf("result type %s does not match the convolution shape %s", g, ShapeString(g.DType, dims))
	}
	return []Type{g}, nil
}
