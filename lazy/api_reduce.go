package lazy

import "sort"

// normAxes normalises and sorts axes (all axes when none are given). A
// 0-d x takes axis 0 (or -1) once, as in PyTorch: a reduction over it is
// one over no axes.
func (x *Tensor) normAxes(op string, axes []int) []int64 {
	needTensors(op, "x", x)
	r := x.Rank()
	if len(axes) == 0 {
		out := make([]int64, r)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	seen := map[int]bool{}
	out := make([]int64, 0, len(axes))
	for _, a := range axes {
		n := needAxis(op, a, r, x)
		if seen[n] {
			throw(op, []Shape{x.shape}, "axis %d repeated in %v", a, axes)
		}
		seen[n] = true
		if r > 0 {
			out = append(out, int64(n))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (x *Tensor) reduce(code opCode, keep bool, axes []int) *Tensor {
	ax := x.normAxes(table[code].Name, axes)
	y := apply1(code, Attrs{{"axes", ax}}, x)
	if keep {
		y = y.Reshape(keptShape(x.Dims(), ax)...)
	}
	return y
}

// accType is the type reductions of dt accumulate in: f32 for f16 and
// bf16 (as PyTorch and XLA do), dt itself otherwise.
func accType(dt DType) DType {
	if dt == F16 || dt == BF16 {
		return F32
	}
	return dt
}

// inAcc computes f on x converted to its accumulation type and rounds the
// result once to x's type.
func inAcc(x *Tensor, f func(x *Tensor) *Tensor) *Tensor {
	if x == nil {
		return f(x)
	}
	dt := x.DType()
	if at := accType(dt); at != dt {
		return f(x.Cast(at)).Cast(dt)
	}
	return f(x)
}

// sumType is the result type of a sum or product of dt: i64 for bool and
// integer types (u64 stays u64), as torch.sum.
func sumType(dt DType) DType {
	switch {
	case dt == U64:
		return U64
	case dt.IsInt() || dt.IsBool():
		return I64
	}
	return dt
}

// accumulate reduces x with code over axes: integers in sumType, f16 and
// bf16 in f32 rounded once.
func (x *Tensor) accumulate(code opCode, keep bool, axes []int) *Tensor {
	x.normAxes(table[code].Name, axes) // before the casts
	return inAcc(x.Cast(sumType(x.DType())), func(x *Tensor) *Tensor { return x.reduce(code, keep, axes) })
}

// Sum sums over axes (all when none). Bool and integer tensors sum to i64;
// f16 and bf16 accumulate in f32.
func (x *Tensor) Sum(axes ...int) *Tensor { return x.accumulate(opReduceSum, false, axes) }

// SumKeepDims sums over axes keeping them as size 1.
func (x *Tensor) SumKeepDims(axes ...int) *Tensor { return x.accumulate(opReduceSum, true, axes) }

// Prod multiplies over axes (types as Sum).
func (x *Tensor) Prod(axes ...int) *Tensor { return x.accumulate(opReduceProd, false, axes) }

// ProdKeepDims is Prod keeping the axes as size 1.
func (x *Tensor) ProdKeepDims(axes ...int) *Tensor { return x.accumulate(opReduceProd, true, axes) }

// ReduceMax is the maximum over axes (torch.amax: an empty axis is an
// error, it has no maximum).
func (x *Tensor) ReduceMax(axes ...int) *Tensor { return x.extremum(opReduceMax, false, axes) }

// ReduceMaxKeepDims is ReduceMax keeping the axes.
func (x *Tensor) ReduceMaxKeepDims(axes ...int) *Tensor { return x.extremum(opReduceMax, true, axes) }

// ReduceMin is the minimum over axes (an empty axis is an error).
func (x *Tensor) ReduceMin(axes ...int) *Tensor { return x.extremum(opReduceMin, false, axes) }

// ReduceMinKeepDims is ReduceMin keeping the axes.
func (x *Tensor) ReduceMinKeepDims(axes ...int) *Tensor { return x.extremum(opReduceMin, true, axes) }

func (x *Tensor) extremum(code opCode, keep bool, axes []int) *Tensor {
	if x != nil {
		noOrder(table[code].Name, x.DType(), x)
	}
	for _, a := range x.normAxes(table[code].Name, axes) {
		if x.Dims()[a] == 0 {
			throw(table[code].Name, []Shape{x.shape}, "reduction over axis %d of size 0 has no result", a)
		}
	}
	return x.reduce(code, keep, axes)
}

// Mean averages over axes (f16 and bf16 in f32, rounded once).
func (x *Tensor) Mean(axes ...int) *Tensor {
	n := x.countOver("Mean", axes)
	return inAcc(x, func(x *Tensor) *Tensor { return x.Sum(axes...).DivScalar(float64(n)) })
}

// MeanKeepDims averages over axes keeping them.
func (x *Tensor) MeanKeepDims(axes ...int) *Tensor {
	n := x.countOver("MeanKeepDims", axes)
	return inAcc(x, func(x *Tensor) *Tensor { return x.SumKeepDims(axes...).DivScalar(float64(n)) })
}

// countOver is the number of elements a mean over axes averages. Means
// need a floating-point tensor, as torch.mean.
func (x *Tensor) countOver(op string, axes []int) int64 {
	needTensors(op, "x", x)
	if !floating.accepts(x.DType()) {
		throw(op, []Shape{x.shape}, "needs a floating-point tensor, got %s (use Cast)", x.DType())
	}
	n := int64(1)
	for _, a := range x.normAxes(op, axes) {
		n *= x.Dims()[a]
	}
	return n
}

// Var is the biased variance over axes (torch.var with unbiased=False);
// f16 and bf16 compute in f32; a complex tensor's is the real mean of
// |x - mean|².
func (x *Tensor) Var(axes ...int) *Tensor { return x.variance("Var", false, axes) }

// VarKeepDims is Var keeping the axes as size 1.
func (x *Tensor) VarKeepDims(axes ...int) *Tensor { return x.variance("VarKeepDims", true, axes) }

func (x *Tensor) variance(op string, keep bool, axes []int) *Tensor {
	x.countOver(op, axes) // before the casts
	defer relabel(op, x)()
	return inAcc(x, func(x *Tensor) *Tensor {
		d := x.Sub(x.MeanKeepDims(axes...))
		if d.DType().IsComplex() {
			// The mean of |d|², real, as torch.var of a complex tensor (d² is
			// not a variance).
			d = d.Abs()
		}
		if keep {
			return d.Square().MeanKeepDims(axes...)
		}
		return d.Square().Mean(axes...)
	})
}

func (x *Tensor) arg(code opCode, axis int, keep bool) *Tensor {
	op := table[code].Name
	needTensors(op, "x", x)
	a := needAxis(op, axis, x.Rank(), x)
	if x.Rank() == 0 { // the index 0 of the only element (keeping no axis)
		return onVectors(op, []*Tensor{x}, func(v []*Tensor) []*Tensor { return []*Tensor{v[0].arg(code, 0, false)} })[0]
	}
	y := apply1(code, Attrs{{"axis", int64(a)}}, x)
	if keep {
		y = y.Unsqueeze(a)
	}
	return y
}

// ArgMax returns the i64 index of the maximum along axis (first one on
// ties; NaN counts as the maximum).
func (x *Tensor) ArgMax(axis int) *Tensor { return x.arg(opArgMax, axis, false) }

// ArgMaxKeepDims is ArgMax keeping axis as size 1.
func (x *Tensor) ArgMaxKeepDims(axis int) *Tensor { return x.arg(opArgMax, axis, true) }

// ArgMin returns the i64 index of the minimum along axis.
func (x *Tensor) ArgMin(axis int) *Tensor { return x.arg(opArgMin, axis, false) }

// ArgMinKeepDims is ArgMin keeping axis as size 1.
func (x *Tensor) ArgMinKeepDims(axis int) *Tensor { return x.arg(opArgMin, axis, true) }

// LogSumExp computes log(sum(exp(x))) over axes, stably (f16 and bf16 in
// f32; integer and bool tensors in f32).
func (x *Tensor) LogSumExp(axes ...int) *Tensor { return x.logSumExp("LogSumExp", false, axes) }

// LogSumExpKeepDims is LogSumExp keeping the axes as size 1.
func (x *Tensor) LogSumExpKeepDims(axes ...int) *Tensor {
	return x.logSumExp("LogSumExpKeepDims", true, axes)
}

func (x *Tensor) logSumExp(op string, keep bool, axes []int) *Tensor {
	needTensors(op, "x", x)
	x.normAxes(op, axes)
	if x.DType().IsComplex() {
		throw(op, []Shape{x.shape}, "needs a real tensor, got %s", x.DType())
	}
	defer relabel(op, x)()
	x = x.Cast(floatResult(x.DType()))
	return inAcc(x, func(x *Tensor) *Tensor {
		m := x.finiteMaxKeepDims(axes...)
		s := x.Sub(m).Exp().SumKeepDims(axes...).Log().Add(m)
		if keep {
			return s
		}
		return s.Squeeze(int64sToInts(x.normAxes(op, axes))...)
	})
}

// finiteMaxKeepDims is the maximum over axes, 0 where it is not finite
// (an all -inf lane would give NaN from -inf - -inf).
func (x *Tensor) finiteMaxKeepDims(axes ...int) *Tensor {
	m := x.reduce(opReduceMax, true, axes)
	return Where(m.IsFinite(), m, ZerosLike(m))
}
