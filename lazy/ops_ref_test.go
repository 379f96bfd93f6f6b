package lazy

// Reference helpers for the op tests: a tiny float64 n-d array computed in
// plain Go loops, conversion to and from tensors, and tolerance checks. The
// references never call package lazy; they only read the values the device
// was given.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// nd is a row-major float64 array.
type nd struct {
	dims []int64
	v    []float64
}

func newND(dims ...int64) nd {
	return nd{dims: append([]int64{}, dims...), v: make([]float64, hlo.NumElements(dims))}
}

func ndOf(v []float64, dims ...int64) nd {
	if int64(len(v)) != hlo.NumElements(dims) {
		panic(fmt.Sprintf("ndOf: %d values for %v", len(v), dims))
	}
	return nd{dims: append([]int64{}, dims...), v: append([]float64{}, v...)}
}

func (a nd) rank() int { return len(a.dims) }

func stridesOf(dims []int64) []int64 {
	s := make([]int64, len(dims))
	acc := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= dims[i]
	}
	return s
}

// off returns the flat offset of a multi-index.
func (a nd) off(idx []int64) int {
	s := stridesOf(a.dims)
	o := int64(0)
	for i, x := range idx {
		o += x * s[i]
	}
	return int(o)
}

func (a nd) at(idx ...int64) float64 { return a.v[a.off(idx)] }

// unflat returns the multi-index of flat offset i in dims.
func unflat(dims []int64, i int) []int64 {
	idx := make([]int64, len(dims))
	r := int64(i)
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = r % dims[d]
			r /= dims[d]
		}
	}
	return idx
}

// gen fills a new array of dims from f(multi-index).
func gen(dims []int64, f func(idx []int64) float64) nd {
	out := newND(dims...)
	for i := range out.v {
		out.v[i] = f(unflat(dims, i))
	}
	return out
}

func randND(r *rand.Rand, lo, hi float64, dims ...int64) nd {
	a := newND(dims...)
	for i := range a.v {
		a.v[i] = lo + (hi-lo)*r.Float64()
	}
	return a
}

// randAway is randND with every |value| at least gap from 0 (inputs of ops
// with a kink or a pole at 0).
func randAway(r *rand.Rand, gap, hi float64, dims ...int64) nd {
	a := newND(dims...)
	for i := range a.v {
		m := gap + (hi-gap)*r.Float64()
		if r.IntN(2) == 0 {
			m = -m
		}
		a.v[i] = m
	}
	return a
}

// randDistinct returns values in [lo, hi) whose pairwise gaps are at least
// (hi-lo)/(4n) (inputs of max/min/sort away from ties).
func randDistinct(r *rand.Rand, lo, hi float64, dims ...int64) nd {
	a := newND(dims...)
	n := len(a.v)
	perm := r.Perm(n)
	for i := range a.v {
		a.v[i] = lo + (hi-lo)*(float64(perm[i])+0.25+0.5*r.Float64())/float64(n)
	}
	return a
}

func randInts(r *rand.Rand, lo, hi int, dims ...int64) nd {
	a := newND(dims...)
	for i := range a.v {
		a.v[i] = float64(lo + r.IntN(hi-lo))
	}
	return a
}

func mapND(a nd, f func(float64) float64) nd {
	out := newND(a.dims...)
	for i, x := range a.v {
		out.v[i] = f(x)
	}
	return out
}

// bdims is the numpy broadcast of two dims lists (panics when they do not
// broadcast: a test bug).
func bdims(a, b []int64) []int64 {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := range out {
		da, db := int64(1), int64(1)
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			panic(fmt.Sprintf("bdims: %v and %v", a, b))
		}
	}
	return out
}

// bget reads a at the broadcast index idx of a larger shape.
func bget(a nd, idx []int64) float64 {
	k := len(idx) - a.rank()
	o := 0
	s := stridesOf(a.dims)
	for d := 0; d < a.rank(); d++ {
		if a.dims[d] != 1 {
			o += int(idx[k+d] * s[d])
		}
	}
	return a.v[o]
}

