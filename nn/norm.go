package nn

import (
	"github.com/xlajit/xlajit/lazy"
)

// BatchNorm normalises each channel (axis 1) over the batch and the other
// axes. In training mode it uses the batch's statistics and updates the
// running ones in place (Assign: a compiled step writes them on every
// replay); in evaluation mode it uses the running statistics.
type BatchNorm struct {
	Weight            *lazy.Tensor `nn:"weight"`                     // [C], or nil
	Bias              *lazy.Tensor `nn:"bias"`                       // [C], or nil
	RunningMean       *lazy.Tensor `nn:"running_mean,buffer"`        // [C]
	RunningVar        *lazy.Tensor `nn:"running_var,buffer"`         // [C]
	NumBatchesTracked *lazy.Tensor `nn:"num_batches_tracked,buffer"` // i64 scalar
	Eps, Momentum     float64
	Training          bool
	ranks             [2]int // accepted input ranks
	name              string
}

func newBatchNorm(name string, ranks [2]int, c int64, opts []Option) *BatchNorm {
	o := buildOptions(opts)
	if c <= 0 {
		throw("nn.New"+name, nil, "want a positive channel count, got %d", c)
	}
	eps := o.eps
	if eps == 0 {
		eps = 1e-5
	}
	b := &BatchNorm{
		Weight: lazy.Ones(o.dtype, c), Bias: lazy.Zeros(o.dtype, c),
		RunningMean: lazy.Zeros(o.dtype, c), RunningVar: lazy.Ones(o.dtype, c),
		NumBatchesTracked: lazy.Zeros(lazy.I64),
		Eps:               eps, Momentum: o.momentum, Training: true, ranks: ranks, name: name,
	}
	if o.noBias { // affine=False
		b.Weight, b.Bias = nil, nil
	}
	sync(b.Weight, b.Bias, b.RunningMean, b.RunningVar, b.NumBatchesTracked)
	return b
}

// NewBatchNorm1d normalises x [N, C] or [N, C, L] (PyTorch's BatchNorm1d:
// weight 1, bias 0, eps 1e-5, momentum 0.1, training mode). NoBias drops
// both affine tensors (affine=False).
func NewBatchNorm1d(c int64, opts ...Option) *BatchNorm {
	return newBatchNorm("BatchNorm1d", [2]int{2, 3}, c, opts)
}

// NewBatchNorm2d normalises x [N, C, H, W].
func NewBatchNorm2d(c int64, opts ...Option) *BatchNorm {
	return newBatchNorm("BatchNorm2d", [2]int{4, 4}, c, opts)
}

// SetTraining switches between batch statistics (on) and running ones.
func (b *BatchNorm) SetTraining(on bool) { b.Training = on }

// Forward normalises x.
func (b *BatchNorm) Forward(x *lazy.Tensor) *lazy.Tensor {
	op := "nn." + b.name
	c := b.RunningMean.Dim(0)
	if (b.ranks != [2]int{} && x.Rank() != b.ranks[0] && x.Rank() != b.ranks[1]) || x.Rank() < 2 || x.Dim(1) != c {
		throw(op, []*lazy.Tensor{x}, "want input with %d channels on axis 1 and rank %v", c, b.ranks)
	}
	shape := make([]int64, x.Rank())
	axes := []int{0}
	for i := range shape {
		shape[i] = 1
		if i >= 2 {
			axes = append(axes, i)
		}
	}
	shape[1] = c
	var mean, variance *lazy.Tensor
	if b.Training {
		n := x.Size() / c
		if n == 1 {
			throw(op, []*lazy.Tensor{x}, "expected more than one value per channel in training mode")
		}
		if n == 0 {
			// No statistics (their NaNs would make the weight's gradient
			// 0·NaN): any finite stand-ins normalise the empty output.
			mean, variance = b.RunningMean.Detach(), b.RunningVar.Detach()
		} else {
			mean = x.Mean(axes...)
			variance = x.Sub(mean.Reshape(shape...)).Square().Mean(axes...)
		}
		if n > 1 {
			m := b.Momentum
			unbiased := variance.MulScalar(float64(n) / float64(n-1))
			b.RunningMean.Assign(b.RunningMean.MulScalar(1 - m).Add(mean.MulScalar(m)))
			b.RunningVar.Assign(b.RunningVar.MulScalar(1 - m).Add(unbiased.MulScalar(m)))
		}
		// An empty batch gives an empty output and leaves the running
		// statistics as they were, but counts, as in PyTorch.
		b.NumBatchesTracked.Assign(b.NumBatchesTracked.AddScalar(1))
	} else {
		mean, variance = b.RunningMean, b.RunningVar
	}
	scale := variance.AddScalar(b.Eps).Rsqrt()
	if b.Weight != nil {
		scale = scale.Mul(b.Weight)
	}
	y := x.Sub(mean.Reshape(shape...)).Mul(scale.Reshape(shape...))
	if b.Bias != nil {
		y = y.Add(b.Bias.Reshape(shape...))
	}
	return y
}

