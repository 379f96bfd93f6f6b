package lazy

import (
	"fmt"
	"math"
	"slices"
)

// MatMul is numpy's matmul: [..., m, k] x [..., k, n] -> [..., m, n], with
// broadcast batch dimensions; 1-D operands are treated as a row or column.
func (x *Tensor) MatMul(y *Tensor) *Tensor {
	needTensors("MatMul", "x,y", x, y)
	in := []Shape{x.shape, y.shape}
	if x.Rank() < 1 || y.Rank() < 1 {
		throw("MatMul", in, "operands must have rank >= 1")
	}
	if x.DType() != y.DType() {
		throw("MatMul", in, "element types differ (%s vs %s); use Cast", x.DType(), y.DType())
	}
	kx := x.Dims()[x.Rank()-1]
	ky := y.Dims()[max(y.Rank()-2, 0)]
	if kx != ky {
		throw("MatMul", in, "inner dimensions differ (%d vs %d)", kx, ky)
	}
	defer relabel("MatMul", x, y)()
	if !x.isDry() {
		dryRun(func() { x.dry().MatMul(y.dry()) })
	}
	a, b := x, y
	squeezeA, squeezeB := a.Rank() == 1, b.Rank() == 1
	if squeezeA {
		a = a.Unsqueeze(0)
	}
	if squeezeB {
		b = b.Unsqueeze(1)
	}
	var out *Tensor
	if b.Rank() == 2 && a.Rank() > 2 {
		// [..., m, k] x [k, n]: fold the batch into m.
		lead := a.Dims()[:a.Rank()-1]
		k := a.Dims()[a.Rank()-1]
		// The row count, not -1: with k = 0 there are no elements to
		// infer it from.
		rows := int64(1)
		for _, d := range lead {
			rows *= d
		}
		flat := dotGeneral(a.Reshape(rows, k), b, dotDims{lc: []int64{1}, rc: []int64{0}})
		out = flat.Reshape(append(append([]int64(nil), lead...), b.Dims()[1])...)
	} else {
		ba, bb := a.Dims()[:a.Rank()-2], b.Dims()[:b.Rank()-2]
		batch, ok := broadcastDims(ba, bb)
		if !ok {
			throw("MatMul", []Shape{x.shape, y.shape}, "batch dimensions %v and %v do not broadcast", ba, bb)
		}
		a = a.BroadcastTo(append(append([]int64(nil), batch...), a.Dims()[a.Rank()-2:]...)...)
		b = b.BroadcastTo(append(append([]int64(nil), batch...), b.Dims()[b.Rank()-2:]...)...)
		nb := int64(len(batch))
		out = dotGeneral(a, b, dotDims{lb: seq(0, nb), rb: seq(0, nb), lc: []int64{nb + 1}, rc: []int64{nb}})
	}
	if squeezeA {
		out = out.Squeeze(out.Rank() - 2)
	}
	if squeezeB {
		out = out.Squeeze(out.Rank() - 1)
	}
	return out
}

// Linear computes y = x·wᵀ + b with the weight laid out [out, in] as in
// PyTorch (torch.nn.functional.linear; nn.Linear stores its weight the same
// way): x is [..., in], b is [out] or nil, y is [..., out]. x, w and b must
// have one element type (no promotion, as F.linear).
func Linear(x, w, b *Tensor) *Tensor {
	needTensors("Linear", "x,w", x, w)
	defer relabel("Linear", x, w, b)()
	if w.Rank() != 2 {
		throw("Linear", shapesOf([]*Tensor{x, w, b}), "weight must be 2-D [out, in]")
	}
	needSameType("Linear", "bias", x, b, x, w, b)
	if !x.isDry() {
		dryRun(func() { Linear(x.dry(), w.dry(), b.dry()) })
	}
	y := x.MatMul(w.T())
	if b != nil {
		y = y.Add(b)
	}
	return y
}

// Softmax normalises exp(x) along axis (f16 and bf16 compute in f32 and
// round once).
func (x *Tensor) Softmax(axis int) *Tensor {
	needTensors("Softmax", "x", x)
	needAxis("Softmax", axis, x.Rank(), x)
	needRealFloat("Softmax", x)
	defer relabel("Softmax", x)()
	return inAcc(x, func(x *Tensor) *Tensor {
		e := x.Sub(x.reduce(opReduceMax, true, []int{axis})).Exp()
		return e.Div(e.SumKeepDims(axis))
	})
}