func zipND(a, b nd, f func(x, y float64) float64) nd {
	dims := bdims(a.dims, b.dims)
	return gen(dims, func(idx []int64) float64 { return f(bget(a, idx), bget(b, idx)) })
}

// literalOf converts a to a literal of dt (rounding or truncating as a
// conversion to dt does).
func literalOf(a nd, dt DType) *hlo.Literal {
	l := hlo.NewLiteral(dt, a.dims...)
	for i, x := range a.v {
		switch {
		case dt.IsBool():
			l.SetInt(i, boolInt64(x != 0))
		case dt.IsInt():
			l.SetInt(i, int64(x))
		default:
			l.SetFloat(i, x)
		}
	}
	return l
}

func boolInt64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// mk puts a on the device as dt and returns the tensor and the values it
// actually holds (a rounded to dt): references are computed from those.
func mk(a nd, dt DType) (*Tensor, nd) {
	l := literalOf(a, dt)
	got := newND(a.dims...)
	for i := range got.v {
		got.v[i] = l.Float(i)
	}
	return FromLiteral(l), got
}

func mkT(a nd, dt DType) *Tensor { t, _ := mk(a, dt); return t }

// valuesOf reads a tensor back as float64 (a cut).
func valuesOf(t *Tensor) nd {
	return nd{dims: append([]int64{}, t.Dims()...), v: t.Float64s()}
}

// unit is the unit roundoff of a float dtype (half an ulp of 1).
func unit(dt DType) float64 {
	switch dt {
	case F64:
		return 0x1p-53
	case F32:
		return 0x1p-24
	case F16:
		return 0x1p-11
	case BF16:
		return 0x1p-8
	}
	return 0
}

// tolFor returns an element tolerance: ulps units of dt relative to the
// magnitude, plus the same absolute amount at scale (for results near 0
// that come from cancellation of values of size scale).
type tolerance struct{ rel, abs float64 }

func ulpsTol(dt DType, ulps, scale float64) tolerance {
	u := unit(dt)
	return tolerance{rel: ulps * u, abs: ulps * u * scale}
}

var exact = tolerance{}

func (tl tolerance) ok(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tl.abs+tl.rel*math.Abs(want)
}

