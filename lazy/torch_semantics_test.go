package lazy

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Behaviour where the lazy API mirrors PyTorch: scalar arguments, type
// promotion, fill values, run-time index checks, and the accuracy of
// reductions in small float types. The PyTorch oracle (torch_oracle_test.go)
// checks every op against recorded PyTorch results; these tests pin the
// cases that once differed.

func TestTorchScalarArithmetic(t *testing.T) {
	x := FromSlice([]int32{1, 2, 3, -4})
	// True division by a fractional scalar: f32, not a division by 0.
	expectT(t, "i32 DivScalar(0.5)", x.DivScalar(0.5), F32, ndOf([]float64{2, 4, 6, -8}, 4), exact)
	// Integer / integer scalar is true division too.
	expectT(t, "i32 DivScalar(2)", x.DivScalar(2), F32, ndOf([]float64{0.5, 1, 1.5, -2}, 4), exact)
	expectT(t, "i32 Div(i32)", x.Div(FromSlice([]int32{2, 2, 2, 2})), F32, ndOf([]float64{0.5, 1, 1.5, -2}, 4), exact)
	// A fractional scalar makes an integer tensor float (default f32).
	expectT(t, "i32 MulScalar(2.7)", x.MulScalar(2.7), F32,
		ndOf([]float64{float64(float32(2.7)), float64(float32(2.7) * 2), float64(float32(2.7) * 3), float64(float32(2.7) * -4)}, 4),
		ulpsTol(F32, 1, 0))
	expectT(t, "i32 AddScalar(0.5)", x.AddScalar(0.5), F32, ndOf([]float64{1.5, 2.5, 3.5, -3.5}, 4), exact)
	// An integral scalar keeps the integer type (and wraps like one).
	expectT(t, "i32 MulScalar(3)", x.MulScalar(3), I32, ndOf([]float64{3, 6, 9, -12}, 4), exact)
	i8 := FromSlice([]int8{1, 100})
	expectT(t, "i8 AddScalar(300)", i8.AddScalar(300), I8, ndOf([]float64{45, -112}, 2), exact)
	// Bool with an integer scalar is i64; comparisons with a fractional
	// scalar compare as floats.
	b := FromSlice([]bool{true, false})
	expectT(t, "bool AddScalar(1)", b.AddScalar(1), I64, ndOf([]float64{2, 1}, 2), exact)
	expectT(t, "i32 LtScalar(1.5)", FromSlice([]int32{1, 2}).LtScalar(1.5), Bool, ndOf([]float64{1, 0}, 2), exact)
	// Float tensors keep their type whatever the scalar.
	h := FromLiteral(literalOf(ndOf([]float64{1, 2}, 2), F16))
	expectT(t, "f16 MulScalar(1e10)", h.MulScalar(1e10), F16, ndOf([]float64{math.Inf(1), math.Inf(1)}, 2), exact)
	// Integer powers: integral scalar exponents stay integer, negative ones
	// are an error (as PyTorch raises).
	expectT(t, "i32 PowScalar(2)", x.PowScalar(2), I32, ndOf([]float64{1, 4, 9, 16}, 4), exact)
	expectT(t, "i32 PowScalar(0.5)", FromSlice([]int32{4, 9}).PowScalar(0.5), F32, ndOf([]float64{2, 3}, 2), exact)
	expectErr(t, "i32 PowScalar(-1)", "PowScalar", func() { x.PowScalar(-1) })
}