// LogSoftmax is log(Softmax(x)), computed as (x - m) - log(sum(exp(x - m)))
// with m the maximum along axis, so that large logits keep their
// differences (f16 and bf16 compute in f32 and round once).
func (x *Tensor) LogSoftmax(axis int) *Tensor {
	needTensors("LogSoftmax", "x", x)
	needAxis("LogSoftmax", axis, x.Rank(), x)
	needRealFloat("LogSoftmax", x)
	defer relabel("LogSoftmax", x)()
	return inAcc(x, func(x *Tensor) *Tensor { return x.logSoftmax(axis) })
}

func (x *Tensor) logSoftmax(axis int) *Tensor {
	// An all -inf lane takes 0 for its maximum (NaN either way, as in
	// PyTorch); a +inf maximum stays, so that its lane is NaN as
	// PyTorch's (x - m is inf - inf there), not -inf beside a NaN.
	m := x.reduce(opReduceMax, true, []int{axis})
	m = Where(m.EqScalar(math.Inf(-1)), ZerosLike(m), m)
	d := x.Sub(m)
	return d.Sub(d.Exp().SumKeepDims(axis).Log())
}

// LayerNorm normalises over the last normalized axes and applies weight and
// bias (either may be nil; of x's element type and exactly the normalised
// shape, as F.layer_norm).
func LayerNorm(x *Tensor, normalized int, weight, bias *Tensor, eps float64) *Tensor {
	needTensors("LayerNorm", "x", x)
	if normalized < 1 || normalized > x.Rank() {
		throw("LayerNorm", []Shape{x.shape}, "cannot normalise over the last %d axes", normalized)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		throw("LayerNorm", shapesOf([]*Tensor{x, weight, bias}), "eps = %v must be finite and not negative", eps)
	}
	needRealFloat("LayerNorm", x)
	needSameType("LayerNorm", "weight", x, weight, x, weight, bias)
	needSameType("LayerNorm", "bias", x, bias, x, weight, bias)
	norm := x.Dims()[x.Rank()-normalized:]
	for _, p := range []struct {
		what string
		t    *Tensor
	}{{"weight", weight}, {"bias", bias}} {
		// Exactly the normalised shape, as F.layer_norm requires (a
		// broadcasting [1] or [1, n] is refused there too).
		if p.t != nil && !slices.Equal(p.t.Dims(), norm) {
			throw("LayerNorm", shapesOf([]*Tensor{x, weight, bias}), "%s of shape %v must have the normalised shape %v", p.what, p.t.Dims(), norm)
		}
	}
	defer relabel("LayerNorm", x, weight, bias)()
	if !x.isDry() {
		dryRun(func() { LayerNorm(x.dry(), normalized, weight.dry(), bias.dry(), eps) })
	}
	axes := make([]int, normalized)
	for i := range axes {
		axes[i] = x.Rank() - normalized + i
	}
	// f16 and bf16 compute in f32 (weight and bias too) and round once.
	return inAcc(x, func(xa *Tensor) *Tensor {
		mu := xa.MeanKeepDims(axes...)
		d := xa.Sub(mu)
		v := d.Square().MeanKeepDims(axes...)
		y := d.Mul(v.AddScalar(eps).Rsqrt())
		if weight != nil {
			y = y.Mul(weight.Cast(accType(weight.DType())))
		}
		if bias != nil {
			y = y.Add(bias.Cast(accType(bias.DType())))
		}
		return y
	})
}

// Conv2dOpts configures Conv2d (zero values mean stride 1, no padding,
// dilation 1, one group).
type Conv2dOpts struct {
	Stride, Padding, Dilation [2]int64
	Groups                    int64
}

