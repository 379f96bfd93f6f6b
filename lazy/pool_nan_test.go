package lazy

import (
	"fmt"
	"math"
	"testing"
)

// poolChoice is PyTorch's CPU choice in each window (flat operand offsets,
// -1 for none): row-major, a position inside the operand replaces the
// current one when there is none yet, when it is greater (less for min) or
// when it is NaN.
func poolChoice(x nd, kind string, win, str, lo, hi []int64) (nd, []int) {
	out := refWindow(x, "sum", win, str, lo, hi) // for the output dims
	choice := make([]int, len(out.v))
	for i := range out.v {
		oi := unflat(out.dims, i)
		choice[i] = -1
		for k := 0; k < int(hlo64(win)); k++ {
			wi := unflat(win, k)
			ii := make([]int64, len(oi))
			inside := true
			for d := range ii {
				ii[d] = oi[d]*str[d] - lo[d] + wi[d]
				inside = inside && ii[d] >= 0 && ii[d] < x.dims[d]
			}
			if !inside {
				continue
			}
			v := x.at(ii...)
			if c := choice[i]; c < 0 || math.IsNaN(v) || (kind == "max" && v > x.v[c]) || (kind == "min" && v < x.v[c]) {
				choice[i] = x.off(ii)
			}
		}
	}
	return out, choice
}

// TestSelectAndScatterNaN checks the max (min) pool gradient and its own
// VJP choose as PyTorch does where windows hold NaNs, ties, infinities and
// padding: the first extremum among numbers, the last NaN over everything,
// never padding.
func TestSelectAndScatterNaN(t *testing.T) {
	r := newRand(91)
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		dims, win, str, lo, hi []int64
	}{
		{[]int64{1, 1, 2, 2}, []int64{1, 1, 2, 2}, []int64{1, 1, 2, 2}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}},
		{[]int64{1, 1, 2, 3}, []int64{1, 1, 2, 2}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}},
		{[]int64{2, 3, 5, 6}, []int64{1, 1, 3, 3}, []int64{1, 1, 1, 1}, []int64{0, 0, 1, 1}, []int64{0, 0, 1, 1}},
		{[]int64{2, 2, 6, 20}, []int64{1, 1, 2, 2}, []int64{1, 1, 2, 2}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}},
		{[]int64{1, 2, 8, 10}, []int64{1, 1, 2, 2}, []int64{1, 1, 2, 2}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}},
		{[]int64{7}, []int64{3}, []int64{2}, []int64{1}, []int64{1}},
	}
	specials := []float64{nan, nan, -inf, inf, 2, 2, -2, math.Copysign(0, -1), 0}
	for _, dt := range []DType{F32, F64} {
		for ci, c := range cases {
			a := randND(r, -2, 2, c.dims...)
			for i := range a.v {
				a.v[i] = math.Round(a.v[i])
				if r.IntN(4) == 0 {
					a.v[i] = specials[r.IntN(len(specials))]
				}
			}
			if ci == 0 {
				a.v = []float64{1, nan, 2, 3}
			}
			x, xv := mk(a, dt)
			for _, kind := range []string{"max", "min"} {
				w := windowParams{kind, c.win, c.str, c.lo, c.hi}
				out, choice := poolChoice(xv, kind, c.win, c.str, c.lo, c.hi)
				src, sv := mk(randND(r, -1, 1, out.dims...), dt)
				cot, cv := mk(randND(r, -1, 1, xv.dims...), dt)
				want, wantDS := newND(xv.dims...), newND(out.dims...)
				for i, k := range choice {
					if k >= 0 {
						want.v[k] += sv.v[i]
						wantDS.v[i] = cv.v[k]
					}
				}
				sel := map[string]string{"max": "GE", "min": "LE"}[kind]
				attrs := append(w.attrs(), Attr{"select", sel})
				name := fmt.Sprintf("%s/%s/%v", kind, dt, c.dims)
				y := apply1(opSelectAndScatterMax, attrs, x, src)
				expectT(t, "SelectAndScatter/"+name, y, dt, want, ulpsTol(dt, 8, 2))
				ds := selectAndScatterVJP([]*Tensor{x, src}, []*Tensor{y}, []*Tensor{cot}, attrs)[1]
				expectT(t, "SelectAndScatterVJP/"+name, ds, dt, wantDS, exact)
			}
		}
	}
}
