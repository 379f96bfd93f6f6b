package hlo

// Rules for fft, triangular_solve, cholesky, batch_norm_*, rng and
// rng_bit_generator.

func inferFft(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kFloat|kComplex)
	if err != nil {
		return nil, err
	}
	typ, err := c.enum("fft_type", "")
	if err != nil {
		return nil, err
	}
	n, err := c.reqInts("fft_length")
	if err != nil {
		return nil, err
	}
	if len(n) < 1 || len(n) > 3 || len(n) > x.Rank() {
		return nil, c.errf("fft_length %s must have 1 to 3 entries and at most rank(%s)", fmtInts(n), x)
	}
	// tail checks that the trailing dims of a real tensor equal fft_length.
	tail := func(dims []int64, what string) error {
		off := len(dims) - len(n)
		for i, l := range n {
			if d := dims[off+i]; d >= 0 && d != l {
				return c.errf("%s trailing dimensions %s must equal fft_length %s", what, fmtInts(dims[off:]), fmtInts(n))
			}
		}
		return nil
	}
	dims := append([]int64{}, x.Dims...)
	last := len(dims) - 1
	var dt DType
	switch typ {
	case "FFT", "IFFT":
		if !x.DType.IsComplex() {
			return nil, c.errf("%s operand has type %s, want a complex tensor", typ, x)
		}
		dt = x.DType
	case "RFFT":
		if !x.DType.IsFloat() || ComplexOf(x.DType) == InvalidDType {
			return nil, c.errf("RFFT operand has type %s, want an f32 or f64 tensor", x)
		}
		if err := tail(x.Dims, "operand"); err != nil {
			return nil, err
		}
		dt = ComplexOf(x.DType)
		if dims[last] > 0 {
			dims[last] = dims[last]/2 + 1
		}
	case "IRFFT":
		if !x.DType.IsComplex() {
			return nil, c.errf("IRFFT operand has type %s, want a complex tensor", x)
		}
		dt = x.DType.ComplexPart()
		copy(dims[len(dims)-len(n):], n)
		want := n[len(n)-1]
		if want > 0 {
			want = want/2 + 1
		}
		if d := x.Dims[last]; d >= 0 && d != want {
			return nil, c.errf("IRFFT operand %s last dimension must be fft_length[-1]/2+1 = %d", x, want)
		}
	default:
		return nil, c.errf("fft_type %q is not FFT, IFFT, RFFT or IRFFT", typ)
	}
	return []Type{NewTensorType(dt, dims...)}, nil
}

func inferTriangularSolve(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	a, err := c.kindTensor(0, kFpCx)
	if err != nil {
		return nil, err
	}
	b, err := c.kindTensor(1, kFpCx)
	if err != nil {
		return nil, err
	}
	if !sameElem(a, b) {
		return nil, c.errf("a type %s and b type %s have different element types", a, b)
	}
	if a.Rank() < 2 || a.Rank() != b.Rank() {
		return nil, c.errf("a %s and b %s must have the same rank >= 2", a, b)
	}
	left, err := c.flag("left_side")
	if err != nil {
		return nil, err
	}
	if _, err := c.enum("transpose_a", "NO_TRANSPOSE"); err != nil {
		return nil, err
	}
	r := a.Rank()
	if _, ok := mergeDims(a.Dims[:r-2], b.Dims[:r-2]); !ok {
		return nil, c.errf("batch dimensions of a %s and b %s differ", a, b)
	}
	bd := b.Dims[r-1]
	if left {
		bd = b.Dims[r-2]
	}
	n, ok := mergeDim(a.Dims[r-2], a.Dims[r-1])
	if !ok {
		return nil, c.errf("a %s is not square", a)
	}
	if _, ok := mergeDim(n, bd); !ok {
		side := "columns"
		if left {
			side = "rows"
		}
		return nil, c.errf("a %s does not match the %s of b %s", a, side, b)
	}
	return []Type{b}, nil
}

func inferCholesky(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	a, err := c.kindTensor(0, kFpCx)
	if err != nil {
		return nil, err
	}
	if a.Rank() < 2 {
		return nil, c.errf("operand %s must have rank >= 2", a)
	}
	if _, ok := mergeDim(a.Dims[a.Rank()-2], a.Dims[a.Rank()-1]); !ok {
		return nil, c.errf("operand %s is not square", a)
	}
	if _, err := c.flag("lower"); err != nil {
		return nil, err
	}
	return []Type{a}, nil
}

