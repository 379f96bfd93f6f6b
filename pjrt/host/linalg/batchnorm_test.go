package linalg_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The spec's examples of the three batch_norm ops, in the generic form the
// spec writes them, with their expectations as check ops.
func TestBatchNormSpecExamples(t *testing.T) {
	const operand = `
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>`
	for name, body := range map[string]string{
		"training": operand + `
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%operand, %scale, %offset) {
    epsilon = 0.0 : f32,
    feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) ->
      (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %output, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf64>
  check.expect_almost_eq_const %batch_mean, dense<[2.0, 3.0]> : tensor<2xf64>
  check.expect_almost_eq_const %batch_var, dense<[1.0, 1.0]> : tensor<2xf64>`,
		"inference": operand + `
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %result = "stablehlo.batch_norm_inference"(%operand, %scale, %offset, %mean, %variance) {
    epsilon = 0.0 : f32,
    feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2x2xf64>
  check.expect_almost_eq_const %result, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf64>`,
		"grad": operand + `
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %grad_output = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>
  %grad_operand, %grad_scale, %grad_offset =
  "stablehlo.batch_norm_grad"(%operand, %scale, %mean, %variance, %grad_output) {
    epsilon = 0.0 : f32,
    feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>,
       tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %grad_operand, dense<0.0> : tensor<2x2x2xf64>
  check.expect_almost_eq_const %grad_scale, dense<[0.0, 0.0]> : tensor<2xf64>
  check.expect_almost_eq_const %grad_offset, dense<[0.4, 0.4]> : tensor<2xf64>`,
	} {
		t.Run(name, func(t *testing.T) {
			src := "func.func @main() {" + body + "\n  func.return\n}"
			// The generic form verifies and survives printing.
			m, err := hlo.ParseModule(name+".mlir", []byte(src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := hlo.Verify(m); err != nil {
				t.Fatalf("verify: %v", err)
			}
			printed := m.String()
			if _, err := hlo.ParseModule("printed.mlir", []byte(printed)); err != nil {
				t.Fatalf("re-parse of the printed module: %v\n%s", err, printed)
			}
			runText(t, printed)
		})
	}
}

// A wrong expectation fails: the examples above do check something.
func TestBatchNormSpecExampleCanFail(t *testing.T) {
	m, err := hlo.ParseModule("bad.mlir", []byte(`func.func @main() {
  %operand = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %scale = stablehlo.constant dense<1.0> : tensor<2xf32>
  %offset = stablehlo.constant dense<0.0> : tensor<2xf32>
  %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%operand, %scale, %offset) {epsilon = 0.0 : f32, feature_index = 1 : i64}
    : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %batch_mean, dense<[2.0, 3.5]> : tensor<2xf32>
  func.return
}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := host.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(nil, nil); err == nil || !strings.Contains(err.Error(), "expect_almost_eq_const") {
		t.Fatalf("wrong batch_mean expectation: err = %v, want a failed check", err)
	}
}

// bnRef is an independent float64 reference of the three ops: it walks
// multi-indices and groups elements by their feature coordinate.
type bnRef struct {
	dims []int64
	fi   int
	eps  float64
}

func (r bnRef) feature(i int) int { return int(unravel(i, r.dims)[r.fi]) }

func (r bnRef) count() float64 {
	return float64(hlo.NumElements(r.dims) / r.dims[r.fi])
}

func (r bnRef) meanVar(x []float64) (mean, variance []float64) {
	nf := int(r.dims[r.fi])
	mean, variance = make([]float64, nf), make([]float64, nf)
	for i, v := range x {
		mean[r.feature(i)] += v
	}
	for f := range mean {
		mean[f] /= r.count()
	}
	for i, v := range x {
		d := v - mean[r.feature(i)]
		variance[r.feature(i)] += d * d
	}
	for f := range variance {
		variance[f] /= r.count()
	}
	return mean, variance
}

func (r bnRef) inference(x, scale, offset, mean, variance []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		f := r.feature(i)
		out[i] = scale[f]*(v-mean[f])/math.Sqrt(variance[f]+r.eps) + offset[f]
	}
	return out
}

func (r bnRef) grad(x, scale, mean, variance, gy []float64) (gx, gscale, goffset []float64) {
	nf := int(r.dims[r.fi])
	gscale, goffset = make([]float64, nf), make([]float64, nf)
	sumGC := make([]float64, nf)
	for i, v := range x {
		f := r.feature(i)
		c := v - mean[f]
		goffset[f] += gy[i]
		sumGC[f] += gy[i] * c
		gscale[f] += gy[i] * c / math.Sqrt(variance[f]+r.eps)
	}
	// The textbook form: dx = scale/sd * (dy - mean(dy) - c * mean(dy*c) / (var+eps)).
	n := r.count()
	gx = make([]float64, len(x))
	for i, v := range x {
		f := r.feature(i)
		c := v - mean[f]
		gx[i] = scale[f] / math.Sqrt(variance[f]+r.eps) * (gy[i] - goffset[f]/n - c*sumGC[f]/n/(variance[f]+r.eps))
	}
	return gx, gscale, goffset
}

// floats returns a literal's elements as float64.
func floats(l *hlo.Literal) []float64 {
	out := make([]float64, l.NumElements())
	for i := range out {
		out[i] = l.Float(i)
	}
	return out
}

// ulp is the spacing of dt's values at |v| (its subnormal spacing near 0).
func ulp(dt hlo.DType, v float64) float64 {
	mant, minExp := 52, -1022
	switch dt {
	case hlo.F32:
		mant, minExp = 23, -126
	case hlo.F16:
		mant, minExp = 10, -14
	case hlo.BF16:
		mant, minExp = 7, -126
	}
	e := minExp
	if v != 0 {
		e = max(math.Ilogb(v), minExp)
	}
	return math.Ldexp(1, e-mant)
}

// roundedOnce checks that got is the exact value want rounded once to dt:
// within half an ulp of dt, plus slack for the float64 rounding of both
// computations (relative to the tensor's largest value, as cancellation
// in batch_norm_grad scales with it).
func roundedOnce(t *testing.T, what string, dt hlo.DType, got *hlo.Literal, want []float64) {
	t.Helper()
	g := floats(got)
	big := 0.0
	for _, w := range want {
		big = max(big, math.Abs(w))
	}
	for i, w := range want {
		tol := 0.5*ulp(dt, w) + 1e-12*big
		if dt == hlo.F64 {
			tol = 1e-12 * max(big, 1)
		}
		if !(math.Abs(g[i]-w) <= tol) {
			t.Fatalf("%s: element %d (%v) = %v, want %v (tolerance %g)", what, i, unravel(i, got.Dims), g[i], w, tol)
		}
	}
}

// bnCase draws an operand, per-feature parameters and a grad_output of
// dtype dt; values are rounded to dt first, so the reference sees exactly
// what the op reads.
func bnCase(rng *rand.Rand, dt hlo.DType, dims []int64, fi int) (x, scale, offset, gy *hlo.Literal) {
	nf := dims[fi]
	x = randLiteral(rng, dt, dims...)
	for i := range x.NumElements() {
		x.SetFloat(i, 3+4*x.Float(i)) // a mean well away from 0
	}
	scale = randLiteral(rng, dt, nf)
	offset = randLiteral(rng, dt, nf)
	gy = randLiteral(rng, dt, dims...)
	return x, scale, offset, gy
}

func bnAttrs(eps float32, fi int) []hlo.NamedAttr {
	return []hlo.NamedAttr{
		{Name: "epsilon", Value: hlo.FloatAttr{Value: float64(eps), Type: hlo.NewTensorType(hlo.F32)}},
		{Name: "feature_index", Value: hlo.I64Attr(int64(fi))},
	}
}

// The three ops against the float64 reference, for every feature_index
// position of a rank-4 operand (and a rank-1 one), in f16, bf16, f32 and
// f64: each result is the exact value rounded once.
func TestBatchNormReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	shapes := [][]int64{{3, 4, 5, 6}, {7}, {2, 1, 33, 3}}
	for _, dt := range []hlo.DType{hlo.F16, hlo.BF16, hlo.F32, hlo.F64} {
		for _, dims := range shapes {
			for fi := range dims {
				const eps = 1e-3
				ref := bnRef{dims: dims, fi: fi, eps: float64(float32(eps))}
				if dt != hlo.F64 && dt != hlo.F32 {
					ref.eps = hlo.FloatBitsToFloat64(dt, hlo.Float64ToFloatBits(dt, ref.eps))
				}
				x, scale, offset, gy := bnCase(rng, dt, dims, fi)
				full := tt(dt, dims...)
				feat := tt(dt, dims[fi])
				name := full.String() + "/fi=" + string(rune('0'+fi))

				res := mustRun(t, "stablehlo.batch_norm_training", []*hlo.Literal{x, scale, offset},
					[]hlo.Type{full, feat, feat}, bnAttrs(eps, fi)...)
				mean, variance := ref.meanVar(floats(x))
				roundedOnce(t, name+" training output", dt, res[0], ref.inference(floats(x), floats(scale), floats(offset), mean, variance))
				roundedOnce(t, name+" training mean", dt, res[1], mean)
				roundedOnce(t, name+" training variance", dt, res[2], variance)

				// Inference and grad take the (rounded) batch statistics as
				// operands, as a model would.
				bm, bv := res[1], res[2]
				res = mustRun(t, "stablehlo.batch_norm_inference", []*hlo.Literal{x, scale, offset, bm, bv},
					[]hlo.Type{full}, bnAttrs(eps, fi)...)
				roundedOnce(t, name+" inference", dt, res[0], ref.inference(floats(x), floats(scale), floats(offset), floats(bm), floats(bv)))

				res = mustRun(t, "stablehlo.batch_norm_grad", []*hlo.Literal{x, scale, bm, bv, gy},
					[]hlo.Type{full, feat, feat}, bnAttrs(eps, fi)...)
				gx, gs, gb := ref.grad(floats(x), floats(scale), floats(bm), floats(bv), floats(gy))
				roundedOnce(t, name+" grad_operand", dt, res[0], gx)
				roundedOnce(t, name+" grad_scale", dt, res[1], gs)
				roundedOnce(t, name+" grad_offset", dt, res[2], gb)
			}
		}
	}
}

// A larger operand runs the per-feature sums on several workers; results
// must not depend on how features are split (run twice, compare bits) and
// still match the reference.
func TestBatchNormParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	dims := []int64{8, 16, 24, 32}
	for _, fi := range []int{1, 3} {
		x, scale, offset, _ := bnCase(rng, hlo.F32, dims, fi)
		full, feat := tt(hlo.F32, dims...), tt(hlo.F32, dims[fi])
		a := mustRun(t, "stablehlo.batch_norm_training", []*hlo.Literal{x, scale, offset}, []hlo.Type{full, feat, feat}, bnAttrs(1e-5, fi)...)
		b := mustRun(t, "stablehlo.batch_norm_training", []*hlo.Literal{x, scale, offset}, []hlo.Type{full, feat, feat}, bnAttrs(1e-5, fi)...)
		for i := range a {
			if !a[i].Equal(b[i]) {
				t.Fatalf("fi=%d: result %d differs between runs", fi, i)
			}
		}
		ref := bnRef{dims: dims, fi: fi, eps: float64(float32(1e-5))}
		mean, variance := ref.meanVar(floats(x))
		roundedOnce(t, "parallel output", hlo.F32, a[0], ref.inference(floats(x), floats(scale), floats(offset), mean, variance))
		roundedOnce(t, "parallel variance", hlo.F32, a[2], variance)
	}
}

// epsilon is an f32 attribute made a constant of the element type: in f16,
// 1e-4 becomes the nearest f16 value.
func TestBatchNormEpsilonRounding(t *testing.T) {
	x := hlo.NewLiteral(hlo.F16, 2, 1)
	x.SetFloat(0, 1)
	x.SetFloat(1, 1)
	one := hlo.NewLiteral(hlo.F16, 1)
	one.SetFloat(0, 1)
	zero := hlo.NewLiteral(hlo.F16, 1)
	// mean 0, variance 0: the result is 1 / sqrt(eps) with eps rounded to f16.
	res := mustRun(t, "stablehlo.batch_norm_inference", []*hlo.Literal{x, one, zero, zero, zero},
		[]hlo.Type{tt(hlo.F16, 2, 1)}, bnAttrs(1e-4, 1)...)
	eps16 := hlo.FloatBitsToFloat64(hlo.F16, hlo.Float64ToFloatBits(hlo.F16, float64(float32(1e-4))))
	want := hlo.FloatBitsToFloat64(hlo.F16, hlo.Float64ToFloatBits(hlo.F16, 1/math.Sqrt(eps16)))
	if got := res[0].Float(0); got != want {
		t.Fatalf("1/sqrt(eps) in f16 = %v, want %v (eps rounded to f16: %v)", got, want, eps16)
	}
}

// Small float types (f8, f6, f4) go through the same float64 computation;
// results are the exact value rounded once.
func TestBatchNormSmallFloats(t *testing.T) {
	x := hlo.NewLiteral(hlo.F8E4M3FN, 2, 2)
	for i, v := range []float64{1, 2, 3, 6} {
		x.SetFloat(i, v)
	}
	one := hlo.NewLiteral(hlo.F8E4M3FN, 2)
	one.SetFloat(0, 1)
	one.SetFloat(1, 1)
	zero := hlo.NewLiteral(hlo.F8E4M3FN, 2)
	res := mustRun(t, "stablehlo.batch_norm_training", []*hlo.Literal{x, one, zero},
		[]hlo.Type{tt(hlo.F8E4M3FN, 2, 2), tt(hlo.F8E4M3FN, 2), tt(hlo.F8E4M3FN, 2)}, bnAttrs(0, 1)...)
	// Feature 0: {1, 3}, mean 2, variance 1; feature 1: {2, 6}, mean 4,
	// variance 4. Normalized: ±1 each.
	for i, w := range []float64{-1, -1, 1, 1} {
		if got := res[0].Float(i); got != w {
			t.Fatalf("output[%d] = %v, want %v", i, got, w)
		}
	}
	for i, w := range []float64{2, 4} {
		if res[1].Float(i) != w || res[2].Float(i) != w*w/4 {
			t.Fatalf("feature %d: mean %v variance %v, want %v and %v", i, res[1].Float(i), res[2].Float(i), w, w*w/4)
		}
	}
}

// An operand with no elements per feature gives NaN statistics (0/0, as
// the decomposition divides), and grad sums of nothing are 0.
func TestBatchNormEmpty(t *testing.T) {
	x := hlo.NewLiteral(hlo.F32, 0, 2)
	p := hlo.NewLiteral(hlo.F32, 2)
	res := mustRun(t, "stablehlo.batch_norm_training", []*hlo.Literal{x, p, p},
		[]hlo.Type{tt(hlo.F32, 0, 2), tt(hlo.F32, 2), tt(hlo.F32, 2)}, bnAttrs(0, 1)...)
	if !math.IsNaN(res[1].Float(0)) || !math.IsNaN(res[2].Float(1)) {
		t.Fatalf("empty batch: mean %v variance %v, want NaN", floats(res[1]), floats(res[2]))
	}
	res = mustRun(t, "stablehlo.batch_norm_grad", []*hlo.Literal{x, p, p, p, x},
		[]hlo.Type{tt(hlo.F32, 0, 2), tt(hlo.F32, 2), tt(hlo.F32, 2)}, bnAttrs(0, 1)...)
	if res[1].Float(0) != 0 || res[2].Float(1) != 0 {
		t.Fatalf("empty batch: grad_scale %v grad_offset %v, want 0", floats(res[1]), floats(res[2]))
	}
}

// Per-tensor quantized operands: dequantize, compute, quantize the result
// (the spec's dequantize_op_quantize).
func TestBatchNormQuantized(t *testing.T) {
	src := `func.func @main() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf32>
  %p = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %z = stablehlo.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %qx = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:-3>>
  %qp = stablehlo.uniform_quantize %p : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-3>>
  %qz = stablehlo.uniform_quantize %z : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-3>>
  %out, %mean, %var = "stablehlo.batch_norm_training"(%qx, %qp, %qz) {epsilon = 0.0 : f32, feature_index = 0 : i64}
    : (tensor<2x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x!quant.uniform<i8:f32, 0.5:-3>>)
    -> (tensor<2x2x!quant.uniform<i8:f32, 0.25:1>>, tensor<2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x!quant.uniform<i8:f32, 0.5:-3>>)
  %fout = stablehlo.uniform_dequantize %out : (tensor<2x2x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<2x2xf32>
  %fmean = stablehlo.uniform_dequantize %mean : (tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2xf32>
  %fvar = stablehlo.uniform_dequantize %var : (tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2xf32>
  check.expect_eq_const %fout, dense<[[-1.0, 1.0], [-1.0, 1.0]]> : tensor<2x2xf32>
  check.expect_eq_const %fmean, dense<[1.5, 4.5]> : tensor<2xf32>
  check.expect_eq_const %fvar, dense<[0.5, 2.5]> : tensor<2xf32>
  func.return
}`
	// Feature 0 is {1, 2}: mean 1.5, variance 0.25; feature 1 is {3, 6}:
	// mean 4.5, variance 2.25; the output is ±1 (storage -3 and 5 at
	// 0.25:1). In storage units of 0.5:-3 the variances are 0.25/0.5-3 =
	// -2.5 and 2.25/0.5-3 = 1.5, rounded half to even to -2 and 2, which
	// dequantize to 0.5 and 2.5.
	runText(t, src)
}

// A dynamic operand dimension is resolved at run time; the feature size
// is checked against the run-time operand.
func TestBatchNormDynamic(t *testing.T) {
	dyn := tt(hlo.F32, hlo.DynamicDim, 2)
	feat := tt(hlo.F32, 2)
	p, err := host.Compile(singleOpModule("stablehlo.batch_norm_training", []hlo.Type{dyn, feat, feat},
		[]hlo.Type{dyn, feat, feat}, bnAttrs(0, 1)...))
	if err != nil {
		t.Fatal(err)
	}
	x := hlo.LiteralFromSlice([]float32{1, 2, 3, 6, 5, 10}, 3, 2)
	one := hlo.LiteralFromSlice([]float32{1, 1}, 2)
	zero := hlo.LiteralFromSlice([]float32{0, 0}, 2)
	res, err := p.Run(nil, []kernel.Value{x, one, zero})
	if err != nil {
		t.Fatal(err)
	}
	out, mean := res[0].(*hlo.Literal), res[1].(*hlo.Literal)
	if !dimsEq(out.Dims, []int64{3, 2}) || mean.F32()[0] != 3 || mean.F32()[1] != 6 {
		t.Fatalf("output %s, mean %v; want 3x2 and [3 6]", out.ShapeString(), mean.F32())
	}
	dyn1 := tt(hlo.F32, 2, hlo.DynamicDim)
	p, err = host.Compile(singleOpModule("stablehlo.batch_norm_training", []hlo.Type{dyn1, feat, feat},
		[]hlo.Type{dyn1, feat, feat}, bnAttrs(0, 1)...))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(nil, []kernel.Value{hlo.LiteralFromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3), one, zero})
	if err == nil || !strings.Contains(err.Error(), "feature size 3") {
		t.Fatalf("feature size mismatch at run time: err = %v", err)
	}
}

// Malformed ops fail at compile time (the verifier) with the op, the fault
// and the types.
func TestBatchNormErrors(t *testing.T) {
	x, f, f3 := tt(hlo.F32, 2, 3), tt(hlo.F32, 3), tt(hlo.F32, 2)
	for _, c := range []struct {
		name     string
		in, out  []hlo.Type
		attrs    []hlo.NamedAttr
		contains string
	}{
		{"stablehlo.batch_norm_training", []hlo.Type{x, f, f}, []hlo.Type{x, f, f}, bnAttrs(0, 2), "feature_index 2 is out of range"},
		{"stablehlo.batch_norm_training", []hlo.Type{x, f3, f}, []hlo.Type{x, f, f}, bnAttrs(0, 1), "operand #1 tensor<2xf32> does not have the feature size 3"},
		{"stablehlo.batch_norm_inference", []hlo.Type{x, f, f, f, f}, []hlo.Type{tt(hlo.F32, 3, 2)}, bnAttrs(0, 1), "result #0 has type tensor<3x2xf32>, inferred tensor<2x3xf32>"},
		{"stablehlo.batch_norm_grad", []hlo.Type{x, f, f, f, tt(hlo.F16, 2, 3)}, []hlo.Type{x, f, f}, bnAttrs(0, 1), "operand type tensor<2x3xf32> and grad_output type tensor<2x3xf16> differ"},
		{"stablehlo.batch_norm_grad", []hlo.Type{tt(hlo.I32, 2, 3), f, f, f, x}, []hlo.Type{x, f, f}, bnAttrs(0, 1), "want a tensor of floating-point type"},
		{"stablehlo.batch_norm_training", []hlo.Type{x, f, f}, []hlo.Type{x, f, f}, bnAttrs(0, 1)[1:], "missing float attribute epsilon"},
		{"stablehlo.batch_norm_training", []hlo.Type{x, f, f}, []hlo.Type{x, f, f}, bnAttrs(0, 1)[:1], "missing attribute feature_index"},
		{"stablehlo.batch_norm_inference", []hlo.Type{x, f, f}, []hlo.Type{x}, bnAttrs(0, 1), "expected 5 operands, got 3"},
	} {
		_, err := host.Compile(singleOpModule(c.name, c.in, c.out, c.attrs...))
		if err == nil || !strings.Contains(err.Error(), c.contains) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s %v -> %v: err = %v, want it to name the op and contain %q", c.name, c.in, c.out, err, c.contains)
		}
	}
}

// Training on an f32 activation of 1M elements, features in the NCHW
// (feature_index 1) and NHWC (feature_index 3) positions.
func BenchmarkBatchNormTraining(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name string
		dims []int64
		fi   int
	}{{"NCHW", []int64{16, 64, 32, 32}, 1}, {"NHWC", []int64{16, 32, 32, 64}, 3}} {
		b.Run(c.name, func(b *testing.B) {
			x, scale, offset, _ := bnCase(rng, hlo.F32, c.dims, c.fi)
			full, feat := tt(hlo.F32, c.dims...), tt(hlo.F32, c.dims[c.fi])
			p, err := host.Compile(singleOpModule("stablehlo.batch_norm_training", []hlo.Type{full, feat, feat},
				[]hlo.Type{full, feat, feat}, bnAttrs(1e-5, c.fi)...))
			if err != nil {
				b.Fatal(err)
			}
			args := []kernel.Value{x, scale, offset}
			b.SetBytes(int64(len(x.Data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Run(nil, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