// LayerNorm normalises over the trailing axes given by Shape.
type LayerNorm struct {
	Weight *lazy.Tensor `nn:"weight"` // Shape, or nil
	Bias   *lazy.Tensor `nn:"bias"`   // Shape, or nil
	Shape  []int64
	Eps    float64
}

// NewLayerNorm normalises over trailing axes of the given shape (weight 1,
// bias 0, eps 1e-5 as in PyTorch). NoBias keeps the weight only.
func NewLayerNorm(shape []int64, opts ...Option) *LayerNorm {
	o := buildOptions(opts)
	if len(shape) == 0 {
		throw("nn.NewLayerNorm", nil, "needs a normalised shape")
	}
	eps := o.eps
	if eps == 0 {
		eps = 1e-5
	}
	l := &LayerNorm{Weight: lazy.Ones(o.dtype, shape...), Shape: append([]int64(nil), shape...), Eps: eps}
	if !o.noBias {
		l.Bias = lazy.Zeros(o.dtype, shape...)
	}
	sync(l.Weight, l.Bias)
	return l
}

func checkTrailing(op string, x *lazy.Tensor, shape []int64) {
	ok := x.Rank() >= len(shape)
	for i := 0; ok && i < len(shape); i++ {
		ok = x.Dim(x.Rank()-len(shape)+i) == shape[i]
	}
	if !ok {
		throw(op, []*lazy.Tensor{x}, "trailing dimensions must be %v", shape)
	}
}

// Forward normalises x [..., Shape...].
func (l *LayerNorm) Forward(x *lazy.Tensor) *lazy.Tensor {
	checkTrailing("nn.LayerNorm", x, l.Shape)
	return lazy.LayerNorm(x, len(l.Shape), l.Weight, l.Bias, l.Eps)
}

// RMSNorm scales x by the reciprocal root mean square over the trailing
// axes: y = x / sqrt(mean(x^2) + eps) * weight.
type RMSNorm struct {
	Weight *lazy.Tensor `nn:"weight"` // Shape, or nil
	Shape  []int64
	Eps    float64 // 0: the machine epsilon of x's type (PyTorch's default)
}

// NewRMSNorm normalises over trailing axes of the given shape (weight 1).
func NewRMSNorm(shape []int64, opts ...Option) *RMSNorm {
	o := buildOptions(opts)
	if len(shape) == 0 {
		throw("nn.NewRMSNorm", nil, "needs a normalised shape")
	}
	r := &RMSNorm{Weight: lazy.Ones(o.dtype, shape...), Shape: append([]int64(nil), shape...), Eps: o.eps}
	if o.noBias {
		r.Weight = nil
	}
	sync(r.Weight)
	return r
}

// machineEps is torch.finfo(dt).eps.
func machineEps(dt lazy.DType) float64 {
	switch dt {
	case lazy.F64:
		return 2.220446049250313e-16
	case lazy.F16:
		return 0.0009765625
	case lazy.BF16:
		return 0.0078125
	}
	return 1.1920928955078125e-07
}

// Forward normalises x [..., Shape...].
func (r *RMSNorm) Forward(x *lazy.Tensor) *lazy.Tensor {
	checkTrailing("nn.RMSNorm", x, r.Shape)
	axes := make([]int, len(r.Shape))
	for i := range axes {
		axes[i] = x.Rank() - len(r.Shape) + i
	}
	eps := r.Eps
	if eps == 0 {
		eps = machineEps(x.DType())
	}
	y := x.Mul(x.Square().MeanKeepDims(axes...).AddScalar(eps).Rsqrt())
	if r.Weight != nil {
		y = y.Mul(r.Weight)
	}
	return y
}
