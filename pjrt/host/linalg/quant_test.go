package linalg_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// compileText parses and compiles a module.
func compileText(t *testing.T, src string) (*host.Program, error) {
	t.Helper()
	m, err := hlo.ParseModule("quant.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return host.Compile(m)
}

// runTextArgs parses, compiles and runs a module with arguments.
func runTextArgs(t *testing.T, src string, args ...*hlo.Literal) []*hlo.Literal {
	t.Helper()
	p, err := compileText(t, src)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	in := make([]kernel.Value, len(args))
	for i, a := range args {
		in[i] = a
	}
	res, err := p.Run(nil, in)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	out := make([]*hlo.Literal, len(res))
	for i, r := range res {
		out[i] = r.(*hlo.Literal)
	}
	return out
}

// randStorage fills an i8 literal with values in [lo, hi].
func randStorage(r *rand.Rand, lo, hi int64, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.I8, dims...)
	for i := 0; i < l.NumElements(); i++ {
		l.SetInt(i, lo+r.Int64N(hi-lo+1))
	}
	return l
}

// qparams is a quantization for the oracle: one (scale, zero point) per
// slice along axis (axis < 0: per tensor).
type qparams struct {
	axis   int
	scales []float64
	zps    []int64
}

func (q qparams) at(i int, dims []int64) (float64, int64) {
	if q.axis < 0 {
		return q.scales[0], q.zps[0]
	}
	inner := int(hlo.NumElements(dims[q.axis+1:]))
	k := i / inner % int(dims[q.axis])
	return q.scales[k], q.zps[k]
}

// dequantRat is storage element i of l as an exact rational (s - z) * scale.
func dequantRat(l *hlo.Literal, q qparams, i int) *big.Rat {
	s, z := q.at(i, l.Dims)
	v := new(big.Rat).SetFrac64(l.Int(i)-z, 1)
	return v.Mul(v, new(big.Rat).SetFloat64(s))
}

// quantizeRat is quantize on an exact value: round half to even of
// clamp(v / scale + z) into [lo, hi].
func quantizeRat(v *big.Rat, scale float64, z, lo, hi int64) int64 {
	x := new(big.Rat).Quo(v, new(big.Rat).SetFloat64(scale))
	x.Add(x, new(big.Rat).SetFrac64(z, 1))
	if x.Cmp(new(big.Rat).SetFrac64(lo, 1)) <= 0 {
		return lo
	}
	if x.Cmp(new(big.Rat).SetFrac64(hi, 1)) >= 0 {
		return hi
	}
	fl := new(big.Int).Div(x.Num(), x.Denom()) // floor (Denom > 0)
	frac := new(big.Rat).Sub(x, new(big.Rat).SetInt(fl))
	switch frac.Cmp(big.NewRat(1, 2)) {
	case 1:
		fl.Add(fl, big.NewInt(1))
	case 0:
		if fl.Bit(0) == 1 {
			fl.Add(fl, big.NewInt(1))
		}
	}
	return fl.Int64()
}

