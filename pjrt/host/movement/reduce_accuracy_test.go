package movement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// sumBound is the error bound RATIONALE.md states for a float add-reduce of
// n elements per output in every layout: |sum - exact| <= sumBound(n) * u *
// sum(|x|), with u the unit roundoff of the element type.
func sumBound(n int) float64 {
	if n <= sumSequential {
		return float64(n)
	}
	return float64(sumDepth(n))
}

// Large f32 sums keep relative errors near the unit roundoff instead of
// growing with the number of terms: 16M x 0.1 in every reduction layout
// (contiguous, rows with many runs, columns), and random data within the
// stated bound.
func TestReduceSumAccuracy(t *testing.T) {
	if testing.Short() || raceBuild {
		t.Skip("16M-element sums (-short, or the race detector)")
	}
	const n = 1 << 24
	layouts := []struct{ in, dims []int64 }{
		{[]int64{n}, []int64{0}},
		{[]int64{16, n / 16}, []int64{1}},
		{[]int64{n / 16, 16}, []int64{0}},
		{[]int64{64, n / 1024, 16}, []int64{0, 1}},
		{[]int64{n / 64, 4, 16}, []int64{0, 2}},
	}
	r := rand.New(rand.NewPCG(71, 72))
	for _, data := range []string{"0.1", "random"} {
		in := hlo.NewLiteral(hlo.F32, n)
		xs := in.F32()
		for i := range xs {
			if data == "0.1" {
				xs[i] = 0.1
			} else {
				xs[i] = r.Float32()*2 - 0.5
			}
		}
		for _, l := range layouts {
			in.Dims = l.in
			var out []int64
			for d, sz := range l.in {
				if !containsDim(l.dims, int64(d)) {
					out = append(out, sz)
				}
			}
			want, abs, per := exactSums(xs, l.in, l.dims)
			got := run(t, reduceOpOf(hlo.F32, l.in, l.dims, out, binRegion("stablehlo.add", hlo.F32)), in, hlo.ScalarLiteral(hlo.F32, 0))[0]
			name := fmt.Sprintf("%s %v over %v", data, l.in, l.dims)
			worst := 0.0
			for i, w := range want {
				g := float64(got.F32()[i])
				err := math.Abs(g - w)
				if bound := sumBound(per) * 0x1p-24 * abs[i]; err > bound {
					t.Fatalf("%s: output %d = %v, exact %v: error %.3g above the bound %.3g", name, i, g, w, err, bound)
				}
				worst = max(worst, err/abs[i])
			}
			if data == "0.1" && worst > 1e-6 {
				t.Errorf("%s: relative error %.3g, want < 1e-6", name, worst)
			}
			t.Logf("%s: worst relative error %.3g (n per output %d, bound %.3g)", name, worst, per, sumBound(per)*0x1p-24)
		}
	}
}

func containsDim(dims []int64, d int64) bool {
	for _, x := range dims {
		if x == d {
			return true
		}
	}
	return false
}

// exactSums returns, per output of reducing xs (shape dims) over red, the
// sum in float64 (exact for these magnitudes up to 2^-29 relative), the
// sum of magnitudes, and the number of terms per output.
func exactSums(xs []float32, dims, red []int64) (sum, abs []float64, per int) {
	var outDims []int64
	per = 1
	for d, n := range dims {
		if containsDim(red, int64(d)) {
			per *= int(n)
		} else {
			outDims = append(outDims, n)
		}
	}
	nOut := int(hlo.NumElements(outDims))
	sum, abs = make([]float64, nOut), make([]float64, nOut)
	idx := make([]int64, len(dims))
	for i, x := range xs {
		o := 0
		for d := range dims {
			if !containsDim(red, int64(d)) {
				o = o*int(dims[d]) + int(idx[d])
			}
		}
		sum[o] += float64(x)
		abs[o] += math.Abs(float64(x))
		for d := len(dims) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < dims[d] {
				break
			}
			idx[d] = 0
		}
		_ = i
	}
	return sum, abs, per
}

// An f16 or bf16 input summed in an f32 body (the spec promotes the input
// to the body's type) takes the f32 kernels: pairwise, not a left fold of
// region calls, and bit for bit a left fold in f32 for short sums.
func TestReduceWidenedHalf(t *testing.T) {
	for _, dt := range []hlo.DType{hlo.F16, hlo.BF16} {
		for _, n := range []int64{10, 1 << 20} {
			in := hlo.NewLiteral(dt, n)
			exact, seq := 0.0, float32(0)
			for i := 0; i < int(n); i++ {
				in.SetFloat(i, 0.1+float64(i%7)*0.01)
				v := in.Float(i)
				exact += v
				seq += float32(v)
			}
			op := mkOp("stablehlo.reduce", []hlo.Type{tt(dt, n), tt(dt)}, []hlo.Type{tt(hlo.F32)}, attr("dimensions", ints(0)))
			op.Regions = []*hlo.Region{binRegion("stablehlo.add", hlo.F32)}
			got := float64(run(t, op, in, hlo.ScalarLiteral(dt, 0))[0].F32()[0])
			if n <= sumSequential {
				if got != float64(seq) {
					t.Errorf("%s sum of %d: %v, want the left fold %v", dt, n, got, seq)
				}
				continue
			}
			if rel := math.Abs(got-exact) / exact; rel > float64(sumDepth(int(n)))*0x1p-24 || rel > 1e-6 {
				t.Errorf("%s sum of %d in f32: %v, exact %v (relative error %.3g)", dt, n, got, exact, rel)
			}
		}
	}
}
