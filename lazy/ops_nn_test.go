package lazy

import (
	"fmt"
	"math"
	"sort"
	"testing"
)

// refAlong applies f to every 1-D lane of a along axis (f returns the new
// lane, same length).
func refAlong(a nd, axis int, f func([]float64) []float64) nd {
	out := newND(a.dims...)
	n := a.dims[axis]
	for i := range a.v {
		idx := unflat(a.dims, i)
		if idx[axis] != 0 {
			continue
		}
		lane := make([]float64, n)
		for k := int64(0); k < n; k++ {
			idx[axis] = k
			lane[k] = a.at(idx...)
		}
		res := f(lane)
		for k := int64(0); k < n; k++ {
			idx[axis] = k
			out.v[out.off(idx)] = res[k]
		}
	}
	return out
}

func softmaxRef(l []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range l {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range l {
		s += math.Exp(v - m)
	}
	out := make([]float64, len(l))
	for i, v := range l {
		out[i] = math.Exp(v-m) / s
	}
	return out
}

func logSoftmaxRef(l []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range l {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range l {
		s += math.Exp(v - m)
	}
	out := make([]float64, len(l))
	for i, v := range l {
		out[i] = v - m - math.Log(s)
	}
	return out
}

func TestOpsSoftmax(t *testing.T) {
	r := newRand(40)
	for _, dt := range floatTypes {
		a := randND(r, -5, 5, 2, 3, 4)
		a.v[0] = 500 // large logits must not overflow
		x, xv := mk(a, dt)
		for axis := -1; axis < 3; axis++ {
			ax := (axis + 3) % 3
			expectT(t, fmt.Sprintf("Softmax/%s/%d", dt, axis), x.Softmax(axis), dt, refAlong(xv, ax, softmaxRef), ulpsTol(dt, 16, 1))
			expectT(t, fmt.Sprintf("LogSoftmax/%s/%d", dt, axis), x.LogSoftmax(axis), dt, refAlong(xv, ax, logSoftmaxRef), ulpsTol(dt, 16, 10))
		}
	}
}

func TestOpsLayerNorm(t *testing.T) {
	r := newRand(41)
	for _, dt := range floatTypes {
		x, xv := mk(randND(r, -2, 3, 2, 3, 4), dt)
		w, wv := mk(randND(r, 0.5, 1.5, 3, 4), dt)
		b, bv := mk(randND(r, -1, 1, 3, 4), dt)
		const eps = 1e-5
		for _, norm := range []int{1, 2} {
			for _, affine := range []bool{false, true} {
				n := int64(1)
				for _, d := range xv.dims[3-norm:] {
					n *= d
				}
				outer := int64(len(xv.v)) / n
				want := newND(xv.dims...)
				for o := int64(0); o < outer; o++ {
					lane := xv.v[o*n : (o+1)*n]
					mu, v := 0.0, 0.0
					for _, e := range lane {
						mu += e
					}
					mu /= float64(n)
					for _, e := range lane {
						v += (e - mu) * (e - mu)
					}
					v /= float64(n)
					for k, e := range lane {
						y := (e - mu) / math.Sqrt(v+eps)
						if affine {
							j := (o*n + int64(k)) % 12 // the last two axes of x, [3,4]
							if norm == 1 {
								j = int64(k) // row 0 of w and b, [4]
							}
							y = y*wv.v[j] + bv.v[j]
						}
						want.v[o*n+int64(k)] = y
					}
				}
				var wt, bt *Tensor
				if affine {
					// The normalised shape, as F.layer_norm requires.
					wt, bt = w, b
					if norm == 1 {
						wt, bt = w.Narrow(0, 0, 1).Reshape(4), b.Narrow(0, 0, 1).Reshape(4)
					}
				}
				expectT(t, fmt.Sprintf("LayerNorm/%s/%d/affine=%v", dt, norm, affine), LayerNorm(x, norm, wt, bt, eps), dt, want, ulpsTol(dt, 64, 4))
			}
		}
	}
}

func TestOpsConv2d(t *testing.T) {
	r := newRand(42)
	cases := []struct {
		x, w             []int64
		stride, pad, dil [2]int64
		groups           int64
		bias             bool
	}{
		{[]int64{2, 3, 6, 7}, []int64{4, 3, 3, 3}, [2]int64{1, 1}, [2]int64{0, 0}, [2]int64{1, 1}, 1, false},
		{[]int64{1, 2, 7, 7}, []int64{3, 2, 3, 2}, [2]int64{2, 3}, [2]int64{1, 2}, [2]int64{1, 1}, 1, true},
		{[]int64{2, 2, 8, 9}, []int64{2, 2, 3, 3}, [2]int64{1, 2}, [2]int64{2, 1}, [2]int64{2, 3}, 1, false},
		{[]int64{1, 4, 6, 6}, []int64{6, 2, 3, 3}, [2]int64{1, 1}, [2]int64{1, 1}, [2]int64{1, 1}, 2, true},
		{[]int64{2, 4, 5, 5}, []int64{4, 1, 2, 2}, [2]int64{2, 1}, [2]int64{0, 1}, [2]int64{2, 1}, 4, false}, // depthwise
		{[]int64{1, 1, 4, 4}, []int64{1, 1, 1, 1}, [2]int64{0, 0}, [2]int64{0, 0}, [2]int64{0, 0}, 0, false}, // zero opts mean defaults
	}
	for _, dt := range []DType{F32, F64, I32} {
		for _, c := range cases {
			name := fmt.Sprintf("Conv2d/%s/x%v/w%v/s%v/p%v/d%v/g%d", dt, c.x, c.w, c.stride, c.pad, c.dil, c.groups)
			xr, wr := randND(r, -1, 1, c.x...), randND(r, -1, 1, c.w...)
			if dt.IsInt() {
				xr, wr = randInts(r, -3, 4, c.x...), randInts(r, -3, 4, c.w...)
			}
			x, xv := mk(xr, dt)
			w, wv := mk(wr, dt)
			one := func(v [2]int64) [2]int64 {
				for i := range v {
					if v[i] == 0 {
						v[i] = 1
					}
				}
				return v
			}
			g := max(c.groups, 1)
			want := refConv2d(xv, wv, one(c.stride), c.pad, one(c.dil), g)
			var bt *Tensor
			if c.bias {
				var bv nd
				bt, bv = mk(randInts(r, -3, 4, c.w[0]), dt)
				want = gen(want.dims, func(i []int64) float64 { return want.at(i...) + bv.v[i[1]] })
			}
			k := c.w[1] * c.w[2] * c.w[3]
			got := Conv2d(x, w, bt, Conv2dOpts{Stride: c.stride, Padding: c.pad, Dilation: c.dil, Groups: c.groups})
			tl := exact
			if dt.IsFloat() {
				tl = dotTol(dt, k+1)
			}
			expectT(t, name, got, dt, want, tl)
		}
	}
}

func TestOpsPool2d(t *testing.T) {
	r := newRand(43)
	cases := []struct{ k, s, p [2]int64 }{
		{[2]int64{2, 2}, [2]int64{0, 0}, [2]int64{0, 0}},
		{[2]int64{3, 2}, [2]int64{1, 2}, [2]int64{1, 0}},
		{[2]int64{3, 3}, [2]int64{2, 2}, [2]int64{1, 1}},
	}
	for _, dt := range []DType{F32, F64, I32} {
		for _, c := range cases {
			// All-negative inputs: padding must never win a max.
			x, xv := mk(randND(r, -3, -1, 2, 3, 7, 6), dt)
			s := c.s
			if s[0] == 0 {
				s = c.k
			}
			expectT(t, fmt.Sprintf("MaxPool2d/%s/%v", dt, c), x.MaxPool2d(c.k, c.s, c.p), dt, refPool2d(xv, "max", c.k, s, c.p), exact)
			if dt.IsInt() {
				continue // integer averages truncate
			}
			expectT(t, fmt.Sprintf("AvgPool2d/%s/%v", dt, c), x.AvgPool2d(c.k, c.s, c.p), dt, refPool2d(xv, "avg", c.k, s, c.p), ulpsTol(dt, 32, 3))
		}
	}
}

func TestOpsCrossEntropy(t *testing.T) {
	r := newRand(44)
	for _, dt := range floatTypes {
		for _, it := range indexTypes {
			lg, lv := mk(randND(r, -4, 4, 5, 6), dt)
			lab := randInts(r, 0, 6, 5)
			want := 0.0
			for i := int64(0); i < 5; i++ {
				lane := lv.v[i*6 : (i+1)*6]
				want -= logSoftmaxRef(lane)[int(lab.v[i])]
			}
			want /= 5
			expectT(t, fmt.Sprintf("CrossEntropy/%s/%s", dt, it), CrossEntropy(lg, mkT(lab, it)), dt, ndOf([]float64{want}), ulpsTol(dt, 64, 4))
		}
	}
}

func TestOpsDropout(t *testing.T) {
	ManualSeed(7)
	const n = 20000
	for _, dt := range floatTypes {
		for _, p := range []float64{0.1, 0.5, 0.8} {
			x, xv := mk(randND(newRand(45), 1, 2, n), dt)
			y := valuesOf(x.Dropout(p, true))
			zeros := 0
			for i, v := range y.v {
				switch {
				case v == 0:
					zeros++
				default:
					// Kept elements are scaled by 1/(1-p), rounded once in dt.
					want := xv.v[i] * literalOf(ndOf([]float64{1 / (1 - p)}, 1), dt).Float(0)
					if !ulpsTol(dt, 1, 0).ok(v, want) {
						t.Fatalf("Dropout(%v)/%s: element %d = %v, want 0 or %v", p, dt, i, v, want)
					}
				}
			}
			// The zero count is Binomial(n, p): within 5 standard deviations.
			sd := math.Sqrt(n * p * (1 - p))
			if d := math.Abs(float64(zeros) - n*p); d > 5*sd {
				t.Errorf("Dropout(%v)/%s: %d zeros of %d, want %.0f ± %.0f", p, dt, zeros, n, n*p, 5*sd)
			}
		}
		// Not training, or p = 0: the identity.
		x := mkT(ndOf([]float64{1, 2, 3}, 3), dt)
		if x.Dropout(0.5, false) != x || x.Dropout(0, true) != x {
			t.Errorf("Dropout off did not return its input")
		}
	}
}

func TestOpsCumsum(t *testing.T) {
	r := newRand(46)
	for _, dt := range []DType{F32, F64, I32, I64} {
		a := randND(r, -1, 1, 3, 4, 5)
		if dt.IsInt() {
			a = randInts(r, -5, 6, 3, 4, 5)
		}
		x, xv := mk(a, dt)
		for axis := -1; axis < 3; axis++ {
			ax := (axis + 3) % 3
			want := refAlong(xv, ax, func(l []float64) []float64 {
				out := make([]float64, len(l))
				s := 0.0
				for i, v := range l {
					s += v
					out[i] = s
				}
				return out
			})
			tl := exact
			if dt.IsFloat() {
				tl = ulpsTol(dt, 24, 5)
			}
			expectT(t, fmt.Sprintf("Cumsum/%s/%d", dt, axis), x.Cumsum(axis), sumType(dt), want, tl)
		}
	}
}

// totalLess is the sort order of the Sort op (PyTorch's): -inf < ... <
// +inf < NaN, with -0 equal to +0 (a stable sort keeps them in place).
func totalLess(a, b float64) bool {
	switch {
	case math.IsNaN(a):
		return false
	case math.IsNaN(b):
		return true
	}
	return a < b
}

func TestOpsSortTopK(t *testing.T) {
	r := newRand(47)
	for _, dt := range []DType{F32, F64, I32, I64, U8} {
		for _, desc := range []bool{false, true} {
			a := randInts(r, 0, 5, 3, 4, 6) // ties
			if dt.IsFloat() {
				a.v[1], a.v[8], a.v[20], a.v[40] = math.NaN(), math.Inf(-1), math.Copysign(0, -1), math.Inf(1)
			}
			x, xv := mk(a, dt)
			for axis := -1; axis < 3; axis++ {
				ax := (axis + 3) % 3
				var perm nd
				vals := refAlong(xv, ax, func(l []float64) []float64 {
					idx := make([]int, len(l))
					for i := range idx {
						idx[i] = i
					}
					sort.SliceStable(idx, func(i, j int) bool {
						if desc {
							return totalLess(l[idx[j]], l[idx[i]])
						}
						return totalLess(l[idx[i]], l[idx[j]])
					})
					out := make([]float64, len(l))
					for i, k := range idx {
						out[i] = l[k]
					}
					return out
				})
				perm = refAlong(xv, ax, func(l []float64) []float64 {
					idx := make([]int, len(l))
					for i := range idx {
						idx[i] = i
					}
					sort.SliceStable(idx, func(i, j int) bool {
						if desc {
							return totalLess(l[idx[j]], l[idx[i]])
						}
						return totalLess(l[idx[i]], l[idx[j]])
					})
					out := make([]float64, len(l))
					for i, k := range idx {
						out[i] = float64(k)
					}
					return out
				})
				v, i := x.Sort(axis, desc)
				name := fmt.Sprintf("Sort/%s/desc=%v/axis=%d", dt, desc, axis)
				expectT(t, name+"/values", v, dt, vals, exact)
				expectT(t, name+"/indices", i, I64, perm, exact)
				// -0 and +0 keep their order: check signs too.
				gv := valuesOf(v)
				for k := range gv.v {
					if math.Signbit(gv.v[k]) != math.Signbit(vals.v[k]) && !math.IsNaN(vals.v[k]) {
						t.Errorf("%s: element %v sign differs", name, unflat(vals.dims, k))
						break
					}
				}
				if desc && ax == 2 {
					tv, ti := x.TopK(4)
					expectT(t, "TopK/"+dt.String()+"/values", tv, dt, refSlice(vals, []int64{0, 0, 0}, []int64{3, 4, 4}, []int64{1, 1, 1}), exact)
					expectT(t, "TopK/"+dt.String()+"/indices", ti, I64, refSlice(perm, []int64{0, 0, 0}, []int64{3, 4, 4}, []int64{1, 1, 1}), exact)
				}
			}
		}
	}
}

// refWindow reduces windows of a (any rank) with padding that never wins.
func refWindow(a nd, kind string, win, str, lo, hi []int64) nd {
	r := a.rank()
	od := make([]int64, r)
	for d := range od {
		od[d] = max(0, (a.dims[d]+lo[d]+hi[d]-win[d])/str[d]+1)
	}
	init := map[string]float64{"sum": 0, "max": math.Inf(-1), "min": math.Inf(1)}[kind]
	return gen(od, func(oi []int64) float64 {
		acc := init
		for k := 0; k < int(hlo64(win)); k++ {
			wi := unflat(win, k)
			ii := make([]int64, r)
			inside := true
			for d := range ii {
				ii[d] = oi[d]*str[d] - lo[d] + wi[d]
				inside = inside && ii[d] >= 0 && ii[d] < a.dims[d]
			}
			if !inside {
				continue
			}
			v := a.at(ii...)
			switch kind {
			case "sum":
				acc += v
			case "max":
				acc = math.Max(acc, v)
			case "min":
				acc = math.Min(acc, v)
			}
		}
		return acc
	})
}

// TestOpsReduceWindow checks the ReduceWindow row directly (pools use only
// part of it) and SelectAndScatter, the max-pool VJP, against loops.
func TestOpsReduceWindow(t *testing.T) {
	r := newRand(48)
	cases := []struct {
		dims, win, str, lo, hi []int64
	}{
		{[]int64{5, 6}, []int64{2, 3}, []int64{1, 2}, []int64{0, 1}, []int64{1, 1}},
		{[]int64{4, 3, 5}, []int64{1, 2, 2}, []int64{1, 1, 3}, []int64{0, 1, 0}, []int64{0, 0, 2}},
		{[]int64{7}, []int64{3}, []int64{2}, []int64{2}, []int64{0}},
	}
	for _, dt := range []DType{F32, F64, I32} {
		for _, c := range cases {
			a := randDistinct(r, -4, -1, c.dims...) // all negative: padding must not win a max
			if dt.IsInt() {
				a = randInts(r, -9, 10, c.dims...)
			}
			x, xv := mk(a, dt)
			for _, kind := range []string{"sum", "max", "min"} {
				w := windowParams{kind, c.win, c.str, c.lo, c.hi}
				tl := exact
				if dt.IsFloat() && kind == "sum" {
					tl = ulpsTol(dt, 4*float64(hlo64(c.win)), 4)
				}
				name := fmt.Sprintf("ReduceWindow/%s/%s/%v", kind, dt, c.dims)
				expectT(t, name, apply1(opReduceWindow, w.attrs(), x), dt, refWindow(xv, kind, c.win, c.str, c.lo, c.hi), tl)
				if kind == "sum" || !dt.IsFloat() {
					continue
				}
				// SelectAndScatter: each window adds its source value at
				// its first extremum (row-major), the rest stays 0.
				out := refWindow(xv, kind, c.win, c.str, c.lo, c.hi)
				src, sv := mk(randND(r, -1, 1, out.dims...), dt)
				want := newND(xv.dims...)
				for i := range out.v {
					oi := unflat(out.dims, i)
					for k := 0; k < int(hlo64(c.win)); k++ {
						wi := unflat(c.win, k)
						ii := make([]int64, len(oi))
						inside := true
						for d := range ii {
							ii[d] = oi[d]*c.str[d] - c.lo[d] + wi[d]
							inside = inside && ii[d] >= 0 && ii[d] < xv.dims[d]
						}
						if inside && xv.at(ii...) == out.v[i] {
							want.v[want.off(ii)] += sv.v[i]
							break
						}
					}
				}
				sel := map[string]string{"max": "GE", "min": "LE"}[kind]
				got := apply1(opSelectAndScatterMax, append(w.attrs(), Attr{"select", sel}), x, src)
				expectT(t, "SelectAndScatter/"+kind+"/"+dt.String(), got, dt, want, ulpsTol(dt, 8, 2))
			}
		}
	}
}

func TestOpsCumsumReverse(t *testing.T) {
	x, xv := mk(seqND(3, 4), F64)
	want := refAlong(xv, 1, func(l []float64) []float64 {
		out := make([]float64, len(l))
		s := 0.0
		for i := len(l) - 1; i >= 0; i-- {
			s += l[i]
			out[i] = s
		}
		return out
	})
	expectT(t, "Cumsum/reverse", apply1(opCumsum, Attrs{{"axis", int64(1)}, {"reverse", true}}, x), F64, want, exact)
}

// TestDropoutPropagatesNaN checks that Dropout multiplies by its mask as
// PyTorch 1.13 does (x * mask / (1-p) in effect): a dropped NaN or ±Inf
// gives NaN, not 0, a dropped finite element ±0 and a kept one x/(1-p),
// with the mask the same draw as for a finite input of the same shape
// (torch: F.dropout(torch.full((8,), float("nan")), 0.5) is all NaN).
func TestDropoutPropagatesNaN(t *testing.T) {
	const n = 64
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -3, 5}[i%5]
	}
	ManualSeed(11)
	ref := FromSlice(make([]float32, n), n).AddScalar(1).Dropout(0.5, true).Float64s()
	ManualSeed(11)
	got := FromSlice(vals, n).Dropout(0.5, true).Float64s()
	for i, v := range got {
		x := float64(vals[i])
		kept := ref[i] != 0
		switch {
		case kept && (v == 2*x || math.IsNaN(x) && math.IsNaN(v)):
		case !kept && (math.IsNaN(x) || math.IsInf(x, 0)) && math.IsNaN(v):
		case !kept && v == 0 && math.Signbit(v) == math.Signbit(x):
		default:
			t.Fatalf("element %d: Dropout(0.5) of %v = %v (kept %v)", i, x, v, kept)
		}
	}
}

// TestDetach checks the StopGradient op: Detach returns x's values (NaN,
// -0 and integers included, eagerly and on the host kernel) and Grad
// treats it as a constant, as torch.Tensor.detach: d/dx (x·x.detach()) = x.detach().
func TestDetach(t *testing.T) {
	x := FromSlice([]float32{1.5, float32(math.NaN()), float32(math.Copysign(0, -1)), -2}, 4)
	got := x.Detach().Float64s()
	for i, want := range x.Float64s() {
		if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(got[i])) {
			t.Fatalf("Detach: %v, want %v", got, x.Float64s())
		}
	}
	if v := FromSlice([]int64{3, -4}, 2).Detach().Float64s(); v[0] != 3 || v[1] != -4 {
		t.Errorf("Detach of i64: %v", v)
	}
	y := FromSlice([]float32{1, 2, 3}, 3)
	g := Grad(y.Mul(y.Detach()).Sum(), y)[0].Float64s()
	for i, want := range []float64{1, 2, 3} {
		if g[i] != want {
			t.Fatalf("gradient through Detach: %v, want [1 2 3]", g)
		}
	}
}
