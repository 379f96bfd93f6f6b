package hlo

// Rules for constants, iota and the data-movement ops that change shapes.

func inferConstant(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(0); err != nil {
		return nil, err
	}
	switch a := c.attr("value").(type) {
	case *DenseElementsAttr:
		t := a.Type
		if g, ok := c.givenType(0).(*TensorType); ok && g.Quant != nil {
			if !dimsCompatible(g.Dims, t.Dims) {
				return nil, c.errf("value of type %s does not fit result type %s", t, g)
			}
			return c.one(g), nil
		}
		return c.one(t), nil
	case nil:
		return nil, c.errf("missing attribute value")
	default:
		// Attributes the package keeps opaque (sparse, resource) give no type.
		t, err := c.givenTensor(0)
		if err != nil {
			return nil, err
		}
		return []Type{t}, nil
	}
}

// checkIotaResult checks the result type of iota-like ops.
func (c *inferCtx) checkIotaResult(r *TensorType) error {
	if elemKindOf(r)&(kInt|kFloat|kComplex|kQuant) == 0 {
		return c.errf("result type %s is not a tensor of integer, floating-point or complex type", r)
	}
	d, err := c.reqInt("iota_dimension")
	if err != nil {
		return err
	}
	if d < 0 || d >= int64(r.Rank()) {
		return c.errf("iota_dimension %d is out of range for result type %s", d, r)
	}
	return nil
}

func inferIota(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(0); err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	return []Type{r}, c.checkIotaResult(r)
}

// shapeOperand checks a 1-d integer "shape" operand of n entries (n < 0:
// any) and returns its static size or -1.
func (c *inferCtx) shapeOperand(i int, what string) (int64, error) {
	t, err := c.tensor(i)
	if err != nil {
		return 0, err
	}
	if t.Rank() != 1 || !(t.DType.IsInt()) || t.Quant != nil {
		return 0, c.errf("%s has type %s, want a 1-d tensor of integer type", what, t)
	}
	return t.Dims[0], nil
}

// shapeOperandOf checks shape operand i (see shapeOperand) against t, which
// needs one entry per dimension; role names t in the message.
func (c *inferCtx) shapeOperandOf(i int, what, role string, t *TensorType) error {
	n, err := c.shapeOperand(i, what)
	if err != nil {
		return err
	}
	if n >= 0 && n != int64(t.Rank()) {
		return c.errf("%s %s has %d entries, %s %s has rank %d", what, c.operands[i], n, role, t, t.Rank())
	}
	return nil
}

// resultLike returns the declared result, which must have x's rank and
// element type (the dynamic ops whose sizes come from operand values).
func (c *inferCtx) resultLike(x *TensorType) ([]Type, error) {
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if r.Rank() != x.Rank() || !sameElem(x, r) {
		return nil, c.errf("result type %s must have the rank and element type of operand %s", r, x)
	}
	return []Type{r}, nil
}

func inferDynamicIota(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if err := c.shapeOperandOf(0, "output_shape", "result type", r); err != nil {
		return nil, err
	}
	return []Type{r}, c.checkIotaResult(r)
}

// checkBroadcastDims checks broadcast_dimensions of operand x into r.
func (c *inferCtx) checkBroadcastDims(x, r *TensorType, bd []int64) error {
	if len(bd) != x.Rank() {
		return c.errf("broadcast_dimensions %s has %d entries, operand %s has rank %d", fmtInts(bd), len(bd), x, x.Rank())
	}
	if err := c.checkAxes("broadcast_dimensions", bd, r.Rank(), true); err != nil {
		return err
	}
	for i, d := range bd {
		od, rd := x.Dims[i], r.Dims[d]
		if od != 1 && od >= 0 && rd >= 0 && od != rd {
			return c.errf("operand %s dimension %d (size %d) cannot broadcast to result %s dimension %d (size %d)", x, i, od, r, d, rd)
		}
	}
	if !sameElem(x, r) {
		return c.errf("result type %s and operand type %s have different element types", r, x)
	}
	return nil
}