// Conv2d convolves x [N, C, H, W] (or an unbatched [C, H, W], as F.conv2d
// takes) with w [O, C/groups, kH, kW] (O > 0) and adds b [O] (nil: none;
// of x's element type, as F.conv2d). Stride, padding, dilation and groups
// must not be negative; the dilated kernel must fit in the padded input.
func Conv2d(x, w, b *Tensor, o Conv2dOpts) *Tensor {
	needTensors("Conv2d", "x,w", x, w)
	if x.Rank() == 3 {
		return x.unbatched(func(x4 *Tensor) *Tensor { return Conv2d(x4, w.dry(), b.dry(), o) },
			func(x4 *Tensor) *Tensor { return Conv2d(x4, w, b, o) })
	}
	in := shapesOf([]*Tensor{x, w, b})
	for i := 0; i < 2; i++ {
		if o.Stride[i] < 0 || o.Padding[i] < 0 || o.Dilation[i] < 0 {
			throw("Conv2d", in, "stride %v, padding %v and dilation %v must not be negative", o.Stride, o.Padding, o.Dilation)
		}
	}
	if o.Groups < 0 {
		throw("Conv2d", in, "groups = %d must not be negative", o.Groups)
	}
	one := func(v int64) int64 {
		if v == 0 {
			return 1
		}
		return v
	}
	g := o.Groups
	if g == 0 {
		g = 1
	}
	p := convParams{
		strides: []int64{one(o.Stride[0]), one(o.Stride[1])},
		padLo:   []int64{o.Padding[0], o.Padding[1]}, padHi: []int64{o.Padding[0], o.Padding[1]},
		lhsDil: []int64{1, 1}, rhsDil: []int64{one(o.Dilation[0]), one(o.Dilation[1])},
		groups: g, batchGroups: 1,
		spec: convSpec{lhs: []int64{0, 1, 2, 3}, rhs: []int64{0, 1, 2, 3}, out: []int64{0, 1, 2, 3}},
	}
	if x.Rank() != 4 || w.Rank() != 4 {
		throw("Conv2d", in, "input must be 4-D (NCHW) or 3-D (CHW), and the kernel 4-D (OIHW)")
	}
	if w.Dims()[0] == 0 {
		throw("Conv2d", in, "kernel has no output channels (want at least 1 on axis 0)")
	}
	if b != nil && (b.Rank() != 1 || b.Dims()[0] != w.Dims()[0]) {
		throw("Conv2d", in, "bias must be 1-D with one entry per output channel (%d)", w.Dims()[0])
	}
	needSameType("Conv2d", "bias", x, b, x, w, b)
	for i := 0; i < 2; i++ {
		if w.Dims()[2+i] == 0 {
			throw("Conv2d", in, "kernel has an empty spatial axis %v", w.Dims()[2:])
		}
		span, ok1 := mulDims(w.Dims()[2+i]-1, p.rhsDil[i]) // dilated kernel size - 1
		padded, ok2 := addDims(x.Dims()[2+i], p.padLo[i])
		padded, ok3 := addDims(padded, p.padHi[i])
		if !ok1 || !ok2 || !ok3 || span >= padded {
			throw("Conv2d", in, "kernel %v (dilation %v) is larger than the padded input %v (padding %v)",
				w.Dims()[2:], p.rhsDil, x.Dims()[2:], o.Padding) // the dilation in effect (0 means 1)
		}
	}
	defer relabel("Conv2d", x, w, b)()
	if !x.isDry() {
		dryRun(func() { Conv2d(x.dry(), w.dry(), b.dry(), o) })
	}
	y := conv(x, w, p)
	if b != nil {
		y = y.Add(b.Reshape(1, -1, 1, 1))
	}
	return y
}

func (x *Tensor) pool2d(op, kind string, kernel, stride, pad [2]int64) *Tensor {
	w := x.poolWindow(op, kind, kernel, stride, pad)
	defer relabel(op, x)()
	return apply1(opReduceWindow, w.attrs(), x)
}

// poolWindow checks a pooling's arguments (recording nothing) and returns
// its window.
func (x *Tensor) poolWindow(op, kind string, kernel, stride, pad [2]int64) windowParams {
	needTensors(op, "x", x)
	if x.Rank() != 4 {
		throw(op, []Shape{x.shape}, "input must be 4-D (NCHW) or 3-D (CHW)")
	}
	if kind == "sum" {
		needRealFloat(op, x)
	} else if x.DType().IsBool() || x.DType().IsComplex() {
		throw(op, []Shape{x.shape}, "needs a real numeric tensor, got %s", x.DType())
	}
	if stride == [2]int64{} {
		stride = kernel
	}
	if kernel[0] < 1 || kernel[1] < 1 || stride[0] < 1 || stride[1] < 1 || pad[0] < 0 || pad[1] < 0 {
		throw(op, []Shape{x.shape}, "kernel %v and stride %v must be positive, padding %v not negative", kernel, stride, pad)
	}
	for i := 0; i < 2; i++ {
		if pad[i] > kernel[i]/2 {
			throw(op, []Shape{x.shape}, "padding %v must be at most half the kernel %v", pad, kernel)
		}
		if padded, ok := addDims(x.Dims()[2+i], 2*pad[i]); ok && kernel[i] > padded {
			throw(op, []Shape{x.shape}, "kernel %v is larger than the padded input %v (padding %v)", kernel, x.Dims()[2:], pad)
		}
	}
	return windowParams{kind, []int64{1, 1, kernel[0], kernel[1]}, []int64{1, 1, stride[0], stride[1]},
		[]int64{0, 0, pad[0], pad[1]}, []int64{0, 0, pad[0], pad[1]}}
}