// A quantized dot_general with a per-axis rhs (nonzero zero points on both
// operands, a batching dimension) matches dequantize, exact product,
// quantize.
func TestQuantizedDotGeneralPerAxis(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	l := randStorage(r, -128, 127, 2, 3, 5)
	rr := randStorage(r, -100, 100, 2, 5, 4)
	lq := qparams{-1, []float64{0.05}, []int64{-3}}
	rq := qparams{2, []float64{0.1, 0.2, 0.3, 0.07}, []int64{2, 0, -1, 5}}
	oq := qparams{-1, []float64{0.7}, []int64{5}}
	src := `
func.func @main(%a: tensor<2x3x5x!quant.uniform<i8:f32, 0.05:-3>>, %b: tensor<2x5x4x!quant.uniform<i8:f32:2, {0.1:2,0.2,0.3:-1,0.07:5}>>) -> tensor<2x3x4x!quant.uniform<i8:f32, 0.7:5>> {
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]
    : (tensor<2x3x5x!quant.uniform<i8:f32, 0.05:-3>>, tensor<2x5x4x!quant.uniform<i8:f32:2, {0.1:2,0.2,0.3:-1,0.07:5}>>) -> tensor<2x3x4x!quant.uniform<i8:f32, 0.7:5>>
  return %r : tensor<2x3x4x!quant.uniform<i8:f32, 0.7:5>>
}`
	got := runTextArgs(t, src, l, rr)[0]
	if got.DType != hlo.I8 {
		t.Fatalf("result storage %s, want i8", got.DType)
	}
	clamped := 0
	for b := 0; b < 2; b++ {
		for i := 0; i < 3; i++ {
			for j := 0; j < 4; j++ {
				sum := new(big.Rat)
				for k := 0; k < 5; k++ {
					p := dequantRat(l, lq, (b*3+i)*5+k)
					p.Mul(p, dequantRat(rr, rq, (b*5+k)*4+j))
					sum.Add(sum, p)
				}
				want := quantizeRat(sum, oq.scales[0], oq.zps[0], -128, 127)
				if want == -128 || want == 127 {
					clamped++
				}
				if g := got.Int((b*3+i)*4 + j); g != want {
					t.Fatalf("element [%d %d %d]: got %d, want %d", b, i, j, g, want)
				}
			}
		}
	}
	if clamped == 24 {
		t.Fatalf("every element clamped: the test checks nothing but the clamp")
	}
}

// The legacy dot and a per-axis result: an i32 result whose scales are
// s_l*s_r[k] holds the exact integer sums.
func TestQuantizedDotPerAxisResult(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	l := randStorage(r, -128, 127, 3, 6)
	rr := randStorage(r, -128, 127, 6, 2)
	src := `
func.func @main(%a: tensor<3x6x!quant.uniform<i8:f32, 0.5:4>>, %b: tensor<6x2x!quant.uniform<i8:f32:1, {0.25,0.125}>>) -> tensor<3x2x!quant.uniform<i32:f32:1, {0.125,0.0625}>> {
  %r = stablehlo.dot %a, %b : (tensor<3x6x!quant.uniform<i8:f32, 0.5:4>>, tensor<6x2x!quant.uniform<i8:f32:1, {0.25,0.125}>>) -> tensor<3x2x!quant.uniform<i32:f32:1, {0.125,0.0625}>>
  return %r : tensor<3x2x!quant.uniform<i32:f32:1, {0.125,0.0625}>>
}`
	got := runTextArgs(t, src, l, rr)[0]
	if got.DType != hlo.I32 {
		t.Fatalf("result storage %s, want i32", got.DType)
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			want := int64(0)
			for k := 0; k < 6; k++ {
				want += (l.Int(i*6+k) - 4) * rr.Int(k*2+j)
			}
			if g := got.Int(i*2 + j); g != want {
				t.Fatalf("element [%d %d]: got %d, want %d", i, j, g, want)
			}
		}
	}
}

