package hlo

import "slices"

// Rules for the ops with reduction or comparison regions: reduce,
// reduce_window, select_and_scatter, sort and map.

// splitInputsInits splits 2N operands into N inputs and N 0-d init values
// of the same element types.
func (c *inferCtx) splitInputsInits() (inputs, inits []*TensorType, err error) {
	if len(c.operands) == 0 || len(c.operands)%2 != 0 {
		return nil, nil, c.errf("expected N inputs and N init values, got %d operands (%s)", len(c.operands), c.operandTypes())
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, nil, err
	}
	n := len(ts) / 2
	inputs, inits = ts[:n], ts[n:]
	for i := range inputs {
		if !dimsCompatible(inputs[i].Dims, inputs[0].Dims) {
			return nil, nil, c.errf("input shapes %s and %s differ", inputs[0], inputs[i])
		}
		if inits[i].Rank() != 0 {
			return nil, nil, c.errf("init value #%d has type %s, want a 0-d tensor", i, inits[i])
		}
		if !sameElem(inputs[i], inits[i]) {
			return nil, nil, c.errf("input #%d type %s and init value type %s have different element types", i, inputs[i], inits[i])
		}
	}
	return inputs, inits, nil
}

func inferReduce(c *inferCtx) ([]Type, error) {
	inputs, _, err := c.splitInputsInits()
	if err != nil {
		return nil, err
	}
	dims, err := c.reqInts("dimensions")
	if err != nil {
		return nil, err
	}
	x := inputs[0]
	if err := c.checkAxes("dimensions", dims, x.Rank(), true); err != nil {
		return nil, err
	}
	acc, err := c.checkReducer(0, "body", inputs)
	if err != nil {
		return nil, err
	}
	var shape []int64
	for i, d := range x.Dims {
		if !slices.Contains(dims, int64(i)) {
			shape = append(shape, d)
		}
	}
	out := make([]Type, len(inputs))
	for i := range inputs {
		out[i] = withDims(acc[i], shape)
	}
	return out, nil
}

// windowAttrs reads the window attributes of reduce_window and
// select_and_scatter for a rank-r operand.
type windowAttrs struct {
	dims, strides, baseDil, winDil []int64
	pad                            [][2]int64
}

func (c *inferCtx) readWindow(r int, dimsRequired bool) (*windowAttrs, error) {
	w := &windowAttrs{}
	var err error
	if dimsRequired {
		w.dims, err = c.reqInts("window_dimensions")
	} else {
		w.dims, err = c.intsOr("window_dimensions", r, 1)
	}
	if err != nil {
		return nil, err
	}
	if w.strides, err = c.intsOr("window_strides", r, 1); err != nil {
		return nil, err
	}
	if w.baseDil, err = c.intsOr("base_dilations", r, 1); err != nil {
		return nil, err
	}
	if w.winDil, err = c.intsOr("window_dilations", r, 1); err != nil {
		return nil, err
	}
	for _, a := range []struct {
		name string
		xs   []int64
	}{{"window_dimensions", w.dims}, {"window_strides", w.strides}, {"base_dilations", w.baseDil}, {"window_dilations", w.winDil}} {
		if len(a.xs) != r {
			return nil, c.errf("%s %s has %d entries, want %d (the operand rank)", a.name, fmtInts(a.xs), len(a.xs), r)
		}
		for _, v := range a.xs {
			if v <= 0 {
				return nil, c.errf("%s %s must be positive", a.name, fmtInts(a.xs))
			}
		}
	}
	if w.pad, err = c.pairs("padding", r); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *windowAttrs) outDims(in []int64) []int64 {
	out := make([]int64, len(in))
	for i, d := range in {
		out[i] = windowCount(d, w.pad[i][0], w.pad[i][1], w.baseDil[i], w.dims[i], w.winDil[i], w.strides[i])
	}
	return out
}

func inferReduceWindow(c *inferCtx) ([]Type, error) {
	inputs, _, err := c.splitInputsInits()
	if err != nil {
		return nil, err
	}
	w, err := c.readWindow(inputs[0].Rank(), true)
	if err != nil {
		return nil, err
	}
	acc, err := c.checkReducer(0, "body", inputs)
	if err != nil {
		return nil, err
	}
	dims := w.outDims(inputs[0].Dims)
	out := make([]Type, len(inputs))
	for i := range inputs {
		out[i] = withDims(acc[i], dims)
	}
	return out, nil
}

func inferSelectAndScatter(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, 3)
	if err != nil {
		return nil, err
	}
	x, src, init := ts[0], ts[1], ts[2]
	if !sameElem(x, src) {
		return nil, c.errf("operand type %s and source type %s have different element types", x, src)
	}
	if init.Rank() != 0 || !sameElem(x, init) {
		return nil, c.errf("init value type %s must be a 0-d tensor of the element type of %s", init, x)
	}
	w, err := c.readWindow(x.Rank(), false)
	if err != nil {
		return nil, err
	}
	if want := w.outDims(x.Dims); !dimsCompatible(want, src.Dims) {
		return nil, c.errf("source %s does not have the window count shape %s of operand %s", src, ShapeString(src.DType, want), x)
	}
	e := scalarOf(x)
	if _, err := c.checkRegion(0, "select", []Type{e, e}, []Type{NewTensorType(Bool)}); err != nil {
		return nil, err
	}
	acc, err := c.checkReducer(1, "scatter", []*TensorType{x})
	if err != nil {
		return nil, err
	}
	return []Type{withDims(acc[0], x.Dims)}, nil
}

func inferSort(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	for _, t := range ts[1:] {
		if !dimsCompatible(t.Dims, ts[0].Dims) {
			return nil, c.errf("input shapes %s and %s differ", ts[0], t)
		}
	}
	d, err := c.int("dimension", -1)
	if err != nil {
		return nil, err
	}
	r := int64(ts[0].Rank())
	if d < -r || d >= r {
		return nil, c.errf("dimension %d is out of range [%d, %d) for %s", d, -r, r, ts[0])
	}
	want := make([]Type, 0, 2*len(ts))
	for _, t := range ts {
		want = append(want, scalarOf(t), scalarOf(t))
	}
	if _, err := c.checkRegion(0, "comparator", want, []Type{NewTensorType(Bool)}); err != nil {
		return nil, err
	}
	return tensorsOf(ts...), nil
}

func inferMap(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	dims := ts[0].Dims
	for _, t := range ts[1:] {
		d, ok := mergeDims(dims, t.Dims)
		if !ok {
			return nil, c.errf("input shapes %s and %s differ", ts[0], t)
		}
		dims = d
	}
	ds, err := c.reqInts("dimensions")
	if err != nil {
		return nil, err
	}
	if len(ds) != len(dims) {
		return nil, c.errf("dimensions %s must be [0, ..., %d]", fmtInts(ds), len(dims)-1)
	}
	for i, d := range ds {
		if d != int64(i) {
			return nil, c.errf("dimensions %s must be [0, ..., %d]", fmtInts(ds), len(dims)-1)
		}
	}
	want := make([]Type, len(ts))
	for i, t := range ts {
		want[i] = scalarOf(t)
	}
	res, err := c.checkRegion(0, "computation", want, nil)
	if err != nil {
		return nil, err
	}
	if len(res) != 1 {
		return nil, c.errf("computation region returns %d values, want 1", len(res))
	}
	e, ok := res[0].(*TensorType)
	if !ok || e.Rank() != 0 {
		return nil, c.errf("computation region returns %s, want a 0-d tensor", res[0])
	}
	return []Type{withDims(e, dims)}, nil
}