// unbatched applies a function of NCHW tensors to an unbatched x [C, H, W]
// as to [1, C, H, W], and drops the batch axis again (PyTorch's 2-d
// convolution and pooling take both forms). dry is the same function over
// stand-ins of its other operands: it runs first, so that a call that
// fails records nothing.
func (x *Tensor) unbatched(dry, f func(x4 *Tensor) *Tensor) *Tensor {
	if !x.isDry() {
		func() {
			x4 := x.dry().Unsqueeze(0)
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				// The error names the caller's [C, H, W], not [1, C, H, W].
				if e, ok := r.(*Error); ok && len(e.Shapes) > 0 && e.Shapes[0] == x4.shape.String() {
					c := *e
					c.Shapes = append([]string{x.shape.String()}, e.Shapes[1:]...)
					panic(&c)
				}
				panic(r)
			}()
			dryRun(func() { dry(x4) })
		}()
	}
	return f(x.Unsqueeze(0)).Squeeze(0)
}

// MaxPool2d takes the maximum over kernel windows of x [N, C, H, W] (or
// [C, H, W]; stride {0, 0} means stride = kernel); padding never wins.
// Padding is at most half the kernel, and the kernel must fit in the
// padded input.
func (x *Tensor) MaxPool2d(kernel, stride, pad [2]int64) *Tensor {
	if x != nil && x.Rank() == 3 {
		f := func(x4 *Tensor) *Tensor { return x4.MaxPool2d(kernel, stride, pad) }
		return x.unbatched(f, f)
	}
	return x.pool2d("MaxPool2d", "max", kernel, stride, pad)
}

// AvgPool2d averages over kernel windows (padding counts as zeros; f16
// and bf16 sum in f32) of a floating-point x [N, C, H, W] or [C, H, W].
func (x *Tensor) AvgPool2d(kernel, stride, pad [2]int64) *Tensor {
	if x != nil && x.Rank() == 3 {
		f := func(x4 *Tensor) *Tensor { return x4.AvgPool2d(kernel, stride, pad) }
		return x.unbatched(f, f)
	}
	x.poolWindow("AvgPool2d", "sum", kernel, stride, pad) // before the casts
	return inAcc(x, func(x *Tensor) *Tensor {
		return x.pool2d("AvgPool2d", "sum", kernel, stride, pad).DivScalar(float64(kernel[0] * kernel[1]))
	})
}

// IgnoreIndex is the label CrossEntropy leaves out of its mean
// (PyTorch's default ignore_index).
const IgnoreIndex = -100

// CrossEntropy is the mean negative log-likelihood of integer labels [N]
// under logits [N, C], over the labels that are not IgnoreIndex (NaN when
// all are). A label outside [0, C) that is not IgnoreIndex is an error of
// the cut that computes the loss.
func CrossEntropy(logits, labels *Tensor) *Tensor {
	needTensors("CrossEntropy", "logits,labels", logits, labels)
	if logits.Rank() != 2 || labels.Rank() != 1 || labels.Dims()[0] != logits.Dims()[0] || !labels.DType().IsInt() {
		throw("CrossEntropy", []Shape{logits.shape, labels.shape}, "want logits [N, C] and integer labels [N]")
	}
	if logits.Dims()[1] == 0 && logits.Dims()[0] > 0 {
		throw("CrossEntropy", []Shape{logits.shape, labels.shape}, "no classes (C = 0) for %d labels", logits.Dims()[0])
	}
	needRealFloat("CrossEntropy", logits)
	defer relabel("CrossEntropy", logits, labels)()
	if !logits.isDry() {
		dryRun(func() { CrossEntropy(logits.dry(), labels.dry()) })
	}
	c := logits.Dims()[1]
	keep := labels.NeScalar(IgnoreIndex)
	if labels.DType().IsUnsigned() { // no unsigned label is IgnoreIndex
		keep = FullOn(labels.dev, Bool, 1, labels.Dims()...)
	}
	ok := labels.GeScalar(0).And(labels.LtScalar(float64(c))).Or(keep.Not())
	safe := Where(keep, labels, ZerosLike(labels))
	safe = checked(safe, ok, "CrossEntropy", fmt.Sprintf("class label out of range (labels must be in [0, %d) or %d)", c, IgnoreIndex), logits, labels)
	return inAcc(logits, func(lg *Tensor) *Tensor {
		lp := lg.logSoftmax(1)
		picked := apply1(opTakeAlong, Attrs{{"axis", int64(1)}}, lp, safe.Unsqueeze(1)).Reshape(-1)
		picked = Where(keep, picked, ZerosLike(picked))
		return picked.Sum().Neg().Div(keep.Cast(lp.DType()).Sum())
	})
}