// batchNorm checks the operand and feature-sized 1-d operands of the
// batch_norm ops; features lists the operand indices of the 1-d ones.
func (c *inferCtx) batchNorm(x *TensorType, features []int) (*TensorType, error) {
	fi, err := c.reqInt("feature_index")
	if err != nil {
		return nil, err
	}
	if fi < 0 || fi >= int64(x.Rank()) {
		return nil, c.errf("feature_index %d is out of range for %s", fi, x)
	}
	if _, ok := AttrFloat(c.attr("epsilon")); !ok {
		return nil, c.errf("missing float attribute epsilon")
	}
	f := x.Dims[fi]
	for _, i := range features {
		t, err := c.kindTensor(i, kFpQ)
		if err != nil {
			return nil, err
		}
		if t.Rank() != 1 || !sameElem(t, x) {
			return nil, c.errf("operand #%d has type %s, want a 1-d tensor of the element type of %s", i, t, x)
		}
		if _, ok := mergeDim(t.Dims[0], f); !ok {
			return nil, c.errf("operand #%d %s does not have the feature size %d of %s", i, t, f, x)
		}
	}
	return withDims(x, []int64{f}), nil
}

func inferBatchNormInference(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(5); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kFpQ)
	if err != nil {
		return nil, err
	}
	if _, err := c.batchNorm(x, []int{1, 2, 3, 4}); err != nil {
		return nil, err
	}
	return []Type{x}, nil
}

func inferBatchNormTraining(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kFpQ)
	if err != nil {
		return nil, err
	}
	f, err := c.batchNorm(x, []int{1, 2})
	if err != nil {
		return nil, err
	}
	return []Type{x, f, f}, nil
}

func inferBatchNormGrad(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(5); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kFpQ)
	if err != nil {
		return nil, err
	}
	g, err := c.kindTensor(4, kFpQ)
	if err != nil {
		return nil, err
	}
	if !sameElem(x, g) || !dimsCompatible(x.Dims, g.Dims) {
		return nil, c.errf("operand type %s and grad_output type %s differ", x, g)
	}
	f, err := c.batchNorm(x, []int{1, 2, 3})
	if err != nil {
		return nil, err
	}
	return []Type{x, f, f}, nil
}

func inferRng(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	a, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if a.Rank() != 0 || b.Rank() != 0 || a.DType != b.DType {
		return nil, c.errf("a %s and b %s must be 0-d tensors of one element type", a, b)
	}
	n, err := c.shapeOperand(2, "shape")
	if err != nil {
		return nil, err
	}
	dist, err := c.enum("rng_distribution", "")
	if err != nil {
		return nil, err
	}
	switch dist {
	case "UNIFORM":
	case "NORMAL":
		if !a.DType.IsFloat() {
			return nil, c.errf("NORMAL distribution needs floating-point bounds, got %s", a)
		}
	default:
		return nil, c.errf("rng_distribution %q is not UNIFORM or NORMAL", dist)
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if r.DType != a.DType || (n >= 0 && n != int64(r.Rank())) {
		return nil, c.errf("result type %s must have element type %s and rank %d", r, a.DType, n)
	}
	return []Type{r}, nil
}

func inferRngBitGenerator(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	s, err := c.kindTensor(0, kInt|kFloat)
	if err != nil {
		return nil, err
	}
	alg, err := c.enum("rng_algorithm", "DEFAULT")
	if err != nil {
		return nil, err
	}
	n := s.NumElements()
	if s.Rank() != 1 {
		return nil, c.errf("initial_state has type %s, want a 1-d tensor", s)
	}
	// The state is made of 64-bit words. IREE also takes four 32-bit
	// elements standing for two words (of either algorithm).
	if s.DType.Bits() == 32 {
		if n >= 0 && n != 4 {
			return nil, c.errf("an initial_state of 32-bit elements needs 4 of them (two 64-bit words), got %s", s)
		}
		n = 2
	}
	switch alg {
	case "DEFAULT":
	case "THREE_FRY":
		if n >= 0 && n != 2 {
			return nil, c.errf("THREE_FRY needs an initial_state of 2 elements, got %s", s)
		}
	case "PHILOX":
		if n >= 0 && n != 2 && n != 3 {
			return nil, c.errf("PHILOX needs an initial_state of 2 or 3 elements, got %s", s)
		}
	default:
		return nil, c.errf("rng_algorithm %q is not DEFAULT, THREE_FRY or PHILOX", alg)
	}
	out := c.givenType(1)
	if out == nil {
		return nil, c.errf("output type required (it cannot be inferred from %s)", s)
	}
	o, ok := out.(*TensorType)
	if !ok || elemKindOf(o)&(kInt|kFloat) == 0 {
		return nil, c.errf("output has type %s, want a tensor of integer or floating-point type", out)
	}
	return []Type{s, o}, nil
}
