package nn

import (
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

func errorContains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestRMSNormMatchesFloat64 checks RMSNorm (absent from PyTorch 1.13)
// against a float64 reference, with its gradient by finite differences.
func TestRMSNormMatchesFloat64(t *testing.T) {
	lazy.ManualSeed(5)
	r := NewRMSNorm([]int64{6}, DType(lazy.F64), Eps(1e-6))
	r.Weight = lazy.RandN(lazy.F64, 6)
	x := lazy.RandN(lazy.F64, 3, 6)
	xs, ws := x.Float64s(), r.Weight.Float64s()
	ref := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i := 0; i < 3; i++ {
			ss := 0.0
			for j := 0; j < 6; j++ {
				ss += xs[i*6+j] * xs[i*6+j]
			}
			s := 1 / math.Sqrt(ss/6+1e-6)
			for j := 0; j < 6; j++ {
				out[i*6+j] = xs[i*6+j] * s * ws[j]
			}
		}
		return out
	}
	got := r.Forward(x).Float64s()
	for i, w := range ref(xs) {
		if math.Abs(got[i]-w) > 1e-12*(1+math.Abs(w)) {
			t.Fatalf("element %d: %g, want %g", i, got[i], w)
		}
	}
	// d/dx of sum(y * seed) by central differences.
	seed := make([]float64, 18)
	for i := range seed {
		seed[i] = math.Sin(float64(i))
	}
	g := lazy.GradWith(r.Forward(x), lazy.FromSlice(seed, 3, 6), x)[0].Float64s()
	dot := func(a []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * seed[i]
		}
		return s
	}
	for i := range xs {
		p, m := append([]float64(nil), xs...), append([]float64(nil), xs...)
		p[i] += 1e-6
		m[i] -= 1e-6
		fd := (dot(ref(p)) - dot(ref(m))) / 2e-6
		if math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
			t.Errorf("grad %d: %g, finite difference %g", i, g[i], fd)
		}
	}
	// The default epsilon is the element type's machine epsilon.
	if d := NewRMSNorm([]int64{2}); d.Forward(lazy.Zeros(lazy.F32, 1, 2)).Float64s()[0] != 0 {
		t.Error("RMSNorm of zeros is not zero")
	}
}

// TestDropout checks evaluation mode (identity), the kept fraction and the
// scaling in training mode.
func TestDropout(t *testing.T) {
	lazy.ManualSeed(9)
	d := NewDropout(0.25)
	x := lazy.Ones(lazy.F32, 200, 200)
	kept, sum := 0, 0.0
	for _, v := range d.Forward(x).Float64s() {
		if v != 0 {
			kept++
			if math.Abs(v-1/0.75) > 1e-6 {
				t.Fatalf("kept value %g, want %g", v, 1/0.75)
			}
		}
		sum += v
	}
	if f := float64(kept) / 40000; math.Abs(f-0.75) > 0.01 {
		t.Errorf("kept fraction %.4f, want 0.75", f)
	}
	SetTraining(d, false)
	if d.Forward(x) != x {
		t.Error("evaluation-mode dropout is not the identity")
	}
	if err := lazy.Try(func() { NewDropout(1.5) }); !errorContains(err, "[0, 1]") {
		t.Errorf("p = 1.5: %v", err)
	}
}