// OneHot encodes integer indices as dt vectors of length n (a new last
// axis). An index outside [0, n) is an error of the cut that computes it
// (as torch.nn.functional.one_hot raises).
func OneHot(idx *Tensor, n int64, dt DType) *Tensor {
	needTensors("OneHot", "idx", idx)
	if !idx.DType().IsInt() {
		throw("OneHot", []Shape{idx.shape}, "indices must be integers")
	}
	if n < 1 {
		throw("OneHot", []Shape{idx.shape}, "n = %d classes: want at least 1 (the class count is not inferred from the data)", n)
	}
	needDType("OneHot", []Shape{idx.shape}, dt)
	defer relabel("OneHot", idx)()
	if !idx.isDry() {
		dryRun(func() { OneHot(idx.dry(), n, dt) })
	}
	checkedIdx := checked(idx, idx.GeScalar(0).And(idx.LtScalar(float64(n))), "OneHot",
		fmt.Sprintf("index out of range (indices must be in [0, %d))", n), idx)
	dims := append(append([]int64(nil), idx.Dims()...), n)
	io := IotaOn(idx.dev, idx.DType(), idx.Rank(), dims...)
	return checkedIdx.Unsqueeze(-1).BroadcastTo(dims...).Eq(io).Cast(dt)
}

// Dropout zeroes elements with probability p (in [0, 1]) and scales the
// rest by 1/(1-p) when training; otherwise it returns x. It multiplies by
// the mask, as PyTorch does, so a dropped NaN or infinity gives NaN.
func (x *Tensor) Dropout(p float64, training bool) *Tensor {
	needTensors("Dropout", "x", x)
	if !(p >= 0 && p <= 1) {
		throw("Dropout", []Shape{x.shape}, "p = %v must be in [0, 1]", p)
	}
	if !training || p == 0 {
		return x
	}
	if _, ok := uniformBits[x.DType()]; !ok {
		throw("Dropout", []Shape{x.shape}, "needs a floating-point tensor (f64, f32, f16, bf16), got %s", x.DType())
	}
	defer relabel("Dropout", x)()
	if p == 1 {
		// Everything dropped: x times zero, as PyTorch computes it (a NaN
		// or infinite element gives NaN), and no random draw.
		return x.MulScalar(0)
	}
	// x times the 0/1 mask, then scaled, as PyTorch computes it: a dropped
	// NaN or infinite element gives NaN (and a dropped negative one -0).
	keep := RandUniformOn(x.dev, x.DType(), 0, 1, x.Dims()...).GeScalar(p)
	return x.Mul(keep.Cast(x.DType())).MulScalar(1 / (1 - p))
}

// Cumsum is the running sum along axis (types as Sum: i64 for integers,
// f16 and bf16 accumulated in f32).
func (x *Tensor) Cumsum(axis int) *Tensor {
	needTensors("Cumsum", "x", x)
	a := needAxis("Cumsum", axis, x.Rank(), x)
	if x.Rank() == 0 {
		return onVectors("Cumsum", []*Tensor{x}, func(v []*Tensor) []*Tensor { return []*Tensor{v[0].Cumsum(0).Reshape()} })[0]
	}
	return inAcc(x.Cast(sumType(x.DType())), func(x *Tensor) *Tensor {
		return apply1(opCumsum, Attrs{{"axis", int64(a)}, {"reverse", false}}, x)
	})
}

// Sort sorts along axis and returns the values and their i64 source
// indices (stable; NaN last ascending).
func (x *Tensor) Sort(axis int, descending bool) (values, indices *Tensor) {
	needTensors("Sort", "x", x)
	a := needAxis("Sort", axis, x.Rank(), x)
	if x.Rank() == 0 {
		r := onVectors("Sort", []*Tensor{x}, func(v []*Tensor) []*Tensor {
			s, i := v[0].Sort(0, descending)
			return []*Tensor{s.Reshape(), i.Reshape()}
		})
		return r[0], r[1]
	}
	r := apply(opSort, Attrs{{"axis", int64(a)}, {"descending", descending}}, x)
	return r[0], r[1]
}