func TestTorchTypePromotion(t *testing.T) {
	type tc struct {
		a, b   DType
		a0, b0 bool // 0-d operand
		want   DType
	}
	cases := []tc{
		{I32, F32, false, false, F32},
		{I32, I64, false, false, I64},
		{U8, I8, false, false, I16},
		{BF16, F16, false, false, F32},
		{F16, F32, false, false, F32},
		{Bool, I8, false, false, I8},
		{F32, C64, false, false, C64},
		{F64, C64, false, false, C128},
		{I32, I64, false, true, I32},  // a 0-d tensor does not widen within its category
		{F16, F64, false, true, F16},  // ...nor among floats
		{I32, F64, false, true, F64},  // a higher category takes the 0-d tensor's type
		{I32, F64, true, true, F64},   // all 0-d: ordinary promotion
		{Bool, I32, false, true, I32}, // bool is the lowest category
	}
	for _, c := range cases {
		mkOf := func(dt DType, zero bool) *Tensor {
			if zero {
				return Full(dt, 1)
			}
			return Full(dt, 1, 3)
		}
		for _, op := range []struct {
			name string
			f    func(a, b *Tensor) *Tensor
		}{{"Add", (*Tensor).Add}, {"Mul", (*Tensor).Mul}, {"Max", (*Tensor).Max}, {"Where", func(a, b *Tensor) *Tensor { return Where(Full(Bool, 1), a, b) }}} {
			if op.name == "Max" && c.want.IsComplex() {
				continue // complex numbers have no order (TestTorchComplexOrder)
			}
			y := op.f(mkOf(c.a, c.a0), mkOf(c.b, c.b0))
			if y.DType() != c.want {
				t.Errorf("%s(%s%s, %s%s) = %s, want %s", op.name, c.a, dimNote(c.a0), c.b, dimNote(c.b0), y.DType(), c.want)
			}
			y = op.f(mkOf(c.b, c.b0), mkOf(c.a, c.a0))
			if y.DType() != c.want {
				t.Errorf("%s(%s%s, %s%s) = %s, want %s", op.name, c.b, dimNote(c.b0), c.a, dimNote(c.a0), y.DType(), c.want)
			}
		}
	}
	// Float-only unary ops make integer tensors f32; sums of integers are
	// i64.
	expectT(t, "i32 Exp", FromSlice([]int32{0}).Exp(), F32, ndOf([]float64{1}, 1), exact)
	expectT(t, "i8 Sum", FromSlice([]int8{100, 100}).Sum(), I64, ndOf([]float64{200}), exact)
	expectT(t, "bool Sum", FromSlice([]bool{true, true}).Sum(), I64, ndOf([]float64{2}), exact)
	expectT(t, "i32 Floor", FromSlice([]int32{-3}).Floor(), I32, ndOf([]float64{-3}, 1), exact)
}

func dimNote(zero bool) string {
	if zero {
		return "[]"
	}
	return "[3]"
}

func TestTorchFullRange(t *testing.T) {
	for _, c := range []struct {
		dt DType
		v  float64
	}{{I8, 300}, {I8, -129}, {U8, 256}, {U8, -256}, {I32, math.NaN()}, {F16, 1e5}, {F32, 1e39}, {I64, 1e19}} {
		expectErr(t, "Full", "Full", func() { Full(c.dt, c.v, 2) })
	}
	// In range (or wrapping like PyTorch: -1 fills a u8 with 255; fractions
	// truncate toward zero; infinities and NaN fill floats).
	expectT(t, "Full(u8, -1)", Full(U8, -1, 2), U8, ndOf([]float64{255, 255}, 2), exact)
	expectT(t, "Full(i32, -2.5)", Full(I32, -2.5, 1), I32, ndOf([]float64{-2}, 1), exact)
	expectT(t, "Full(f16, inf)", Full(F16, math.Inf(-1), 1), F16, ndOf([]float64{math.Inf(-1)}, 1), exact)
	expectT(t, "Full(i8, 127)", Full(I8, 127, 1), I8, ndOf([]float64{127}, 1), exact)
}

