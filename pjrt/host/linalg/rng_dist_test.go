package linalg_test

import (
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func distAttr(d string) hlo.NamedAttr {
	return hlo.NamedAttr{Name: "rng_distribution", Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: "rng_distribution", Value: d}}
}

// scalar returns a 0-d literal of dt holding v (bits for 64-bit integers).
func scalar(dt hlo.DType, v float64) *hlo.Literal {
	l := hlo.NewLiteral(dt)
	if dt.IsFloat() {
		l.SetFloat(0, v)
	} else {
		l.SetInt(0, int64(v))
	}
	return l
}

func shapeOf(dims ...int64) *hlo.Literal { return hlo.LiteralFromSlice(append([]int64{}, dims...)) }

func runDist(dist string, a, b *hlo.Literal, out *hlo.TensorType) (*hlo.Literal, error) {
	res, err := runOp("stablehlo.rng", []*hlo.Literal{a, b, shapeOf(out.Dims...)}, []hlo.Type{out}, distAttr(dist))
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

func mustDist(t *testing.T, dist string, a, b *hlo.Literal, out *hlo.TensorType) *hlo.Literal {
	t.Helper()
	l, err := runDist(dist, a, b, out)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRngUniformRange draws from [a, b) in every kind of element type,
// including bounds one ulp apart (where a + (b-a)·u rounds to b unless the
// kernel steps below it) and the whole int64 range.
func TestRngUniformRange(t *testing.T) {
	for _, c := range []struct {
		dt   hlo.DType
		a, b float64
	}{
		{hlo.F32, -10, 10},
		{hlo.F64, 0, 1e-300},
		{hlo.F16, 1, 1.0009765625},           // adjacent f16 values
		{hlo.BF16, -2, -1.9921875},           // adjacent bf16 values, negative
		{hlo.F16, -5.960464477539063e-08, 0}, // smallest subnormal to zero
		{hlo.F8E4M3FN, 0.5, 0.5625},          // adjacent f8 values
		{hlo.I32, -3, 4},
		{hlo.I8, -128, 127},
		{hlo.U8, 250, 255},
		{hlo.Bool, 0, 1},
	} {
		out := mustDist(t, "UNIFORM", scalar(c.dt, c.a), scalar(c.dt, c.b), tt(c.dt, 64, 33))
		seen := map[float64]bool{}
		for i := 0; i < out.NumElements(); i++ {
			v := out.Float(i)
			seen[v] = true
			if !(v >= c.a && v < c.b) {
				t.Fatalf("%s [%v, %v): element %d = %v", c.dt, c.a, c.b, i, v)
			}
		}
		if span := c.b - c.a; !c.dt.IsFloat() && span <= 8 && len(seen) != int(span) {
			t.Errorf("%s [%v, %v): %d distinct values, want %v", c.dt, c.a, c.b, len(seen), span)
		}
	}
	lo, hi := hlo.NewLiteral(hlo.I64), hlo.NewLiteral(hlo.I64)
	lo.SetInt(0, math.MinInt64)
	hi.SetInt(0, math.MaxInt64)
	out := mustDist(t, "UNIFORM", lo, hi, tt(hlo.I64, 1000))
	neg := 0
	for _, v := range out.I64() {
		if v == math.MaxInt64 {
			t.Fatalf("drew b")
		}
		if v < 0 {
			neg++
		}
	}
	if neg < 400 || neg > 600 {
		t.Errorf("%d of 1000 draws over the int64 range are negative", neg)
	}
}

// TestRngMoments checks the distributions' shape: UNIFORM fills ten equal
// bins evenly and NORMAL has the requested mean and standard deviation.
func TestRngMoments(t *testing.T) {
	const n = 200000
	u := mustDist(t, "UNIFORM", scalar(hlo.F32, 2), scalar(hlo.F32, 4), tt(hlo.F32, n))
	var bins [10]int
	for _, v := range u.F32() {
		bins[int((v-2)/2*10)]++
	}
	chi := 0.0
	for _, c := range bins {
		d := float64(c) - n/10
		chi += d * d / (n / 10)
	}
	if chi > 30 { // 9 degrees of freedom: p < 0.001
		t.Errorf("uniform bins %v: chi-square %.1f", bins, chi)
	}
	for _, dt := range []hlo.DType{hlo.F32, hlo.F64} {
		z := mustDist(t, "NORMAL", scalar(dt, -1), scalar(dt, 3), tt(dt, n/4, 4))
		var s, s2 float64
		for i := 0; i < n; i++ {
			v := z.Float(i)
			s += v
			s2 += v * v
		}
		mean := s / n
		std := math.Sqrt(s2/n - mean*mean)
		if math.Abs(mean+1) > 0.03 || math.Abs(std-3) > 0.03 {
			t.Errorf("%s normal: mean %.4f std %.4f, want -1 and 3", dt, mean, std)
		}
	}
}

// TestRngStateless: the generator has no hidden state, so a program gives
// the same values on every run, and element i is the same in any shape.
func TestRngStateless(t *testing.T) {
	a := mustDist(t, "NORMAL", scalar(hlo.F32, 0), scalar(hlo.F32, 1), tt(hlo.F32, 3, 5))
	b := mustDist(t, "NORMAL", scalar(hlo.F32, 0), scalar(hlo.F32, 1), tt(hlo.F32, 3, 5))
	if !a.Equal(b) {
		t.Fatalf("two runs differ:\n%v\n%v", a, b)
	}
	c := mustDist(t, "NORMAL", scalar(hlo.F32, 0), scalar(hlo.F32, 1), tt(hlo.F32, 20))
	for i := 0; i < 15; i++ {
		if a.F32()[i] != c.F32()[i] {
			t.Fatalf("element %d: %v in 3x5, %v in 20", i, a.F32()[i], c.F32()[i])
		}
	}
}

// TestRngBadInput: what the spec calls undefined is an error naming the
// op, at compile time when the types show it, else at run time.
func TestRngBadInput(t *testing.T) {
	f := func(v float64) *hlo.Literal { return scalar(hlo.F32, v) }
	for _, c := range []struct {
		dist string
		a, b *hlo.Literal
		out  *hlo.TensorType
		want string
	}{
		{"UNIFORM", f(1), f(1), tt(hlo.F32, 2), "a < b"},
		{"UNIFORM", f(2), f(1), tt(hlo.F32, 2), "a < b"},
		{"UNIFORM", f(math.NaN()), f(1), tt(hlo.F32, 2), "a < b"},
		{"UNIFORM", f(0), f(math.Inf(1)), tt(hlo.F32, 2), "finite"},
		{"UNIFORM", scalar(hlo.I32, 5), scalar(hlo.I32, -5), tt(hlo.I32, 2), "a < b"},
		{"NORMAL", f(0), f(-1), tt(hlo.F32, 2), "b >= 0"},
		{"NORMAL", f(0), f(math.NaN()), tt(hlo.F32, 2), "b >= 0"},
		{"NORMAL", scalar(hlo.I32, 0), scalar(hlo.I32, 1), tt(hlo.I32, 2), "NORMAL"},
		{"UNIFORM", f(0), f(1), tt(hlo.F64, 2), "element type"},
		{"POISSON", f(0), f(1), tt(hlo.F32, 2), "not UNIFORM or NORMAL"},
	} {
		_, err := runDist(c.dist, c.a, c.b, c.out)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "stablehlo.rng") {
			t.Errorf("%s(%v, %v) -> %s: error %v, want one naming stablehlo.rng and %q", c.dist, c.a, c.b, c.out, err, c.want)
		}
	}
	_, err := runOp("stablehlo.rng", []*hlo.Literal{f(0), f(1), shapeOf(3)}, []hlo.Type{tt(hlo.F32, 2)}, distAttr("UNIFORM"))
	if err == nil || !strings.Contains(err.Error(), "shape operand") {
		t.Errorf("shape [3] for a tensor<2xf32>: error %v", err)
	}
}
