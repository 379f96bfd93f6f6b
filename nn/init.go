package nn

import (
	"math"

	"github.com/xlajit/xlajit/lazy"
)

// Nonlinearity names an activation for Gain, as torch.nn.init.calculate_gain.
type Nonlinearity string

// The nonlinearities Gain knows.
const (
	Identity  Nonlinearity = "linear"
	Sigmoid   Nonlinearity = "sigmoid"
	Tanh      Nonlinearity = "tanh"
	ReLU      Nonlinearity = "relu"
	LeakyReLU Nonlinearity = "leaky_relu"
	SELU      Nonlinearity = "selu"
)

// Gain is the recommended scale of weights feeding the nonlinearity
// (PyTorch's calculate_gain): 1 for linear, convolutions ("conv2d",
// "conv_transpose1d", ... as PyTorch names them) and sigmoid, 5/3 for
// tanh, sqrt(2) for ReLU, sqrt(2/(1+slope^2)) for leaky ReLU, 3/4 for SELU.
func Gain(n Nonlinearity, negativeSlope float64) float64 {
	switch n {
	case Identity, Sigmoid, "", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d":
		return 1
	case Tanh:
		return 5.0 / 3
	case ReLU:
		return math.Sqrt2
	case LeakyReLU:
		return math.Sqrt(2 / (1 + negativeSlope*negativeSlope))
	case SELU:
		return 0.75
	}
	throw("nn.Gain", nil, "unknown nonlinearity %q", string(n))
	return 0
}

// Fans returns the fan-in and fan-out of a weight of the given dims, as
// PyTorch computes them: dims[1] and dims[0] times the receptive field (the
// product of dims[2:]). Weights need at least two dimensions.
func Fans(dims ...int64) (fanIn, fanOut int64) {
	if len(dims) < 2 {
		throw("nn.Fans", nil, "fan in and fan out need a weight of rank >= 2, got dims %v", dims)
	}
	rf := int64(1)
	for _, d := range dims[2:] {
		rf *= d
	}
	return dims[1] * rf, dims[0] * rf
}

// Uniform draws from U(lo, hi).
func Uniform(dt lazy.DType, lo, hi float64, dims ...int64) *lazy.Tensor {
	if !(lo <= hi) {
		throw("nn.Uniform", nil, "lower bound %v above upper bound %v", lo, hi)
	}
	return lazy.RandUniform(dt, lo, hi, dims...)
}

// Normal draws from N(mean, std^2).
func Normal(dt lazy.DType, mean, std float64, dims ...int64) *lazy.Tensor {
	if !(std >= 0) {
		throw("nn.Normal", nil, "standard deviation %v is negative", std)
	}
	x := lazy.RandN(dt, dims...)
	if std != 1 {
		x = x.MulScalar(std)
	}
	if mean != 0 {
		x = x.AddScalar(mean)
	}
	return x
}

// TruncatedNormal draws from N(mean, std^2) restricted to [lo, hi] (absolute
// bounds, as torch.nn.init.trunc_normal_): a uniform draw between the
// bounds' normal CDFs is mapped through the inverse CDF, so every draw lands
// inside, with no rejection loop.
func TruncatedNormal(dt lazy.DType, mean, std, lo, hi float64, dims ...int64) *lazy.Tensor {
	if !(std > 0) || !(lo < hi) {
		throw("nn.TruncatedNormal", nil, "want std > 0 and lo < hi, got std %v, bounds [%v, %v]", std, lo, hi)
	}
	cdf := func(x float64) float64 { return (1 + math.Erf(x/math.Sqrt2)) / 2 }
	l, u := cdf((lo-mean)/std), cdf((hi-mean)/std)
	if u-l < 1e-12 {
		throw("nn.TruncatedNormal", nil, "bounds [%v, %v] lie too far from the mean %v (in units of std %v)", lo, hi, mean, std)
	}
	// Compute in at least f32; round once into dt.
	ct := dt
	if dt == lazy.F16 || dt == lazy.BF16 {
		ct = lazy.F32
	}
	v := lazy.RandUniform(ct, 2*l-1, 2*u-1, dims...)
	x := ErfInv(v).MulScalar(std*math.Sqrt2).AddScalar(mean).Clamp(lo, hi)
	return x.Cast(dt)
}