// TestBadInputsNameTheLayer checks that shape mistakes are *lazy.Error
// values naming the layer, the shapes and the caller's line.
func TestBadInputsNameTheLayer(t *testing.T) {
	cases := []struct {
		fn   func()
		want string
	}{
		{func() { NewLinear(3, 2).Forward(lazy.Zeros(lazy.F32, 4, 5)) }, "nn.Linear(f32[4,5], f32[2,3])"},
		{func() { NewConv2d(3, 4, 3).Forward(lazy.Zeros(lazy.F32, 1, 2, 8, 8)) }, "want input [N, 3, H, W]"},
		{func() { NewBatchNorm2d(3).Forward(lazy.Zeros(lazy.F32, 2, 3, 4)) }, "nn.BatchNorm2d"},
		{func() { NewBatchNorm1d(3).Forward(lazy.Zeros(lazy.F32, 1, 3)) }, "more than one value per channel"},
		{func() { NewLayerNorm([]int64{4}).Forward(lazy.Zeros(lazy.F32, 2, 5)) }, "trailing dimensions must be [4]"},
		{func() { NewEmbedding(4, 2).Forward(lazy.Zeros(lazy.F32, 3)) }, "indices must be integers"},
		{func() { NewMultiHeadAttention(8, 3) }, "multiple of the head count"},
		{func() { NewGRUCell(3, 4).Forward(lazy.Zeros(lazy.F32, 2, 3), lazy.Zeros(lazy.F32, 2, 5)) }, "want state [2, 4]"},
		{func() { CrossEntropy(lazy.Zeros(lazy.F32, 4, 3), lazy.Zeros(lazy.I32, 5)) }, "nn.CrossEntropy"},
		{func() {
			CrossEntropy(lazy.Zeros(lazy.F32, 4, 3), lazy.Zeros(lazy.I32, 4), ClassWeights(lazy.Ones(lazy.F32, 2)))
		}, "class weights must be [3]"},
		{func() { MSE(lazy.Zeros(lazy.F32, 4), lazy.Zeros(lazy.F32, 5)) }, "same shape"},
		{func() { NewConv2d(3, 4, 3, Stride(1, 2, 3)) }, "Stride: want 1 or 2 values"},
		{func() { NewConv1d(3, 4, 3, Padding(1, 2)) }, "Padding: want 1 value, got [1 2]"}, // was "want 1 or 1 values"
		{func() { NewConv2d(3, 4, 3, Stride(0)) }, "Stride: [0] has a value below 1"},
		{func() { NewConv1d(3, 4, 3, Dilation(0)) }, "Dilation: [0] has a value below 1"},
		{func() { NewConv2d(3, 4, 3, Padding(1, -1)) }, "Padding: [1 -1] has a value below 0"},
		{func() { NewMaxPool2d(2, Stride(2, 0)) }, "Stride: [2 0] has a value below 1"},
	}
	for _, c := range cases {
		err := lazy.Try(c.fn)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v does not contain %q", err, c.want)
			continue
		}
		if e, ok := err.(*lazy.Error); !ok || !strings.Contains(e.Site, "layers_test.go:") {
			t.Errorf("error %v (%T): want a *lazy.Error whose site is in layers_test.go", err, err)
		}
	}
}

// TestLinearWeightLayout: nn.Linear's weight is [out, in] and Forward is
// y = x·Wᵀ + b, the layout of lazy.Linear and PyTorch, against a float64
// sum written out (in != out, so a transposed layout cannot pass).
func TestLinearWeightLayout(t *testing.T) {
	const in, out = 3, 2
	l := NewLinear(in, out, DType(lazy.F64))
	if d := l.Weight.Dims(); d[0] != out || d[1] != in {
		t.Fatalf("weight dims %v, want [%d %d]", d, out, in)
	}
	l.Weight = lazy.FromSlice([]float64{1, 2, 3, 4, 5, 6}, out, in)
	l.Bias = lazy.FromSlice([]float64{0.5, -1}, out)
	x := lazy.FromSlice([]float64{1, 0, -1, 2, 1, 0}, 2, in)
	xs, ws, bs := x.Float64s(), l.Weight.Float64s(), l.Bias.Float64s()
	got, viaLazy := l.Forward(x).Float64s(), lazy.Linear(x, l.Weight, l.Bias).Float64s()
	for r := range 2 {
		for o := range out {
			want := bs[o]
			for i := range in {
				want += xs[r*in+i] * ws[o*in+i]
			}
			if got[r*out+o] != want || viaLazy[r*out+o] != want {
				t.Errorf("y[%d,%d] = %v (lazy.Linear %v), want %v", r, o, got[r*out+o], viaLazy[r*out+o], want)
			}
		}
	}
}