func inferBroadcastInDim(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	bd, err := c.reqInts("broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	return c.one(r), c.checkBroadcastDims(x, r, bd)
}

func inferBroadcast(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	sizes, err := c.reqInts("broadcast_sizes")
	if err != nil {
		return nil, err
	}
	for _, s := range sizes {
		if s < 0 {
			return nil, c.errf("broadcast_sizes %s has a negative size", fmtInts(sizes))
		}
	}
	return []Type{withDims(x, append(append([]int64{}, sizes...), x.Dims...))}, nil
}

func inferDynamicBroadcastInDim(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	bd, err := c.reqInts("broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if err := c.shapeOperandOf(1, "output_dimensions", "result type", r); err != nil {
		return nil, err
	}
	if err := c.checkBroadcastDims(x, r, bd); err != nil {
		return nil, err
	}
	exp, _, err := c.ints("known_expanding_dimensions")
	if err != nil {
		return nil, err
	}
	nonexp, _, err := c.ints("known_nonexpanding_dimensions")
	if err != nil {
		return nil, err
	}
	all := append(append([]int64{}, exp...), nonexp...)
	if err := c.checkAxes("known_expanding_dimensions + known_nonexpanding_dimensions", all, x.Rank(), true); err != nil {
		return nil, err
	}
	return []Type{r}, nil
}

// checkReshape checks that r holds x's elements.
func (c *inferCtx) checkReshape(x, r *TensorType) error {
	if !sameElem(x, r) {
		return c.errf("result type %s and operand type %s have different element types", r, x)
	}
	if a, b := x.NumElements(), r.NumElements(); a >= 0 && b >= 0 && a != b {
		return c.errf("operand %s has %d elements, result %s has %d", x, a, r, b)
	}
	return nil
}

func inferReshape(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	return []Type{r}, c.checkReshape(x, r)
}

func inferDynamicReshape(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if err := c.shapeOperandOf(1, "output_shape", "result type", r); err != nil {
		return nil, err
	}
	return []Type{r}, c.checkReshape(x, r)
}

func inferTranspose(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	perm, err := c.reqInts("permutation")
	if err != nil {
		return nil, err
	}
	if len(perm) != x.Rank() {
		return nil, c.errf("permutation %s has %d entries, operand %s has rank %d", fmtInts(perm), len(perm), x, x.Rank())
	}
	if err := c.checkAxes("permutation", perm, x.Rank(), true); err != nil {
		return nil, err
	}
	dims := make([]int64, len(perm))
	for i, p := range perm {
		dims[i] = x.Dims[p]
	}
	return []Type{withDims(x, dims)}, nil
}

func inferSlice(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	start, err := c.reqInts("start_indices")
	if err != nil {
		return nil, err
	}
	limit, err := c.reqInts("limit_indices")
	if err != nil {
		return nil, err
	}
	strides, err := c.reqInts("strides")
	if err != nil {
		return nil, err
	}
	r := x.Rank()
	if len(start) != r || len(limit) != r || len(strides) != r {
		return nil, c.errf("start_indices %s, limit_indices %s and strides %s must each have %d entries (the rank of %s)",
			fmtInts(start), fmtInts(limit), fmtInts(strides), r, x)
	}
	dims := make([]int64, r)
	for i := 0; i < r; i++ {
		if strides[i] <= 0 {
			return nil, c.errf("strides %s: stride %d is not positive", fmtInts(strides), strides[i])
		}
		if start[i] < 0 || start[i] > limit[i] || (x.Dims[i] >= 0 && limit[i] > x.Dims[i]) {
			return nil, c.errf("dimension %d of %s: need 0 <= start %d <= limit %d <= size %s", i, x, start[i], limit[i], fmtDim(x.Dims[i]))
		}
		if limit[i] > start[i] { // ceil((limit-start)/stride) without overflowing for strides near 2^63
			dims[i] = (limit[i]-start[i]-1)/strides[i] + 1
		}
	}
	return []Type{withDims(x, dims)}, nil
}

// scalarIndices checks variadic 0-d integer index operands [from, to), all
// of one type.
func (c *inferCtx) scalarIndices(from, to int) error {
	var first *TensorType
	for i := from; i < to; i++ {
		t, err := c.tensor(i)
		if err != nil {
			return err
		}
		if t.Rank() != 0 || !t.DType.IsInt() || t.Quant != nil {
			return c.errf("start index operand #%d has type %s, want a 0-d tensor of integer type", i, t)
		}
		if first != nil && !first.Equal(t) {
			return c.errf("start index types %s and %s differ", first, t)
		}
		first = t
	}
	return nil
}

func inferDynamicSlice(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	sizes, err := c.reqInts("slice_sizes")
	if err != nil {
		return nil, err
	}
	if len(c.operands)-1 != x.Rank() || len(sizes) != x.Rank() {
		return nil, c.errf("operand %s of rank %d needs %d start indices and slice sizes, got %d and %s",
			x, x.Rank(), x.Rank(), len(c.operands)-1, fmtInts(sizes))
	}
	if err := c.scalarIndices(1, len(c.operands)); err != nil {
		return nil, err
	}
	for i, s := range sizes {
		if s < 0 || (x.Dims[i] >= 0 && s > x.Dims[i]) {
			return nil, c.errf("slice_sizes %s: size %d of dimension %d is outside [0, %s] for %s", fmtInts(sizes), s, i, fmtDim(x.Dims[i]), x)
		}
	}
	return []Type{withDims(x, sizes)}, nil
}

func inferRealDynamicSlice(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(4); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	for i, what := range []string{"start_indices", "limit_indices", "strides"} {
		if err := c.shapeOperandOf(i+1, what, "operand", x); err != nil {
			return nil, err
		}
	}
	return c.resultLike(x)
}

func inferDynamicUpdateSlice(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(2); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	u, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if !sameElem(x, u) || u.Rank() != x.Rank() {
		return nil, c.errf("update type %s must have the rank and element type of operand %s", u, x)
	}
	if len(c.operands)-2 != x.Rank() {
		return nil, c.errf("operand %s of rank %d needs %d start indices, got %d", x, x.Rank(), x.Rank(), len(c.operands)-2)
	}
	if err := c.scalarIndices(2, len(c.operands)); err != nil {
		return nil, err
	}
	for i := range x.Dims {
		if x.Dims[i] >= 0 && u.Dims[i] > x.Dims[i] {
			return nil, c.errf("update %s does not fit in operand %s (dimension %d)", u, x, i)
		}
	}
	return []Type{x}, nil
}

func inferConcatenate(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	d, err := c.reqInt("dimension")
	if err != nil {
		return nil, err
	}
	first := ts[0]
	if d < 0 || d >= int64(first.Rank()) {
		return nil, c.errf("dimension %d is out of range for %s", d, first)
	}
	dims := append([]int64{}, first.Dims...)
	for _, t := range ts[1:] {
		if t.Rank() != first.Rank() || !sameElem(t, first) {
			return nil, c.errf("operand types %s and %s differ in rank or element type", first, t)
		}
		for i := range dims {
			if int64(i) == d {
				if dims[i] < 0 || t.Dims[i] < 0 {
					dims[i] = DynamicDim
				} else if sum, ok := addInt64(dims[i], t.Dims[i]); ok {
					dims[i] = sum
				} else {
					return nil, c.errf("dimension %d of the result overflows int64", d)
				}
				continue
			}
			m, ok := mergeDim(dims[i], t.Dims[i])
			if !ok {
				return nil, c.errf("operand types %s and %s differ in dimension %d", first, t, i)
			}
			dims[i] = m
		}
	}
	return []Type{withDims(first, dims)}, nil
}

// padDims applies pad's shape formula; it fails on a negative result size.
func (c *inferCtx) padDims(x *TensorType, lo, hi, in []int64) ([]int64, error) {
	r := x.Rank()
	if len(lo) != r || len(hi) != r || len(in) != r {
		return nil, c.errf("edge_padding_low %s, edge_padding_high %s and interior_padding %s must each have %d entries (the rank of %s)",
			fmtInts(lo), fmtInts(hi), fmtInts(in), r, x)
	}
	dims := make([]int64, r)
	for i := range dims {
		if in[i] < 0 {
			return nil, c.errf("interior_padding %s is negative", fmtInts(in))
		}
		d := x.Dims[i]
		if d < 0 {
			dims[i] = DynamicDim
			continue
		}
		s3, ok := PaddedSize(d, lo[i], hi[i], in[i])
		if !ok {
			return nil, c.errf("padding %s/%s/%s makes dimension %d of %s overflow int64", fmtInts(lo), fmtInts(hi), fmtInts(in), i, x)
		}
		dims[i] = s3
		if dims[i] < 0 {
			return nil, c.errf("padding %s/%s/%s makes dimension %d of %s negative", fmtInts(lo), fmtInts(hi), fmtInts(in), i, x)
		}
	}
	return dims, nil
}

// padOperands returns pad's operand, after checking that the padding value
// (operand 1) is a 0-d tensor of its element type.
func (c *inferCtx) padOperands() (*TensorType, error) {
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	p, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if p.Rank() != 0 || !sameElem(x, p) {
		return nil, c.errf("padding value type %s must be a 0-d tensor of the element type of %s", p, x)
	}
	return x, nil
}

func inferPad(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	x, err := c.padOperands()
	if err != nil {
		return nil, err
	}
	lo, err := c.reqInts("edge_padding_low")
	if err != nil {
		return nil, err
	}
	hi, err := c.reqInts("edge_padding_high")
	if err != nil {
		return nil, err
	}
	in, err := c.reqInts("interior_padding")
	if err != nil {
		return nil, err
	}
	dims, err := c.padDims(x, lo, hi, in)
	if err != nil {
		return nil, err
	}
	return []Type{withDims(x, dims)}, nil
}

func inferDynamicPad(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(5); err != nil {
		return nil, err
	}
	x, err := c.padOperands()
	if err != nil {
		return nil, err
	}
	for i, what := range []string{"edge_padding_low", "edge_padding_high", "interior_padding"} {
		if err := c.shapeOperandOf(i+2, what, "operand", x); err != nil {
			return nil, err
		}
	}
	return c.resultLike(x)
}

func inferReverse(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	dims, err := c.reqInts("dimensions")
	if err != nil {
		return nil, err
	}
	if err := c.checkAxes("dimensions", dims, x.Rank(), true); err != nil {
		return nil, err
	}
	return []Type{x}, nil
}

func inferGetDimensionSize(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	d, err := c.reqInt("dimension")
	if err != nil {
		return nil, err
	}
	if d < 0 || d >= int64(x.Rank()) {
		return nil, c.errf("dimension %d is out of range for %s", d, x)
	}
	return []Type{NewTensorType(I32)}, nil
}

func inferSetDimensionSize(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	s, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if s.Rank() != 0 || s.DType != I32 {
		return nil, c.errf("size has type %s, want tensor<i32>", s)
	}
	d, err := c.reqInt("dimension")
	if err != nil {
		return nil, err
	}
	if d < 0 || d >= int64(x.Rank()) {
		return nil, c.errf("dimension %d is out of range for %s", d, x)
	}
	dims := append([]int64{}, x.Dims...)
	dims[d] = DynamicDim
	return []Type{withDims(x, dims)}, nil
}