// ErfInv is the inverse error function on (-1, 1), elementwise (Giles'
// single-precision polynomial approximation, about 4e-7 relative error in
// f32; composed from lazy ops, so it differentiates and runs in a trace).
func ErfInv(x *lazy.Tensor) *lazy.Tensor {
	w := x.Neg().AddScalar(1).Mul(x.AddScalar(1)).Log().Neg()
	poly := func(t *lazy.Tensor, cs []float64) *lazy.Tensor {
		p := lazy.FullOn(t.Device(), t.DType(), cs[0])
		for _, c := range cs[1:] {
			p = p.Mul(t).AddScalar(c)
		}
		return p
	}
	central := poly(w.SubScalar(2.5), []float64{
		2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
		-0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
	// The tail branch takes sqrt(w) only where w >= 5 (elsewhere sqrt(5)), so
	// its gradient stays finite on the branch Where discards.
	tail := poly(w.MaxScalar(5).Sqrt().SubScalar(3), []float64{
		-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
		-0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
	return lazy.Where(w.LtScalar(5), central, tail).Mul(x)
}

// Kaiming is He initialisation (torch.nn.init.kaiming_uniform_ and
// kaiming_normal_): std = Gain(Nonlinearity, A) / sqrt(fan), the fan chosen
// by Mode. The zero value is PyTorch's default (fan in, leaky ReLU with
// slope 0).
type Kaiming struct {
	A            float64 // negative slope of a leaky ReLU
	FanOut       bool    // scale by the fan-out instead of the fan-in
	Nonlinearity Nonlinearity
}

func (k Kaiming) std(op string, dims []int64) float64 {
	in, out := Fans(dims...)
	fan := in
	if k.FanOut {
		fan = out
	}
	if fan == 0 {
		throw(op, nil, "zero fan for dims %v", dims)
	}
	n := k.Nonlinearity
	if n == "" {
		n = LeakyReLU
	}
	return Gain(n, k.A) / math.Sqrt(float64(fan))
}

// Uniform draws from U(-b, b) with b = sqrt(3) * std.
func (k Kaiming) Uniform(dt lazy.DType, dims ...int64) *lazy.Tensor {
	b := math.Sqrt(3) * k.std("nn.Kaiming.Uniform", dims)
	return lazy.RandUniform(dt, -b, b, dims...)
}

// Normal draws from N(0, std^2).
func (k Kaiming) Normal(dt lazy.DType, dims ...int64) *lazy.Tensor {
	return Normal(dt, 0, k.std("nn.Kaiming.Normal", dims), dims...)
}

// Xavier is Glorot initialisation (torch.nn.init.xavier_uniform_ and
// xavier_normal_): std = Gain * sqrt(2 / (fan_in + fan_out)); a zero Gain
// means 1.
type Xavier struct{ Gain float64 }

func (x Xavier) std(op string, dims []int64) float64 {
	in, out := Fans(dims...)
	if in+out == 0 {
		throw(op, nil, "zero fans for dims %v", dims)
	}
	g := x.Gain
	if g == 0 {
		g = 1
	}
	return g * math.Sqrt(2/float64(in+out))
}

// Uniform draws from U(-b, b) with b = sqrt(3) * std.
func (x Xavier) Uniform(dt lazy.DType, dims ...int64) *lazy.Tensor {
	b := math.Sqrt(3) * x.std("nn.Xavier.Uniform", dims)
	return lazy.RandUniform(dt, -b, b, dims...)
}

// Normal draws from N(0, std^2).
func (x Xavier) Normal(dt lazy.DType, dims ...int64) *lazy.Tensor {
	return Normal(dt, 0, x.std("nn.Xavier.Normal", dims), dims...)
}

// fanInUniform is PyTorch's default for Linear, convolutions' weights and
// biases: U(-1/sqrt(fanIn), 1/sqrt(fanIn)) (kaiming_uniform_ with a =
// sqrt(5) for the weight, the same bound for the bias).
func fanInUniform(dt lazy.DType, fanIn int64, dims ...int64) *lazy.Tensor {
	b := 0.0
	if fanIn > 0 {
		b = 1 / math.Sqrt(float64(fanIn))
	}
	return lazy.RandUniform(dt, -b, b, dims...)
}