// TopK returns the k largest values along the last axis and their indices
// (of a 0-d x, for k = 0 or 1, x and index 0, as torch.topk).
func (x *Tensor) TopK(k int64) (values, indices *Tensor) {
	needTensors("TopK", "x", x)
	n := int64(1) // a 0-d x as one element along its last axis
	if x.Rank() > 0 {
		n = x.Dim(-1)
	}
	if k < 0 || k > n {
		throw("TopK", []Shape{x.shape}, "k = %d out of range (want 0..%d)", k, n)
	}
	defer relabel("TopK", x)()
	if !x.isDry() {
		dryRun(func() { x.dry().TopK(k) })
	}
	v, i := x.Sort(-1, true)
	if x.Rank() == 0 {
		return v, i
	}
	return v.Narrow(-1, 0, k), i.Narrow(-1, 0, k)
}

// TakeAlong is torch.gather: out[..., j, ...] = x[..., idx[..., j, ...], ...]
// along axis; idx has x's rank and may be smaller on the other axes (a 0-d
// x or idx counts as one of shape [1], as in torch.gather). An index
// outside [0, size) is an error of the cut that computes the result.
func (x *Tensor) TakeAlong(axis int, idx *Tensor) *Tensor {
	needTensors("TakeAlong", "x,idx", x, idx)
	if (x.Rank() == 0 || idx.Rank() == 0) && max(x.Rank(), idx.Rank()) <= 1 {
		needAxis("TakeAlong", axis, x.Rank(), x, idx)
		return onVectors("TakeAlong", []*Tensor{x, idx}, func(v []*Tensor) []*Tensor {
			return []*Tensor{v[0].TakeAlong(0, v[1]).Reshape(idx.Dims()...)}
		})[0]
	}
	if idx.Rank() != x.Rank() {
		throw("TakeAlong", []Shape{x.shape, idx.shape}, "indices of rank %d for an operand of rank %d (want the same rank)", idx.Rank(), x.Rank())
	}
	a := needAxis("TakeAlong", axis, x.Rank(), x, idx)
	narrowed := append([]int64(nil), x.Dims()...)
	for d := 0; d < x.Rank(); d++ {
		if d != a && idx.Dims()[d] > x.Dims()[d] {
			throw("TakeAlong", []Shape{x.shape, idx.shape}, "indices are larger than the operand on axis %d (%d > %d)", d, idx.Dims()[d], x.Dims()[d])
		}
		if d != a {
			narrowed[d] = idx.Dims()[d]
		}
	}
	inferOut(table[opTakeAlong], Attrs{{"axis", int64(a)}}, []Shape{{DType: x.DType(), Dims: narrowed}, idx.shape})
	defer relabel("TakeAlong", x, idx)()
	xs := x
	for d := 0; d < x.Rank(); d++ {
		if d != a && idx.Dims()[d] < x.Dims()[d] {
			xs = xs.Narrow(d, 0, idx.Dims()[d])
		}
	}
	return apply1(opTakeAlong, Attrs{{"axis", int64(a)}}, xs, checkIndex("TakeAlong", idx, x.Dims()[a], a, x, idx))
}

// needSameType checks that the optional operand t (named what) has x's
// element type: PyTorch's linear, conv2d and layer_norm do not promote
// their weights and biases. operands are the call's, named in the error.
func needSameType(op, what string, x, t *Tensor, operands ...*Tensor) {
	if t != nil && t.DType() != x.DType() {
		throw(op, shapesOf(operands), "%s element type %s differs from the input's %s", what, t.DType(), x.DType())
	}
}

// checkIndex guards integer indices idx into an axis of size n: any index
// outside [0, n) fails the cut (PyTorch raises for index_select, gather and
// scatter_add).
func checkIndex(op string, idx *Tensor, n int64, axis int, operands ...*Tensor) *Tensor {
	if !idx.DType().IsInt() {
		return idx // the op's shape rule names the bad type
	}
	ok := idx.GeScalar(0).And(idx.LtScalar(float64(n)))
	return checked(idx, ok, op, fmt.Sprintf("index out of range (indices must be in [0, %d) along axis %d)", n, axis), operands...)
}