// expectND compares got with want element by element.
func expectND(t *testing.T, what string, got nd, want nd, tl tolerance) {
	t.Helper()
	if !sameDims(got.dims, want.dims) {
		t.Errorf("%s: dims %v, want %v", what, got.dims, want.dims)
		return
	}
	bad := 0
	for i := range want.v {
		if !tl.ok(got.v[i], want.v[i]) {
			if bad < 5 {
				t.Errorf("%s: element %v = %.17g, want %.17g (diff %.3g, tol %.3g+%.3g|want|)", what, unflat(want.dims, i),
					got.v[i], want.v[i], got.v[i]-want.v[i], tl.abs, tl.rel)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(want.v))
	}
}

// expectT syncs got, checks its dtype and compares its values with want.
func expectT(t *testing.T, what string, got *Tensor, dt DType, want nd, tl tolerance) {
	t.Helper()
	if got.DType() != dt {
		t.Errorf("%s: dtype %s, want %s", what, got.DType(), dt)
	}
	expectND(t, what, valuesOf(got), want, tl)
}

// --- reference computations ---

// refMatMul is numpy matmul on float64 arrays of rank >= 2 with broadcast
// batch dims.
func refMatMul(a, b nd) nd {
	m, k := a.dims[a.rank()-2], a.dims[a.rank()-1]
	k2, n := b.dims[b.rank()-2], b.dims[b.rank()-1]
	if k != k2 {
		panic("refMatMul: inner dims")
	}
	batch := bdims(a.dims[:a.rank()-2], b.dims[:b.rank()-2])
	out := newND(append(append(append([]int64{}, batch...), m), n)...)
	for i := range out.v {
		idx := unflat(out.dims, i)
		bi := idx[:len(batch)]
		r, c := idx[len(batch)], idx[len(batch)+1]
		s := 0.0
		for p := int64(0); p < k; p++ {
			ai := append(append(append([]int64{}, bi...), r), p)
			bj := append(append(append([]int64{}, bi...), p), c)
			s += bget(a, ai) * bget(b, bj)
		}
		out.v[i] = s
	}
	return out
}

// refReduce folds a over axes (sorted) with f from init.
func refReduce(a nd, axes []int, init float64, f func(acc, x float64) float64) nd {
	red := make([]bool, a.rank())
	for _, ax := range axes {
		red[ax] = true
	}
	var od []int64
	for d, n := range a.dims {
		if !red[d] {
			od = append(od, n)
		}
	}
	out := newND(od...)
	for i := range out.v {
		out.v[i] = init
	}
	for i, x := range a.v {
		idx := unflat(a.dims, i)
		var oi []int64
		for d := range idx {
			if !red[d] {
				oi = append(oi, idx[d])
			}
		}
		o := out.off(oi)
		out.v[o] = f(out.v[o], x)
	}
	return out
}

// refConv2d is a direct NCHW/OIHW convolution with stride, symmetric
// padding, dilation and groups.
func refConv2d(x, w nd, stride, pad, dil [2]int64, groups int64) nd {
	N, C, H, W := x.dims[0], x.dims[1], x.dims[2], x.dims[3]
	O, CG, KH, KW := w.dims[0], w.dims[1], w.dims[2], w.dims[3]
	if CG*groups != C {
		panic("refConv2d: groups")
	}
	OH := (H+2*pad[0]-dil[0]*(KH-1)-1)/stride[0] + 1
	OW := (W+2*pad[1]-dil[1]*(KW-1)-1)/stride[1] + 1
	out := newND(N, O, OH, OW)
	og := O / groups
	for n := int64(0); n < N; n++ {
		for o := int64(0); o < O; o++ {
			g := o / og
			for oh := int64(0); oh < OH; oh++ {
				for ow := int64(0); ow < OW; ow++ {
					s := 0.0
					for c := int64(0); c < CG; c++ {
						for kh := int64(0); kh < KH; kh++ {
							for kw := int64(0); kw < KW; kw++ {
								ih := oh*stride[0] - pad[0] + kh*dil[0]
								iw := ow*stride[1] - pad[1] + kw*dil[1]
								if ih < 0 || ih >= H || iw < 0 || iw >= W {
									continue
								}
								s += x.at(n, g*CG+c, ih, iw) * w.at(o, c, kh, kw)
							}
						}
					}
					out.v[out.off([]int64{n, o, oh, ow})] = s
				}
			}
		}
	}
	return out
}

// refPool2d reduces kernel windows of NCHW x; padded positions are skipped
// by max and count as zeros for the average (count_include_pad).
func refPool2d(x nd, kind string, k, stride, pad [2]int64) nd {
	N, C, H, W := x.dims[0], x.dims[1], x.dims[2], x.dims[3]
	OH := (H+2*pad[0]-k[0])/stride[0] + 1
	OW := (W+2*pad[1]-k[1])/stride[1] + 1
	out := newND(N, C, OH, OW)
	for i := range out.v {
		idx := unflat(out.dims, i)
		m, s := math.Inf(-1), 0.0
		for kh := int64(0); kh < k[0]; kh++ {
			for kw := int64(0); kw < k[1]; kw++ {
				ih, iw := idx[2]*stride[0]-pad[0]+kh, idx[3]*stride[1]-pad[1]+kw
				if ih < 0 || ih >= H || iw < 0 || iw >= W {
					continue
				}
				v := x.at(idx[0], idx[1], ih, iw)
				m = math.Max(m, v)
				s += v
			}
		}
		if kind == "max" {
			out.v[i] = m
		} else {
			out.v[i] = s / float64(k[0]*k[1])
		}
	}
	return out
}

// newRand returns the deterministic generator of one test.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

var floatTypes = []DType{F32, F64}