func TestTorchIndexChecks(t *testing.T) {
	x := FromSlice([]float32{0, 1, 2, 3, 4})
	for _, idx := range [][]int64{{-1}, {5}, {0, 7, 1}} {
		y := x.IndexSelect(0, FromSlice(idx))
		err := Sync(y)
		if err == nil || !strings.Contains(err.Error(), "IndexSelect") || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("IndexSelect(%v): err = %v, want an out-of-range error naming IndexSelect", idx, err)
		}
		if !y.IsPending() {
			t.Errorf("IndexSelect(%v): failed cut left a value", idx)
		}
	}
	expectT(t, "IndexSelect ok", x.IndexSelect(0, FromSlice([]int64{4, 0, 4})), F32, ndOf([]float64{4, 0, 4}, 3), exact)

	logits := FromSlice([]float32{0, 0, 0, 0, 0, 0}, 2, 3)
	for _, lab := range [][]int64{{0, 3}, {-1, 0}} {
		err := Sync(CrossEntropy(logits, FromSlice(lab)))
		if err == nil || !strings.Contains(err.Error(), "CrossEntropy") {
			t.Errorf("CrossEntropy(labels %v): err = %v, want an error naming CrossEntropy", lab, err)
		}
	}
	// PyTorch's ignore_index -100 leaves a label out of the mean.
	ce := CrossEntropy(logits, FromSlice([]int64{0, -100}))
	expectT(t, "CrossEntropy ignore", ce, F32, ndOf([]float64{math.Log(3)}), ulpsTol(F32, 4, 1))
}

func TestTorchLargeLogits(t *testing.T) {
	logits := FromSlice([]float32{1e7, 1e7 + 1}, 1, 2)
	want := math.Log1p(math.Exp(1)) // -log softmax of the smaller logit
	expectT(t, "CrossEntropy", CrossEntropy(logits, FromSlice([]int64{0})), F32, ndOf([]float64{want}), ulpsTol(F32, 4, 1))
	expectT(t, "LogSoftmax", logits.LogSoftmax(1), F32, ndOf([]float64{-want, -math.Log1p(math.Exp(-1))}, 1, 2), ulpsTol(F32, 4, 1))
}

// Reductions of f16/bf16 accumulate in f32 and round once.
func TestTorchHalfAccumulation(t *testing.T) {
	expectT(t, "bf16 Mean(1000 ones)", Ones(BF16, 1000).Mean(), BF16, ndOf([]float64{1}), exact)
	expectT(t, "f16 Sum(4096 ones)", Ones(F16, 4096).Sum(), F16, ndOf([]float64{4096}), exact)
	r := newRand(7)
	for _, dt := range []DType{F16, BF16} {
		a := randND(r, 0.5, 1.5, 4, 2048)
		x, held := mk(a, dt)
		x32 := FromLiteral(literalOf(held, F32))
		// The f32 computation rounded once to dt is the reference; a result
		// accumulated in dt is off by many units.
		check := func(name string, got, ref *Tensor) {
			t.Helper()
			want := valuesOf(ref.Cast(dt))
			expectT(t, dt.String()+" "+name, got, dt, want, ulpsTol(dt, 1, 0))
		}
		check("Sum", x.Sum(1), x32.Sum(1))
		check("Mean", x.Mean(1), x32.Mean(1))
		check("Var", x.Var(1), x32.Var(1))
		check("Softmax", x.Softmax(1), x32.Softmax(1))
		check("LogSoftmax", x.LogSoftmax(1), x32.LogSoftmax(1))
		check("LayerNorm", LayerNorm(x, 1, nil, nil, 1e-5), LayerNorm(x32, 1, nil, nil, 1e-5))
		check("LogSumExp", x.LogSumExp(1), x32.LogSumExp(1))
	}
}

// expectErr runs fn and wants a panic with an *Error naming op.
func expectErr(t *testing.T, what, op string, fn func()) {
	t.Helper()
	err := Try(fn)
	if err == nil {
		t.Errorf("%s: no error, want one naming %s", what, op)
		return
	}
	if !strings.Contains(err.Error(), op) {
		t.Errorf("%s: error %q does not name %s", what, err, op)
	}
}

// A sum of 16M f32 values is accurate to about the unit roundoff (a left
// fold drifts by 4e-3 here).
func TestTorchSumAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("16M elements")
	}
	const n = 1 << 24
	want := float64(float32(0.1)) * n
	for _, x := range []*Tensor{Full(F32, 0.1, n), Full(F32, 0.1, 4096, 4096)} {
		got := x.Sum().Item()
		if rel := math.Abs(got-want) / want; rel > 1e-6 {
			t.Errorf("sum of %v x 0.1 = %v, want %v (relative error %.3g)", x.Dims(), got, want, rel)
		}
		col := x.Reshape(n/16, 16).Sum(0).Float64s()
		for i, v := range col {
			if rel := math.Abs(v-want/16) / (want / 16); rel > 1e-6 {
				t.Errorf("column %d of %d rows = %v, want %v (relative error %.3g)", i, n/16, v, want/16, rel)
				break
			}
		}
	}
}