// A quantized 1-d convolution with padding, stride, feature groups and a
// per-axis rhs (along the kernel output features) matches a naive
// dequantize, exact convolution, quantize; dynamic_conv with the same
// padding agrees with it.
func TestQuantizedConvolution(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, w, c, k, o, g = 2, 7, 4, 3, 4, 2 // lhs [n, w, c], rhs [k, c/g, o]
	const stride, p0, p1 = 2, 1, 2
	ow := (w+p0+p1-k)/stride + 1
	l := randStorage(r, -128, 127, n, w, c)
	rr := randStorage(r, -128, 127, k, c/g, o)
	lq := qparams{-1, []float64{0.02}, []int64{-10}}
	rq := qparams{2, []float64{0.01, 0.03, 0.02, 0.05}, []int64{0, 3, -2, 1}}
	oq := qparams{-1, []float64{0.11}, []int64{-7}}
	lt := "tensor<2x7x4x!quant.uniform<i8:f32, 0.02:-10>>"
	rt := "tensor<3x2x4x!quant.uniform<i8:f32:2, {0.01,0.03:3,0.02:-2,0.05:1}>>"
	ot := "tensor<2x4x4x!quant.uniform<i8:f32, 0.11:-7>>"
	src := `
func.func @main(%a: ` + lt + `, %b: ` + rt + `) -> (` + ot + `, ` + ot + `) {
  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[1, 2]]}
    {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (` + lt + `, ` + rt + `) -> ` + ot + `
  %pad = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %d = "stablehlo.dynamic_conv"(%a, %b, %pad) {
    window_strides = array<i64: 2>,
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 2 : i64
  } : (` + lt + `, ` + rt + `, tensor<1x2xi64>) -> ` + ot + `
  return %r, %d : ` + ot + `, ` + ot + `
}`
	res := runTextArgs(t, src, l, rr)
	if ow != 4 {
		t.Fatalf("test setup: output width %d", ow)
	}
	og := o / g
	for b := 0; b < n; b++ {
		for x := 0; x < ow; x++ {
			for f := 0; f < o; f++ {
				grp := f / og
				sum := new(big.Rat)
				for kk := 0; kk < k; kk++ {
					pos := x*stride + kk - p0
					if pos < 0 || pos >= w {
						continue // padding: a real zero
					}
					for i := 0; i < c/g; i++ {
						p := dequantRat(l, lq, (b*w+pos)*c+grp*(c/g)+i)
						p.Mul(p, dequantRat(rr, rq, (kk*(c/g)+i)*o+f))
						sum.Add(sum, p)
					}
				}
				want := quantizeRat(sum, oq.scales[0], oq.zps[0], -128, 127)
				idx := (b*ow+x)*o + f
				if g := res[0].Int(idx); g != want {
					t.Fatalf("convolution [%d %d %d]: got %d, want %d", b, x, f, g, want)
				}
				if g := res[1].Int(idx); g != want {
					t.Fatalf("dynamic_conv [%d %d %d]: got %d, want %d", b, x, f, g, want)
				}
			}
		}
	}
}

// Hybrid dot_general (float lhs, quantized rhs, float result) is the float
// op on the dequantized rhs.
func TestHybridDotGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	l := hlo.NewLiteral(hlo.F32, 2, 3)
	for i := range l.F32() {
		l.F32()[i] = float32(r.Float64()*2 - 1)
	}
	rr := randStorage(r, -128, 127, 3, 2)
	scales, zps := []float32{0.1, 0.3}, []int64{-5, 9}
	src := `
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2x!quant.uniform<i8:f32:1, {0.1:-5,0.3:9}>>) -> tensor<2x2xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32:1, {0.1:-5,0.3:9}>>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}`
	got := runTextArgs(t, src, l, rr)[0].F32()
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			var want float64
			for k := 0; k < 3; k++ {
				d := float32(rr.Int(k*2+j)-zps[j]) * scales[j]
				want += float64(l.F32()[i*3+k]) * float64(d)
			}
			if math.Abs(float64(got[i*2+j])-want) > 1e-5 {
				t.Fatalf("element [%d %d]: got %v, want %v", i, j, got[i*2+j], want)
			}
		}
	}
}

// Quantized operands outside the spec's forms are compile errors that say
// why.
func TestQuantizedProductErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.1,0.2}>>, %b: tensor<3x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.01>> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32:0, {0.1,0.2}>>, tensor<3x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.01>>
  return %r : tensor<2x2x!quant.uniform<i32:f32, 0.01>>
}`, "per-axis"},
		{`func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x2x!quant.uniform<i8:f32:0, {0.1,0.2,0.3}>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.01>> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x2x!quant.uniform<i8:f32:0, {0.1,0.2,0.3}>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.01>>
  return %r : tensor<2x2x!quant.uniform<i32:f32, 0.01>>
}`, "contracting dimension"},
		{`func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.1>>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}`, "the spec allows"},
	}
	for _, c := range cases {
		_, err := compileText(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got error %v, want one containing %q", err, c.want)
		}
	}
}
