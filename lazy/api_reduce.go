package lazy

import "sort"

// normAxes normalises and sorts axes (all axes when none are given).
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
		n, ok := normAxis(a, r)
		if !ok || seen[n] {
			throw(op, []Shape{x.shape}, "bad or repeated axis %d for rank %d", a, r)
		}
		seen[n] = true
		out = append(out, int64(n))
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

// Sum sums over axes (all when none).
func (x *Tensor) Sum(axes ...int) *Tensor { return x.reduce(opReduceSum, false, axes) }

// SumKeepDims sums over axes keeping them as size 1.
func (x *Tensor) SumKeepDims(axes ...int) *Tensor { return x.reduce(opReduceSum, true, axes) }

// Prod multiplies over axes.
func (x *Tensor) Prod(axes ...int) *Tensor { return x.reduce(opReduceProd, false, axes) }

// ReduceMax is the maximum over axes.
func (x *Tensor) ReduceMax(axes ...int) *Tensor { return x.reduce(opReduceMax, false, axes) }

// ReduceMaxKeepDims is ReduceMax keeping the axes.
func (x *Tensor) ReduceMaxKeepDims(axes ...int) *Tensor { return x.reduce(opReduceMax, true, axes) }

// ReduceMin is the minimum over axes.
func (x *Tensor) ReduceMin(axes ...int) *Tensor { return x.reduce(opReduceMin, false, axes) }

// ReduceMinKeepDims is ReduceMin keeping the axes.
func (x *Tensor) ReduceMinKeepDims(axes ...int) *Tensor { return x.reduce(opReduceMin, true, axes) }

// Mean averages over axes.
func (x *Tensor) Mean(axes ...int) *Tensor {
	n := x.countOver("Mean", axes)
	return x.Sum(axes...).DivScalar(float64(n))
}

// MeanKeepDims averages over axes keeping them.
func (x *Tensor) MeanKeepDims(axes ...int) *Tensor {
	n := x.countOver("MeanKeepDims", axes)
	return x.SumKeepDims(axes...).DivScalar(float64(n))
}

// countOver is the number of elements a mean over axes averages. Means
// need a floating-point tensor: an integer mean would truncate silently.
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

// Var is the (biased) variance over axes, keeping them when keep is set.
func (x *Tensor) Var(keep bool, axes ...int) *Tensor {
	needTensors("Var", "x", x)
	defer relabel("Var", x)()
	d := x.Sub(x.MeanKeepDims(axes...))
	if keep {
		return d.Square().MeanKeepDims(axes...)
	}
	return d.Square().Mean(axes...)
}

func (x *Tensor) arg(code opCode, axis int, keep bool) *Tensor {
	needTensors(table[code].Name, "x", x)
	a, ok := normAxis(axis, x.Rank())
	if !ok {
		throw(table[code].Name, []Shape{x.shape}, "axis %d out of range", axis)
	}
	y := apply1(code, Attrs{{"axis", int64(a)}}, x)
	if keep {
		y = y.Unsqueeze(a)
	}
	return y
}

// ArgMax returns the i64 index of the maximum along axis (first one on
// ties; NaN counts as the maximum).
func (x *Tensor) ArgMax(axis int, keep bool) *Tensor { return x.arg(opArgMax, axis, keep) }

// ArgMin returns the i64 index of the minimum along axis.
func (x *Tensor) ArgMin(axis int, keep bool) *Tensor { return x.arg(opArgMin, axis, keep) }

// LogSumExp computes log(sum(exp(x))) over axes, stably.
func (x *Tensor) LogSumExp(keep bool, axes ...int) *Tensor {
	needTensors("LogSumExp", "x", x)
	x.normAxes("LogSumExp", axes)
	needRealFloat("LogSumExp", x)
	defer relabel("LogSumExp", x)()
	m := x.ReduceMaxKeepDims(axes...)
	// A -inf maximum (all -inf) would give NaN from -inf - -inf: use 0 there.
	m = Where(m.IsFinite(), m, ZerosLike(m))
	s := x.Sub(m).Exp().SumKeepDims(axes...).Log().Add(m)
	if keep {
		return s
	}
	return s.Squeeze(int64sToInts(x.normAxes("LogSumExp", axes))...)
}
