package lazy

import (
	"fmt"
	"math"
	"testing"
)

// Sums of n terms of magnitude <= 1 in dtype u are within about n units of
// their scale (pairwise or sequential order); the tolerances below allow
// 4n units at the scale of the summed magnitudes.

var reduceAxes = [][]int{nil, {0}, {1}, {2}, {0, 2}, {-1}, {2, 0}, {0, 1, 2}}

func normAxesRef(axes []int, rank int) []int {
	if len(axes) == 0 {
		out := make([]int, rank)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, len(axes))
	for _, a := range axes {
		if a < 0 {
			a += rank
		}
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// keep reshapes a reduction result to the keepdims form.
func keepDims(r nd, in []int64, axes []int) nd {
	d := append([]int64{}, in...)
	for _, a := range axes {
		d[a] = 1
	}
	return nd{dims: d, v: r.v}
}

func TestOpsReductions(t *testing.T) {
	r := newRand(10)
	dims := []int64{2, 3, 4}
	type red struct {
		name string
		f    func(x *Tensor, keep bool, axes []int) *Tensor
		init float64
		fold func(acc, x float64) float64
		post func(v float64, n int) float64
		ints bool
	}
	reds := []red{
		{"Sum", func(x *Tensor, keep bool, ax []int) *Tensor {
			if keep {
				return x.SumKeepDims(ax...)
			}
			return x.Sum(ax...)
		}, 0, func(a, x float64) float64 { return a + x }, nil, true},
		{"Mean", func(x *Tensor, keep bool, ax []int) *Tensor {
			if keep {
				return x.MeanKeepDims(ax...)
			}
			return x.Mean(ax...)
		}, 0, func(a, x float64) float64 { return a + x }, func(v float64, n int) float64 { return v / float64(n) }, false},
		{"ReduceMax", func(x *Tensor, keep bool, ax []int) *Tensor {
			if keep {
				return x.ReduceMaxKeepDims(ax...)
			}
			return x.ReduceMax(ax...)
		}, math.Inf(-1), math.Max, nil, true},
		{"ReduceMin", func(x *Tensor, keep bool, ax []int) *Tensor {
			if keep {
				return x.ReduceMinKeepDims(ax...)
			}
			return x.ReduceMin(ax...)
		}, math.Inf(1), math.Min, nil, true},
		{"Prod", func(x *Tensor, keep bool, ax []int) *Tensor {
			if keep {
				return x.ProdKeepDims(ax...)
			}
			return x.Prod(ax...)
		}, 1, func(a, x float64) float64 { return a * x }, nil, true},
		{"LogSumExp", func(x *Tensor, keep bool, ax []int) *Tensor {
			if keep {
				return x.LogSumExpKeepDims(ax...)
			}
			return x.LogSumExp(ax...)
		},
			0, func(a, x float64) float64 { return a + math.Exp(x) }, func(v float64, n int) float64 { return math.Log(v) }, false},
	}
	for _, rd := range reds {
		for _, dt := range []DType{F32, F64, I32, I64} {
			if dt.IsInt() && !rd.ints {
				continue
			}
			for _, axes := range reduceAxes {
				for _, keep := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%v/keep=%v", rd.name, dt, axes, keep)
					t.Run(name, func(t *testing.T) {
						a := randND(r, 0.5, 1.5, dims...)
						if dt.IsInt() {
							// |x| <= 2: a product of 24 stays within i32.
							a = randInts(r, -2, 3, dims...)
						}
						x, xv := mk(a, dt)
						ax := normAxesRef(axes, 3)
						want := refReduce(xv, ax, rd.init, rd.fold)
						n := 1
						for _, k := range ax {
							n *= int(dims[k])
						}
						if rd.post != nil {
							want = mapND(want, func(v float64) float64 { return rd.post(v, n) })
						}
						if keep {
							want = keepDims(want, dims, ax)
						}
						tl := exact
						if dt.IsFloat() {
							tl = ulpsTol(dt, float64(4*n+8), 1)
						}
						rt := dt
						if rd.name == "Sum" || rd.name == "Prod" {
							rt = sumType(dt) // i64 for integers, as torch.sum
						}
						expectT(t, name, rd.f(x, keep, axes), rt, want, tl)
					})
				}
			}
		}
	}
}

func TestOpsReduceSpecials(t *testing.T) {
	// Max/min propagate NaN; LogSumExp of a row of -inf is -inf, of +inf is
	// +inf, and is stable for large values.
	inf := math.Inf(1)
	x := ndOf([]float64{1, math.NaN(), 3, -inf, -inf, -inf, 1000, 1000, -1000}, 3, 3)
	for _, dt := range floatTypes {
		xt := mkT(x, dt)
		expectT(t, "ReduceMax/NaN/"+dt.String(), xt.ReduceMax(1), dt, ndOf([]float64{math.NaN(), -inf, 1000}, 3), exact)
		expectT(t, "ReduceMin/NaN/"+dt.String(), xt.ReduceMin(1), dt, ndOf([]float64{math.NaN(), -inf, -1000}, 3), exact)
		lse := xt.Narrow(0, 1, 2).LogSumExp(1)
		expectT(t, "LogSumExp/inf/"+dt.String(), lse, dt, ndOf([]float64{-inf, 1000 + math.Log(2)}, 2), ulpsTol(dt, 4, 1))
	}
	// Sums and products of an empty axis give the identity; the maximum of
	// one is an error (as torch.amax).
	e := newND(2, 0)
	expectT(t, "Sum/empty", mkT(e, F32).Sum(1), F32, ndOf([]float64{0, 0}, 2), exact)
	expectT(t, "Prod/empty", mkT(e, F32).Prod(1), F32, ndOf([]float64{1, 1}, 2), exact)
	expectErr(t, "ReduceMax/empty", "ReduceMax", func() { mkT(e, F32).ReduceMax(1) })
	// Integer max/min start from the dtype's extremes.
	iv := ndOf([]float64{-2147483648, -5, 2147483647, 7}, 2, 2)
	expectT(t, "ReduceMax/i32", mkT(iv, I32).ReduceMax(1), I32, ndOf([]float64{-5, 2147483647}, 2), exact)
	expectT(t, "ReduceMin/i32", mkT(iv, I32).ReduceMin(1), I32, ndOf([]float64{-2147483648, 7}, 2), exact)
	uv := ndOf([]float64{0, 255, 3, 4}, 2, 2)
	expectT(t, "ReduceMin/u8", mkT(uv, U8).ReduceMin(1), U8, ndOf([]float64{0, 3}, 2), exact)
	expectT(t, "ReduceMax/u8", mkT(uv, U8).ReduceMax(0), U8, ndOf([]float64{3, 255}, 2), exact)
}

func TestOpsVar(t *testing.T) {
	r := newRand(11)
	for _, dt := range floatTypes {
		x, xv := mk(randND(r, -2, 2, 3, 5), dt)
		mean := refReduce(xv, []int{1}, 0, func(a, v float64) float64 { return a + v })
		want := newND(3)
		for i := int64(0); i < 3; i++ {
			m := mean.v[i] / 5
			s := 0.0
			for j := int64(0); j < 5; j++ {
				d := xv.at(i, j) - m
				s += d * d
			}
			want.v[i] = s / 5
		}
		expectT(t, "Var/"+dt.String(), x.Var(1), dt, want, ulpsTol(dt, 32, 4))
		expectT(t, "Var/keep/"+dt.String(), x.VarKeepDims(1), dt, nd{dims: []int64{3, 1}, v: want.v}, ulpsTol(dt, 32, 4))
	}
}

// refArg returns the index of the first extremum along axis; NaN counts as
// the extremum (its first occurrence wins).
func refArg(a nd, axis int, better func(x, y float64) bool) nd {
	var od []int64
	for d, n := range a.dims {
		if d != axis {
			od = append(od, n)
		}
	}
	return gen(od, func(oi []int64) float64 {
		best, bi := 0.0, int64(-1)
		for k := int64(0); k < a.dims[axis]; k++ {
			idx := append(append(append([]int64{}, oi[:axis]...), k), oi[axis:]...)
			v := a.at(idx...)
			if bi >= 0 && math.IsNaN(best) {
				break
			}
			if bi < 0 || math.IsNaN(v) || better(v, best) {
				best, bi = v, k
			}
		}
		return float64(bi)
	})
}

func TestOpsArgMaxMin(t *testing.T) {
	r := newRand(12)
	dims := []int64{3, 4, 5}
	for _, dt := range []DType{F32, F64, I32, U8} {
		for axis := -1; axis < 3; axis++ {
			for _, keep := range []bool{false, true} {
				// Few distinct values: many ties; floats get NaNs in some rows.
				a := randInts(r, 0, 4, dims...)
				if dt.IsFloat() {
					a.v[3], a.v[7], a.v[30], a.v[33] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
				}
				x, xv := mk(a, dt)
				ax := axis
				if ax < 0 {
					ax += 3
				}
				for _, c := range []struct {
					name     string
					f, fKeep func(*Tensor, int) *Tensor
					better   func(x, y float64) bool
				}{
					{"ArgMax", (*Tensor).ArgMax, (*Tensor).ArgMaxKeepDims, func(x, y float64) bool { return x > y }},
					{"ArgMin", (*Tensor).ArgMin, (*Tensor).ArgMinKeepDims, func(x, y float64) bool { return x < y }},
				} {
					f := c.f
					if keep {
						f = c.fKeep
					}
					want := refArg(xv, ax, c.better)
					if keep {
						want = keepDims(want, dims, []int{ax})
					}
					expectT(t, fmt.Sprintf("%s/%s/axis=%d/keep=%v", c.name, dt, axis, keep), f(x, axis), I64, want, exact)
				}
			}
		}
	}
	// All -inf (the reduction's initial value) still gives a valid index;
	// all NaN gives the first.
	inf := math.Inf(1)
	x := mkT(ndOf([]float64{-inf, -inf, -inf, math.NaN(), math.NaN(), math.NaN(), inf, inf, inf}, 3, 3), F32)
	expectT(t, "ArgMax/specials", x.ArgMax(1), I64, ndOf([]float64{0, 0, 0}, 3), exact)
	expectT(t, "ArgMin/specials", x.ArgMin(1), I64, ndOf([]float64{0, 0, 0}, 3), exact)
}
