package nn

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

func moments(xs []float64) (lo, hi, mean, std float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return lo, hi, mean, math.Sqrt(std / float64(len(xs)))
}

// TestInitialisers checks each initialiser's bounds and spread against
// PyTorch's formulas (torch.nn.init), computed here in float64.
func TestInitialisers(t *testing.T) {
	lazy.ManualSeed(7)
	cases := []struct {
		name     string
		x        *lazy.Tensor
		bound    float64 // 0: unbounded
		mean     float64
		std      float64
		tolerate float64 // relative tolerance of the std
	}{
		{"Linear default", NewLinear(400, 300).Weight, 1 / math.Sqrt(400), 0, 1 / math.Sqrt(400) / math.Sqrt(3), 0.02},
		{"Conv2d default", NewConv2d(8, 64, 3).Weight, 1 / math.Sqrt(72), 0, 1 / math.Sqrt(72) / math.Sqrt(3), 0.03},
		{"GRUCell default", NewGRUCell(10, 100).WeightHH, 0.1, 0, 0.1 / math.Sqrt(3), 0.02},
		{"Embedding default", NewEmbedding(300, 100).Weight, 0, 0, 1, 0.02},
		{"Kaiming uniform relu", Kaiming{Nonlinearity: ReLU}.Uniform(lazy.F32, 256, 128), math.Sqrt(6.0 / 128), 0, math.Sqrt(2.0 / 128), 0.02},
		{"Kaiming normal fan-out", Kaiming{FanOut: true, Nonlinearity: ReLU}.Normal(lazy.F32, 256, 32, 2, 2), 0, 0, math.Sqrt(2.0 / 1024), 0.02},
		{"Xavier uniform tanh", Xavier{Gain: Gain(Tanh, 0)}.Uniform(lazy.F32, 200, 300), 5.0 / 3 * math.Sqrt(6.0/500), 0, 5.0 / 3 * math.Sqrt(2.0/500), 0.02},
		{"Xavier normal", Xavier{}.Normal(lazy.F32, 200, 300), 0, 0, math.Sqrt(2.0 / 500), 0.02},
		{"Normal", Normal(lazy.F32, 3, 0.5, 200, 200), 0, 3, 0.5, 0.02},
		{"Uniform", Uniform(lazy.F32, -2, 4, 200, 200), 0, 1, 6 / math.Sqrt(12), 0.02},
	}
	for _, c := range cases {
		lo, hi, mean, std := moments(c.x.Float64s())
		if c.bound > 0 && (lo < -c.bound || hi > c.bound || hi < 0.95*c.bound) {
			t.Errorf("%s: range [%.4g, %.4g], want within ±%.4g and reaching near it", c.name, lo, hi, c.bound)
		}
		if math.Abs(mean-c.mean) > 0.05*c.std+1e-3 || math.Abs(std-c.std) > c.tolerate*c.std {
			t.Errorf("%s: mean %.4g std %.4g, want %.4g and %.4g", c.name, mean, std, c.mean, c.std)
		}
	}
}

// TestTruncatedNormal checks that every draw lies in the bounds and that
// the sample's mean and standard deviation match the truncated normal's,
// computed in float64.
func TestTruncatedNormal(t *testing.T) {
	lazy.ManualSeed(3)
	const mu, sigma, a, b = 1.0, 2.0, -1.0, 2.0
	lo, hi, mean, std := moments(TruncatedNormal(lazy.F32, mu, sigma, a, b, 300, 300).Float64s())
	if lo < a || hi > b {
		t.Fatalf("draws in [%g, %g], want within [%g, %g]", lo, hi, a, b)
	}
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	cdf := func(x float64) float64 { return (1 + math.Erf(x/math.Sqrt2)) / 2 }
	al, be := (a-mu)/sigma, (b-mu)/sigma
	z := cdf(be) - cdf(al)
	wantMean := mu + sigma*(phi(al)-phi(be))/z
	wantVar := sigma * sigma * (1 + (al*phi(al)-be*phi(be))/z - math.Pow((phi(al)-phi(be))/z, 2))
	if math.Abs(mean-wantMean) > 0.01 || math.Abs(std-math.Sqrt(wantVar)) > 0.01 {
		t.Errorf("mean %.4f std %.4f, want %.4f and %.4f", mean, std, wantMean, math.Sqrt(wantVar))
	}
}

// TestErfInv compares with math.Erfinv over (-1, 1), tails included.
func TestErfInv(t *testing.T) {
	var xs []float64
	for i := -999; i <= 999; i++ {
		xs = append(xs, float64(i)/1000)
	}
	xs = append(xs, 0.9999, -0.99999, 0.999999)
	got := ErfInv(lazy.FromSlice(xs)).Float64s()
	for i, x := range xs {
		if w := math.Erfinv(x); math.Abs(got[i]-w) > 1e-12+3e-7*math.Abs(w) {
			t.Errorf("ErfInv(%g) = %.15g, want %.15g", x, got[i], w)
		}
	}
	f32 := ErfInv(lazy.FromSlice([]float32{0.5, -0.9})).Float64s()
	if math.Abs(f32[0]-math.Erfinv(0.5)) > 1e-6 || math.Abs(f32[1]-math.Erfinv(-0.9)) > 1e-6 {
		t.Errorf("f32 ErfInv = %v", f32)
	}
}

func TestGainAndFans(t *testing.T) {
	for _, c := range []struct {
		n    Nonlinearity
		p    float64
		want float64
	}{{Identity, 0, 1}, {Sigmoid, 0, 1}, {Tanh, 0, 5.0 / 3}, {ReLU, 0, math.Sqrt2}, {LeakyReLU, 0.2, math.Sqrt(2 / 1.04)}, {SELU, 0, 0.75}} {
		if g := Gain(c.n, c.p); math.Abs(g-c.want) > 1e-15 {
			t.Errorf("Gain(%s) = %g, want %g", c.n, g, c.want)
		}
	}
	if in, out := Fans(64, 32, 3, 3); in != 288 || out != 576 {
		t.Errorf("Fans = %d, %d", in, out)
	}
	err := lazy.Try(func() { Fans(5) })
	if err == nil || !errorContains(err, "rank >= 2") {
		t.Errorf("Fans of a vector: %v", err)
	}
	if err := lazy.Try(func() { Gain("swish", 0) }); err == nil {
		t.Error("unknown nonlinearity accepted")
	}
}

// TestGainOfConvolutions: Gain takes PyTorch's convolution names, whose
// gain is 1 (torch.nn.init.calculate_gain("conv2d")); the doc promised
// them, but they were "unknown nonlinearity" errors.
func TestGainOfConvolutions(t *testing.T) {
	for _, n := range []Nonlinearity{"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"} {
		var g float64
		if err := lazy.Try(func() { g = Gain(n, 0) }); err != nil || g != 1 {
			t.Errorf("Gain(%q) = %v, %v; want 1", n, g, err)
		}
	}
}
