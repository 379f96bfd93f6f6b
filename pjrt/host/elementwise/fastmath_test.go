package elementwise

import (
	"math"
	"testing"
)

// ulpDiff is the distance in float32 ULPs between a and b (0 when both are
// NaN; a large number when only one is).
func ulpDiff(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt32
	}
	if a == b {
		return 0
	}
	key := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&(1<<31) != 0 {
			u = -(u & (1<<31 - 1))
		}
		return u
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return d
}

var fast32 = []struct {
	name string
	fast func(float32) float32
	ref  func(float64) float64
}{
	{"exp", Exp32, math.Exp},
	{"log", Log32, math.Log},
	{"tanh", Tanh32, math.Tanh},
	{"logistic", Logistic32, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
	{"erf", Erf32, math.Erf},
}

// TestFast32Accuracy checks the float32 fast paths against the float64
// library functions rounded once, over a stride through every float32 bit
// pattern plus the edges.
func TestFast32Accuracy(t *testing.T) {
	edges := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1e-45, -1e-45, 1e-38, 88.72, 88.73, -87.3, -103.9, -104,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32,
		9.01, -9.01, 10, 1e-8, -1e-8, 0.0624, 0.0626, 0.999999, 1.000001, 0.7071067, 1.4142135, 3.9999998, 4, 3.92, 2.5, -2.5, 1, -1}
	stride := uint32(1021)
	if testing.Short() {
		stride = 4099
	}
	for _, f := range fast32 {
		worst, worstX, bad := int64(0), float32(0), 0
		check := func(x float32) {
			got := f.fast(x)
			want := float32(f.ref(float64(x)))
			d := ulpDiff(got, want)
			if d > worst {
				worst, worstX = d, x
			}
			if d > 1 {
				bad++
			}
		}
		for _, x := range edges {
			check(x)
		}
		for u := uint64(0); u < 1<<32; u += uint64(stride) {
			check(math.Float32frombits(uint32(u)))
		}
		if bad > 0 {
			t.Errorf("%s: %d inputs over 1 ULP; worst %d ULP at %g (got %g want %g)", f.name, bad, worst, worstX, f.fast(worstX), float32(f.ref(float64(worstX))))
		} else {
			t.Logf("%s: worst %d ULP", f.name, worst)
		}
	}
}

func benchLoop(b *testing.B, f func(d, a []float32)) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%2001-1000) / 300
	}
	y := make([]float32, len(x))
	b.SetBytes(int64(len(x)) * 8)
	for i := 0; i < b.N; i++ {
		f(y, x)
	}
}

func BenchmarkTanh32(b *testing.B)     { benchLoop(b, tanh32s) }
func BenchmarkExp32(b *testing.B)      { benchLoop(b, exp32s) }
func BenchmarkLog32(b *testing.B)      { benchLoop(b, log32s) }
func BenchmarkLogistic32(b *testing.B) { benchLoop(b, logistic32s) }
func BenchmarkErf32(b *testing.B)      { benchLoop(b, erf32s) }

// BenchmarkMathTanh is the library float64 tanh on the same data.
func BenchmarkMathTanh(b *testing.B) {
	benchLoop(b, func(d, a []float32) {
		for i, v := range a {
			d[i] = float32(math.Tanh(float64(v)))
		}
	})
}

// TestVecMatchesGo checks that the vector forms, on every instruction set
// the CPU has, give the Go loops' bits on a stride through every float32
// bit pattern plus the edges.
func TestVecMatchesGo(t *testing.T) {
	if !haveVec {
		t.Skip("no vector forms on this CPU or build")
	}
	var xs []float32
	for u := uint64(0); u < 1<<32; u += 1009 {
		xs = append(xs, math.Float32frombits(uint32(u)))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		88.72, 88.73, -103.9, -104, 9.01, -9.01, 10, -10, 1e-45, -1e-45, 200, -200, 201, -201, 1e30, -1e30,
		math.MaxFloat32, -math.MaxFloat32, math.Float32frombits(0x7fa00001), math.Float32frombits(0xffc01234), 0.7071067, 1.4142135)
	xs = xs[:len(xs)&^7]
	for _, isa := range vecISAs {
		for _, c := range []struct {
			name string
			loop func(d, a []float32)
		}{{"exp", exp32g}, {"tanh", tanh32g}, {"logistic", logistic32g}, {"log", log32g}, {"erf", erf32g}} {
			vec, _ := fastVec(c.name, isa)
			got, want := make([]float32, len(xs)), make([]float32, len(xs))
			vec(got, xs)
			c.loop(want, xs)
			for i := range xs {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("%s (isa %d) of %g (%#x): vector %g (%#x), Go %g (%#x)", c.name, isa, xs[i], math.Float32bits(xs[i]), got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					break
				}
			}
		}
	}
}