// TestTorchEmptyInnerProduct: a batched product over an empty inner axis
// is zeros, as torch.zeros(2, 3, 0) @ torch.zeros(0, 4) is (MatMul folded
// the batch with Reshape(-1, 0), which cannot infer -1 from no elements);
// Linear's bias is then the whole result; the gradients are empty.
func TestTorchEmptyInnerProduct(t *testing.T) {
	a := Zeros(F32, 2, 3, 0)
	expectT(t, "[2,3,0] x [0,4]", a.MatMul(Zeros(F32, 0, 4)), F32, newND(2, 3, 4), exact)
	expectT(t, "[2,3,0] x [0]", a.MatMul(Zeros(F32, 0)), F32, newND(2, 3), exact)
	ones := newND(2, 3, 4)
	for i := range ones.v {
		ones.v[i] = 1
	}
	expectT(t, "Linear [2,3,0]", Linear(a, Zeros(F32, 4, 0), Ones(F32, 4)), F32, ones, exact)
	g := Grad(a.MatMul(Zeros(F32, 0, 4)).Sum(), a)[0]
	expectT(t, "its gradient", g, F32, newND(2, 3, 0), exact)
}

// TestTorchProdGradNaN: the gradient of a product with one zero in a slice
// is, at each other element, the zero times the others: 0, or NaN where a
// factor is infinite or NaN (it was 0 everywhere but the zero). Expected
// values from PyTorch 1.13 (x.prod() or x.prod(1), then .sum().backward()).
func TestTorchProdGradNaN(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		x    []float64
		dims []int64
		axes []int
		want []float64
	}{
		{[]float64{nan, 2, 0}, []int64{3}, nil, []float64{0, nan, nan}},
		{[]float64{inf, 2, 0}, []int64{3}, nil, []float64{0, nan, inf}},
		{[]float64{-inf, 0, 3}, []int64{3}, nil, []float64{0, -inf, nan}},
		{[]float64{0, 2, 3}, []int64{3}, nil, []float64{6, 0, 0}},
		{[]float64{nan, 2, 0, 1, 2, 3}, []int64{2, 3}, []int{1}, []float64{0, nan, nan, 6, 3, 2}},
		{[]float64{inf, 2, 0, 0, 0, 3}, []int64{2, 3}, []int{1}, []float64{0, nan, inf, 0, 0, 0}},
	} {
		for _, dt := range []DType{F64, F32} {
			x := FromSlice(c.x, c.dims...).Cast(dt)
			g := Grad(x.Prod(c.axes...).Sum(), x)[0]
			expectT(t, fmt.Sprintf("Prod(%v) gradient at %v (%s)", c.axes, c.x, dt), g, dt, ndOf(c.want, c.dims...), exact)
		}
	}
}