// ScatterAdd adds src into a copy of x at idx along axis (torch.scatter_add,
// where a 0-d operand counts as one of shape [1]; an index outside
// [0, size) is an error of the cut). idx may be smaller than src on any
// axis and than x on the others: only src's leading part of idx's shape is
// added, into x's leading part.
func (x *Tensor) ScatterAdd(axis int, idx, src *Tensor) *Tensor {
	needTensors("ScatterAdd", "x,idx,src", x, idx, src)
	if (x.Rank() == 0 || idx.Rank() == 0 || src.Rank() == 0) && max(x.Rank(), idx.Rank(), src.Rank()) <= 1 {
		needAxis("ScatterAdd", axis, x.Rank(), x, idx, src)
		return onVectors("ScatterAdd", []*Tensor{x, idx, src}, func(v []*Tensor) []*Tensor {
			return []*Tensor{v[0].ScatterAdd(0, v[1], v[2]).Reshape(x.Dims()...)}
		})[0]
	}
	a := needAxis("ScatterAdd", axis, x.Rank(), x, idx, src)
	in := []Shape{x.shape, idx.shape, src.shape}
	// The region idx covers: x's and src's leading parts of idx's shape.
	xd, sd := append([]int64(nil), x.Dims()...), append([]int64(nil), src.Dims()...)
	if idx.Rank() == x.Rank() && src.Rank() == x.Rank() {
		for d, n := range idx.Dims() {
			if n > sd[d] || (d != a && n > xd[d]) {
				throw("ScatterAdd", in, "indices %v must be no larger than src %v on every axis and than x %v on every axis but %d",
					idx.Dims(), src.Dims(), x.Dims(), a)
			}
			sd[d] = n
			if d != a {
				xd[d] = n
			}
		}
	}
	attrs := Attrs{{"axis", int64(a)}}
	if _, err := inferShapes(table[opScatterAddAlong], attrs, []Shape{{DType: x.DType(), Dims: xd}, idx.shape, {DType: src.DType(), Dims: sd}}); err != nil {
		throw("ScatterAdd", in, "%v", err)
	}
	defer relabel("ScatterAdd", x, idx, src)()
	idx = checkIndex("ScatterAdd", idx, x.Dims()[a], a, x, idx, src)
	xs, ss := x, src
	for d := range xd {
		if xd[d] < x.Dims()[d] {
			xs = xs.Narrow(d, 0, xd[d])
		}
		if sd[d] < src.Dims()[d] {
			ss = ss.Narrow(d, 0, sd[d])
		}
	}
	out := apply1(opScatterAddAlong, attrs, xs, idx, ss)
	if xs == x {
		return out
	}
	starts := make([]*Tensor, x.Rank())
	for d := range starts {
		starts[d] = FullOn(x.dev, I64, 0)
	}
	return x.DynamicUpdateSlice(out, starts)
}

// IndexSelect picks the entries idx (1-D integers, or a 0-d one, which
// picks one entry and keeps the axis with size 1) of axis (of a 0-d x,
// whose axis 0 has one entry, one index and a 0-d result, as
// torch.index_select). An index outside [0, size) is an error of the cut
// that computes the result (torch.index_select raises; negative indices do
// not count from the end).
func (x *Tensor) IndexSelect(axis int, idx *Tensor) *Tensor {
	needTensors("IndexSelect", "x,idx", x, idx)
	a := needAxis("IndexSelect", axis, x.Rank(), x, idx)
	if idx.Rank() > 1 || !idx.DType().IsInt() {
		throw("IndexSelect", []Shape{x.shape, idx.shape}, "want 0-d or 1-D integer indices, got %s", idx.shape)
	}
	if dt := idx.DType(); dt != I32 && dt != I64 {
		throw("IndexSelect", []Shape{x.shape, idx.shape}, "indices must be i32 or i64, got %s (as torch.index_select)", dt)
	}
	if idx.Rank() == 0 {
		// One index, as torch.index_select takes a 0-d one: the axis
		// keeps size 1.
		defer relabel("IndexSelect", x, idx)()
		return x.IndexSelect(axis, idx.Reshape(1))
	}
	if x.Rank() == 0 {
		if n := idx.Dims()[0]; n != 1 {
			throw("IndexSelect", []Shape{x.shape, idx.shape}, "a 0-d x takes one index, got %d", n)
		}
		return onVectors("IndexSelect", []*Tensor{x, idx}, func(v []*Tensor) []*Tensor {
			return []*Tensor{v[0].IndexSelect(0, v[1]).Reshape()}
		})[0]
	}
	dims := append([]int64(nil), x.Dims()...)
	dims[a] = idx.Dims()[0]
	shape := make([]int64, x.Rank())
	for i := range shape {
		shape[i] = 1
	}
	shape[a] = idx.Dims()[0]
	defer relabel("IndexSelect", x, idx)()
	if !x.isDry() {
		dryRun(func() { x.dry().IndexSelect(axis, idx.dry()) })
	}
	idx = checkIndex("IndexSelect", idx, x.Dims()[a], a, x, idx)
	return apply1(opTakeAlong, Attrs{{"axis", int64(a)}}, x, idx.Reshape(shape...).BroadcastTo(dims...))
}

