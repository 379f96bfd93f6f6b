package chlo

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/pjrt/host/elementwise"
)

// ulps64 is the ULP distance of two float64s (0 for equal values and for
// two NaNs, the most for a NaN or infinity against anything else).
func ulps64(a, b float64) uint64 {
	switch {
	case a == b || math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return math.MaxUint64
	}
	oa, ob := ordinal(a), ordinal(b)
	if oa > ob {
		return uint64(oa - ob)
	}
	return uint64(ob - oa)
}

// ordinal maps a finite float64 to an integer monotonic in its value, with
// -0 and +0 both at 0.
func ordinal(f float64) int64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return -int64(b &^ (1 << 63))
	}
	return int64(b)
}

// TestSpecialAgainstMPMath compares the float64 kernels with values
// computed by mpmath at 50 digits (testdata/gen_special.py).
func TestSpecialAgainstMPMath(t *testing.T) {
	f, err := os.Open("testdata/special_ref.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reals := map[string]struct {
		fn     func(float64) float64
		maxULP uint64
	}{
		"digamma":   {digamma, 8},
		"erfinv":    {erfInv, 2},
		"besseli1e": {besselI1e, 3},
		"sinh":      {elementwise.Sinh, 2},
		"cosh":      {coshReal, 2},
		"asin":      {asinReal, 2},
		"acos":      {acosReal, 2},
		"zeta2":     {func(x float64) float64 { return zeta(x, 2.5) }, 8},
		"zetaq":     {func(q float64) float64 { return zeta(3, q) }, 8},
		"trigamma":  {func(x float64) float64 { return polygamma(1, x) }, 8},
	}
	cplx := map[string]func(complex128) complex128{
		"casin":  func(z complex128) complex128 { return casinDecomp(arith64, z) },
		"cacos":  func(z complex128) complex128 { return cacosDecomp(arith64, z) },
		"casinh": func(z complex128) complex128 { return casinhDecomp(arith64, z) },
		"cacosh": func(z complex128) complex128 { return cacoshDecomp(arith64, z) },
		"catan":  catan, "catanh": catanh, "csinh": csinh, "ccosh": ccosh, "ctan": elementwise.TanC,
	}
	worst := map[string]uint64{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			continue
		}
		v := make([]float64, 4)
		for i, h := range fs[1:] {
			b, err := strconv.ParseUint(h, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			v[i] = math.Float64frombits(b)
		}
		n++
		if r, ok := reals[fs[0]]; ok {
			got := r.fn(v[0])
			d := ulps64(got, v[2])
			worst[fs[0]] = max(worst[fs[0]], d)
			if d > r.maxULP {
				t.Errorf("%s(%v) = %v, want %v (%d ULP)", fs[0], v[0], got, v[2], d)
			}
			continue
		}
		g, ok := cplx[fs[0]]
		if !ok {
			t.Fatalf("unknown function %s", fs[0])
		}
		got := g(complex(v[0], v[1]))
		dr, di := ulps64(real(got), v[2]), ulps64(imag(got), v[3])
		d := max(dr, di)
		worst[fs[0]] = max(worst[fs[0]], d)
		// Parts far below the modulus carry cancellation that no
		// component-wise bound covers; judge them relative to |w|.
		w := math.Hypot(v[2], v[3])
		if d > 4 && (math.Abs(real(got)-v[2]) > 4e-16*w || math.Abs(imag(got)-v[3]) > 4e-16*w) {
			t.Errorf("%s(%v) = %v, want %v (%d, %d ULP)", fs[0], complex(v[0], v[1]), got, complex(v[2], v[3]), dr, di)
		}
	}
	if n < 1000 {
		t.Fatalf("read only %d reference values", n)
	}
	t.Logf("worst ULP errors: %v", worst)
}

func TestDecompEdges(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, a := range []arith{arith32, arith64} {
		cases := []struct {
			name string
			f    func(arith, float64) float64
			x    float64
			want float64
		}{
			{"lgamma(+inf)", lgammaDecomp, inf, inf},
			{"lgamma(-inf)", lgammaDecomp, -inf, inf},
			{"lgamma(0)", lgammaDecomp, 0, inf},
			{"lgamma(-3)", lgammaDecomp, -3, inf},
			{"digamma(0)", digammaDecomp, 0, nan},
			{"digamma(-2)", digammaDecomp, -2, nan},
			{"erfinv(1)", erfInvDecomp, 1, inf},
			{"erfinv(-1)", erfInvDecomp, -1, -inf},
			{"erfinv(2)", erfInvDecomp, 2, nan},
			{"cosh(0)", coshDecomp, 0, 1},
			{"sinh(-0)", sinhDecomp, math.Copysign(0, -1), math.Copysign(0, -1)},
		}
		for _, c := range cases {
			got := c.f(a, c.x)
			if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) || math.Signbit(got) != math.Signbit(c.want) && !math.IsNaN(got) {
				t.Errorf("%s (f32 %v) = %v, want %v", c.name, a.r(0.1) != 0.1, got, c.want)
			}
		}
		// Away from their zeros the decompositions are within a few
		// computation-type ULPs of the exact functions.
		for x := -7.3; x < 30; x += 0.37 {
			want, _ := math.Lgamma(x)
			if d := math.Abs(lgammaDecomp(a, x) - want); d > 1e-5*math.Max(1, math.Abs(want)) {
				t.Errorf("lgamma(%v) = %v, want %v", x, lgammaDecomp(a, x), want)
			}
			if d := math.Abs(digammaDecomp(a, x) - digamma(x)); d > 1e-4*math.Max(1, math.Abs(digamma(x))) {
				t.Errorf("digamma(%v) = %v, want %v", x, digammaDecomp(a, x), digamma(x))
			}
		}
	}
}