// TestTorchUnbatched2d: Conv2d, MaxPool2d and AvgPool2d take an unbatched
// [C, H, W] input, as F.conv2d, F.max_pool2d and F.avg_pool2d do in
// PyTorch 1.13 (they were refused as "must be 4-D"), with the gradient,
// and a bad call names the caller's 3-D shape. Expected values:
//
//	x = torch.arange(16.).reshape(1, 4, 4)
//	F.max_pool2d(x, 2); F.avg_pool2d(x, 2, 1, 1); F.conv2d(x, torch.ones(2, 1, 2, 2), torch.ones(2))
func TestTorchUnbatched2d(t *testing.T) {
	x := Iota(F32, 2, 1, 4, 4).Add(Iota(F32, 1, 1, 4, 4).MulScalar(4))
	expectT(t, "MaxPool2d [1,4,4]", x.MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{}), F32, ndOf([]float64{5, 7, 13, 15}, 1, 2, 2), exact)
	expectT(t, "AvgPool2d [1,4,4]", x.AvgPool2d([2]int64{2, 2}, [2]int64{1, 1}, [2]int64{1, 1}), F32,
		ndOf([]float64{0, 0.25, 0.75, 1.25, 0.75, 1, 2.5, 3.5, 4.5, 2.5, 3, 6.5, 7.5, 8.5, 4.5, 5, 10.5, 11.5, 12.5, 6.5, 3, 6.25, 6.75, 7.25, 3.75}, 1, 5, 5), exact)
	conv := []float64{11, 15, 19, 27, 31, 35, 43, 47, 51}
	expectT(t, "Conv2d [1,4,4]", Conv2d(x, Ones(F32, 2, 1, 2, 2), Ones(F32, 2), Conv2dOpts{}), F32, ndOf(append(conv, conv...), 2, 3, 3), exact)
	// x.grad of F.max_pool2d(x, 2).sum(): one at each window's maximum.
	g := Grad(x.MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{}).Sum(), x)[0]
	expectT(t, "MaxPool2d [1,4,4] gradient", g, F32, ndOf([]float64{0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1}, 1, 4, 4), exact)
	err := Try(func() { Conv2d(x, Ones(F32, 2, 2, 2, 2), nil, Conv2dOpts{}) })
	if err == nil || !strings.Contains(err.Error(), "Conv2d(f32[1,4,4], f32[2,2,2,2])") {
		t.Errorf("Conv2d of [1,4,4] with 2 input channels: %v, want an error naming f32[1,4,4]", err)
	}
}

// TestTorchComplexVar: the variance of a complex tensor is the real mean
// of |x - mean|², as torch.var gives it (it was the complex mean of
// (x - mean)²). Expected values from PyTorch 1.13:
//
//	x = torch.tensor([1+2j, -3+.5j, 0, 2-1j]).reshape(2, 2)
//	x.var(unbiased=False); x.var(0, unbiased=False); x.var(1, unbiased=False, keepdim=True)
func TestTorchComplexVar(t *testing.T) {
	for _, c := range []struct{ dt, real DType }{{C64, F32}, {C128, F64}} {
		x := FromSlice([]complex128{1 + 2i, -3 + 0.5i, 0, 2 - 1i}, 2, 2).Cast(c.dt)
		expectT(t, "Var", x.Var(), c.real, ndOf([]float64{4.671875}), ulpsTol(c.real, 4, 0))
		expectT(t, "Var(0)", x.Var(0), c.real, ndOf([]float64{1.25, 6.8125}, 2), ulpsTol(c.real, 4, 0))
		expectT(t, "VarKeepDims(1)", x.VarKeepDims(1), c.real, ndOf([]float64{4.5625, 1.25}, 2, 1), ulpsTol(c.real, 4, 0))
	}
}

// TestTorchComplexOrder: ops that order values refuse complex operands, as
// PyTorch does ("maximum not implemented for complex tensors", "clamp is
// not supported for complex types"); they compared them lexicographically
// (StableHLO's order). Equality still works.
func TestTorchComplexOrder(t *testing.T) {
	c := FromSlice([]complex64{1 + 2i, -3 + 0.5i}, 2)
	for name, f := range map[string]func(){
		"Max":        func() { c.Max(c) },
		"Min":        func() { c.Min(Zeros(F32, 2)) },
		"ReduceMax":  func() { c.ReduceMax() },
		"ReduceMin":  func() { c.ReduceMinKeepDims(0) },
		"ReLU":       func() { c.ReLU() },
		"Lt":         func() { c.Lt(c) },
		"GeScalar":   func() { c.GeScalar(0) },
		"MaxScalar":  func() { c.MaxScalar(0) },
		"MinScalar":  func() { c.MinScalar(math.NaN()) },
		"f32 Gt c64": func() { Zeros(F32, 2).Gt(c) },
	} {
		if err := Try(f); err == nil || !strings.Contains(err.Error(), "complex numbers have no order") {
			t.Errorf("%s of complex: %v, want an error", name, err)
		}
	}
	if got := c.Eq(c).Bools(); !got[0] || !got[1] {
		t.Errorf("Eq of complex: %v", got)
	}
}