// DynamicSlice takes sizes elements starting at run-time indices starts
// (integer scalars, clamped into range).
func (x *Tensor) DynamicSlice(starts []*Tensor, sizes []int64) *Tensor {
	needTensors("DynamicSlice", "x", x)
	needList("DynamicSlice", "starts", starts, true)
	in := []Shape{x.shape}
	in = append(in, indexShapes(starts)...)
	inferOut(table[opDynamicSlice], Attrs{{"sizes", sizes}}, in)
	return apply1(opDynamicSlice, Attrs{{"sizes", append([]int64(nil), sizes...)}}, append([]*Tensor{x}, sameIndexType(starts)...)...)
}

// DynamicUpdateSlice writes upd into a copy of x at run-time indices
// (clamped so that upd fits).
func (x *Tensor) DynamicUpdateSlice(upd *Tensor, starts []*Tensor) *Tensor {
	needTensors("DynamicUpdateSlice", "x,upd", x, upd)
	needList("DynamicUpdateSlice", "starts", starts, true)
	in := []Shape{x.shape, upd.shape}
	in = append(in, indexShapes(starts)...)
	inferOut(table[opDynamicUpdateSlice], nil, in)
	return apply1(opDynamicUpdateSlice, nil, append([]*Tensor{x, upd}, sameIndexType(starts)...)...)
}

// mixedIndexTypes reports integer start indices of more than one type,
// which sameIndexType casts to i64 (the StableHLO ops want one type).
func mixedIndexTypes(starts []*Tensor) bool {
	mixed := false
	for _, s := range starts {
		if !s.DType().IsInt() {
			return false // left for the shape rule
		}
		mixed = mixed || s.DType() != starts[0].DType()
	}
	return mixed
}

// indexShapes are the shapes of starts after sameIndexType (nothing is
// recorded: the shape rule checks them before the casts are made).
func indexShapes(starts []*Tensor) []Shape {
	mixed := mixedIndexTypes(starts)
	out := make([]Shape, len(starts))
	for i, s := range starts {
		out[i] = s.shape
		if mixed {
			out[i] = s.shape.with(I64)
		}
	}
	return out
}

// sameIndexType casts integer start indices of mixed types to i64.
func sameIndexType(starts []*Tensor) []*Tensor {
	if !mixedIndexTypes(starts) {
		return starts
	}
	out := make([]*Tensor, len(starts))
	for i, s := range starts {
		out[i] = s.Cast(I64)
	}
	return out
}

// NonZero returns the i64 coordinates [n, rank] of non-zero elements (runs
// on the host: its output shape depends on the data).
func (x *Tensor) NonZero() *Tensor {
	needTensors("NonZero", "x", x)
	return apply1(opNonZero, nil, x)
}

// Unique returns the sorted distinct values of x, flattened (host op).
func (x *Tensor) Unique() *Tensor {
	needTensors("Unique", "x", x)
	inferOut(table[opUnique], nil, []Shape{{DType: x.DType(), Dims: []int64{x.Size()}}})
	return apply1(opUnique, nil, x.Flatten())
}

// MaskedSelect returns the elements of x where mask is true, flattened,
// with x and mask broadcast together as in torch.masked_select
// (host op).
func (x *Tensor) MaskedSelect(mask *Tensor) *Tensor {
	needTensors("MaskedSelect", "x,mask", x, mask)
	if mask.DType() != Bool {
		throw("MaskedSelect", []Shape{x.shape, mask.shape}, "mask must be bool, got %s", mask.DType())
	}
	if !sameDims(x.Dims(), mask.Dims()) {
		// As torch.masked_select: x and mask broadcast together.
		d, ok := broadcastDims(x.Dims(), mask.Dims())
		if !ok {
			throw("MaskedSelect", []Shape{x.shape, mask.shape}, "mask shape %v does not broadcast with %v", mask.Dims(), x.Dims())
		}
		x, mask = x.BroadcastTo(d...), mask.BroadcastTo(d...)
	}
	return apply1(opMaskedSelect, nil, x, mask)
}

// GELU is the tanh approximation of the Gaussian error linear unit
// (f16 and bf16 compute in f32 and round once).
func (x *Tensor) GELU() *Tensor {
	needTensors("GELU", "x", x)
	needRealFloat("GELU", x)
	defer relabel("GELU", x)()
	return inAcc(x, func(x *Tensor) *Tensor {
		c := math.Sqrt(2 / math.Pi)
		inner := x.Add(x.Mul(x).Mul(x).MulScalar(0.044715)).MulScalar(c)
		return x.Mul(inner.Tanh().AddScalar(1)).MulScalar(0.5)
	})
}
