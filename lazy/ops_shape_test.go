package lazy

import (
	"fmt"
	"math"
	"testing"
)

// Movement ops copy values: every comparison is exact.

// seqND is 1, 2, 3, ... in dims (distinct values, so a misplaced element
// is always visible).
func seqND(dims ...int64) nd {
	a := newND(dims...)
	for i := range a.v {
		a.v[i] = float64(i + 1)
	}
	return a
}

var movementTypes = []DType{F32, F64, I32, I64}

func TestOpsReshape(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(2, 3, 4), dt)
		cases := []struct {
			dims []int64
			want []int64
		}{
			{[]int64{6, 4}, []int64{6, 4}},
			{[]int64{-1, 2}, []int64{12, 2}},
			{[]int64{4, -1, 3}, []int64{4, 2, 3}},
			{[]int64{24}, []int64{24}},
			{[]int64{2, 3, 4}, []int64{2, 3, 4}},
		}
		for _, c := range cases {
			expectT(t, fmt.Sprintf("Reshape/%s/%v", dt, c.dims), x.Reshape(c.dims...), dt, nd{dims: c.want, v: xv.v}, exact)
		}
		expectT(t, "Flatten/"+dt.String(), x.Flatten(), dt, nd{dims: []int64{24}, v: xv.v}, exact)
		s := mkT(ndOf([]float64{7}, 1, 1), dt)
		expectT(t, "Reshape/scalar/"+dt.String(), s.Reshape(), dt, ndOf([]float64{7}), exact)
	}
}

func refPermute(a nd, perm []int) nd {
	od := make([]int64, len(perm))
	for i, p := range perm {
		od[i] = a.dims[p]
	}
	return gen(od, func(oi []int64) float64 {
		ii := make([]int64, len(perm))
		for i, p := range perm {
			ii[p] = oi[i]
		}
		return a.at(ii...)
	})
}

func TestOpsPermuteTranspose(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(2, 3, 4), dt)
		for _, p := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}, {0, 2, 1}, {-1, 0, 1}} {
			pn := make([]int, 3)
			for i, v := range p {
				pn[i] = (v + 3) % 3
			}
			expectT(t, fmt.Sprintf("Permute/%s/%v", dt, p), x.Permute(p...), dt, refPermute(xv, pn), exact)
		}
		expectT(t, "Transpose(0,2)/"+dt.String(), x.Transpose(0, 2), dt, refPermute(xv, []int{2, 1, 0}), exact)
		expectT(t, "Transpose(-1,1)/"+dt.String(), x.Transpose(-1, 1), dt, refPermute(xv, []int{0, 2, 1}), exact)
		expectT(t, "T/"+dt.String(), x.T(), dt, refPermute(xv, []int{0, 2, 1}), exact)
	}
}

func TestOpsBroadcastExpand(t *testing.T) {
	for _, dt := range movementTypes {
		cases := []struct{ from, to []int64 }{
			{[]int64{3}, []int64{2, 3}},
			{[]int64{2, 1}, []int64{2, 4}},
			{[]int64{1, 3, 1}, []int64{2, 3, 4}},
			{[]int64{}, []int64{2, 2}},
			{[]int64{2, 3}, []int64{2, 3}},
		}
		for _, c := range cases {
			x, xv := mk(seqND(c.from...), dt)
			want := gen(c.to, func(idx []int64) float64 { return bget(xv, idx) })
			expectT(t, fmt.Sprintf("BroadcastTo/%s/%v->%v", dt, c.from, c.to), x.BroadcastTo(c.to...), dt, want, exact)
		}
		x, xv := mk(seqND(3, 1), dt)
		want := gen([]int64{2, 3, 4}, func(idx []int64) float64 { return bget(xv, idx) })
		expectT(t, "Expand/"+dt.String(), x.Expand(2, -1, 4), dt, want, exact)
	}
}

func TestOpsSqueezeUnsqueeze(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(1, 3, 1, 2), dt)
		cases := []struct {
			got  *Tensor
			dims []int64
		}{
			{x.Squeeze(), []int64{3, 2}},
			{x.Squeeze(0), []int64{3, 1, 2}},
			{x.Squeeze(-2), []int64{1, 3, 2}},
			{x.Squeeze(0, 2), []int64{3, 2}},
			{x.Unsqueeze(0), []int64{1, 1, 3, 1, 2}},
			{x.Unsqueeze(4), []int64{1, 3, 1, 2, 1}},
			{x.Unsqueeze(-1), []int64{1, 3, 1, 2, 1}},
			{x.Unsqueeze(2), []int64{1, 3, 1, 1, 2}},
		}
		for i, c := range cases {
			expectT(t, fmt.Sprintf("Squeeze/Unsqueeze %d/%s", i, dt), c.got, dt, nd{dims: c.dims, v: xv.v}, exact)
		}
	}
}

// refSlice is a[start:limit:stride] per axis.
func refSlice(a nd, start, limit, stride []int64) nd {
	od := make([]int64, a.rank())
	for i := range od {
		od[i] = max(0, (limit[i]-start[i]+stride[i]-1)/stride[i])
	}
	return gen(od, func(oi []int64) float64 {
		ii := make([]int64, len(oi))
		for i := range oi {
			ii[i] = start[i] + oi[i]*stride[i]
		}
		return a.at(ii...)
	})
}

func TestOpsSlices(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(4, 5, 6), dt)
		cases := []struct{ start, limit, stride []int64 }{
			{[]int64{0, 0, 0}, []int64{4, 5, 6}, []int64{1, 1, 1}},
			{[]int64{1, 2, 0}, []int64{3, 5, 6}, []int64{1, 1, 2}},
			{[]int64{0, 1, 1}, []int64{4, 5, 6}, []int64{3, 2, 4}},
			{[]int64{2, 0, 5}, []int64{2, 5, 6}, []int64{1, 1, 1}}, // empty axis
		}
		for _, c := range cases {
			expectT(t, fmt.Sprintf("SliceStrided/%s/%v:%v:%v", dt, c.start, c.limit, c.stride),
				x.SliceStrided(c.start, c.limit, c.stride), dt, refSlice(xv, c.start, c.limit, c.stride), exact)
		}
		expectT(t, "Narrow/"+dt.String(), x.Narrow(1, 1, 3), dt, refSlice(xv, []int64{0, 1, 0}, []int64{4, 4, 6}, []int64{1, 1, 1}), exact)
		expectT(t, "Narrow/neg/"+dt.String(), x.Narrow(-1, 4, 2), dt, refSlice(xv, []int64{0, 0, 4}, []int64{4, 5, 6}, []int64{1, 1, 1}), exact)
		parts := x.Split(1, 2, 0, 3)
		off := int64(0)
		for i, n := range []int64{2, 0, 3} {
			expectT(t, fmt.Sprintf("Split/%d/%s", i, dt), parts[i], dt, refSlice(xv, []int64{0, off, 0}, []int64{4, off + n, 6}, []int64{1, 1, 1}), exact)
			off += n
		}
		ch := x.Chunk(-1, 3)
		for i := range ch {
			o := int64(2 * i)
			expectT(t, fmt.Sprintf("Chunk/%d/%s", i, dt), ch[i], dt, refSlice(xv, []int64{0, 0, o}, []int64{4, 5, o + 2}, []int64{1, 1, 1}), exact)
		}
	}
}

func refConcat(axis int, as ...nd) nd {
	od := append([]int64{}, as[0].dims...)
	od[axis] = 0
	for _, a := range as {
		od[axis] += a.dims[axis]
	}
	return gen(od, func(oi []int64) float64 {
		k := oi[axis]
		for _, a := range as {
			if k < a.dims[axis] {
				ii := append([]int64{}, oi...)
				ii[axis] = k
				return a.at(ii...)
			}
			k -= a.dims[axis]
		}
		panic("refConcat")
	})
}

func TestOpsConcatStack(t *testing.T) {
	for _, dt := range movementTypes {
		a, av := mk(seqND(2, 3), dt)
		b, bv := mk(mapND(seqND(2, 1), func(x float64) float64 { return 100 + x }), dt)
		c, cv := mk(mapND(seqND(2, 2), func(x float64) float64 { return 200 + x }), dt)
		expectT(t, "Concat/1/"+dt.String(), Concat(1, a, b, c), dt, refConcat(1, av, bv, cv), exact)
		expectT(t, "Concat/-1/"+dt.String(), Concat(-1, a, c), dt, refConcat(1, av, cv), exact)
		d, dv := mk(mapND(seqND(1, 3), func(x float64) float64 { return 300 + x }), dt)
		expectT(t, "Concat/0/"+dt.String(), Concat(0, a, d), dt, refConcat(0, av, dv), exact)
		expectT(t, "Concat/single/"+dt.String(), Concat(0, a), dt, av, exact)
		e, ev := mk(mapND(seqND(2, 3), func(x float64) float64 { return -x }), dt)
		for _, axis := range []int{0, 1, 2, -1} {
			ax := (axis + 3) % 3
			u := func(v nd) nd {
				d := append(append(append([]int64{}, v.dims[:ax]...), 1), v.dims[ax:]...)
				return nd{dims: d, v: v.v}
			}
			expectT(t, fmt.Sprintf("Stack/%d/%s", axis, dt), Stack(axis, a, e), dt, refConcat(ax, u(av), u(ev)), exact)
		}
	}
}

// refPad pads a with lo/hi (negative: cut) and interior elements of v.
func refPad(a nd, lo, hi, interior []int64, v float64) nd {
	od := make([]int64, a.rank())
	for i := range od {
		d := a.dims[i]
		od[i] = lo[i] + hi[i] + d
		if d > 0 {
			od[i] += (d - 1) * interior[i]
		}
	}
	return gen(od, func(oi []int64) float64 {
		ii := make([]int64, len(oi))
		for i := range oi {
			p := oi[i] - lo[i] // position in the interior-dilated operand
			if p < 0 || p%(interior[i]+1) != 0 || p/(interior[i]+1) >= a.dims[i] {
				return v
			}
			ii[i] = p / (interior[i] + 1)
		}
		return a.at(ii...)
	})
}

func TestOpsPad(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(3, 4), dt)
		cases := []struct {
			lo, hi, in []int64
			v          float64
		}{
			{[]int64{1, 2}, []int64{0, 1}, []int64{0, 0}, 0},
			{[]int64{0, 0}, []int64{0, 0}, []int64{1, 2}, -1},
			{[]int64{-1, 1}, []int64{2, -2}, []int64{0, 1}, 9},
			{[]int64{-2, -1}, []int64{-1, 0}, []int64{0, 0}, 0},
			{[]int64{-1, -3}, []int64{0, -3}, []int64{2, 1}, 5}, // cuts into interior padding
		}
		for _, c := range cases {
			expectT(t, fmt.Sprintf("PadWith/%s/%v/%v/%v", dt, c.lo, c.hi, c.in), x.PadWith(c.lo, c.hi, c.in, c.v), dt,
				refPad(xv, c.lo, c.hi, c.in, c.v), exact)
		}
		// torch order: last axis first.
		expectT(t, "Pad/"+dt.String(), x.Pad(1, 2), dt, refPad(xv, []int64{0, 1}, []int64{0, 2}, []int64{0, 0}, 0), exact)
		expectT(t, "Pad/2axes/"+dt.String(), x.Pad(0, 1, 2, 0), dt, refPad(xv, []int64{2, 0}, []int64{0, 1}, []int64{0, 0}, 0), exact)
	}
}

func TestOpsFlip(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(2, 3, 4), dt)
		for _, axes := range [][]int{{0}, {2}, {-1, 0}, {0, 1, 2}, {}} {
			flip := make([]bool, 3)
			for _, a := range axes {
				flip[(a+3)%3] = true
			}
			want := gen(xv.dims, func(oi []int64) float64 {
				ii := append([]int64{}, oi...)
				for d := range ii {
					if flip[d] {
						ii[d] = xv.dims[d] - 1 - ii[d]
					}
				}
				return xv.at(ii...)
			})
			expectT(t, fmt.Sprintf("Flip/%s/%v", dt, axes), x.Flip(axes...), dt, want, exact)
		}
	}
}

// Chunk with a piece count near the int range cuts one element per piece
// (ceil(d/n) computed without overflow).
func TestChunkHugeCount(t *testing.T) {
	pieces := Zeros(F32, 5).Chunk(0, math.MaxInt)
	if len(pieces) != 5 {
		t.Fatalf("%d pieces, want 5", len(pieces))
	}
}

// TestSliceStridedPythonBounds: SliceStrided clamps and wraps its bounds
// as Python slicing does, without overflowing at the int64 extremes.
func TestSliceStridedPythonBounds(t *testing.T) {
	x, xv := mk(seqND(5), F32)
	cases := []struct{ start, limit, stride, want []int64 }{
		{[]int64{math.MinInt64}, []int64{math.MaxInt64}, []int64{math.MaxInt64}, []int64{0, 1, 1}},
		{[]int64{-2}, []int64{math.MaxInt64}, []int64{1}, []int64{3, 5, 1}},
		{[]int64{-7}, []int64{-4}, []int64{2}, []int64{0, 1, 2}},
	}
	for _, c := range cases {
		expectT(t, fmt.Sprintf("SliceStrided/%v:%v:%v", c.start, c.limit, c.stride), x.SliceStrided(c.start, c.limit, c.stride), F32,
			refSlice(xv, c.want[:1], c.want[1:2], c.want[2:]), exact)
	}
	if d := x.SliceStrided([]int64{math.MaxInt64}, []int64{math.MinInt64}, []int64{1}).Dims(); len(d) != 1 || d[0] != 0 {
		t.Errorf("x[MaxInt64:MinInt64] has dims %v, want [0]", d)
	}
}

// The gradient of a slice whose axes keep one element pads without
// interior gaps: the stride, never stepped, may be near 2^63 (PyTorch
// 1.13: x[0:5:2**62+2] and x[-2:100:2**62+2] of [1..5] take one element,
// gradients [1 0 0 0 0] and [0 0 0 1 0]).
func TestSliceHugeStrideGrad(t *testing.T) {
	x := FromSlice([]float32{1, 2, 3, 4, 5})
	for _, c := range []struct {
		s, l, st int64
		want     string
	}{
		{0, 5, 1<<62 + 2, "[1] [1 0 0 0 0]"},
		{-2, 100, 1<<62 + 2, "[4] [0 0 0 1 0]"},
		{3, 1, 1<<62 + 2, "[] [0 0 0 0 0]"},
	} {
		var got string
		if err := Try(func() {
			y := x.SliceStrided([]int64{c.s}, []int64{c.l}, []int64{c.st})
			got = fmt.Sprint(y.Float32s(), " ", Grad(y.Sum(), x)[0].Float32s())
		}); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("x[%d:%d:%d]: got %s, want %s", c.s, c.l, c.st, got, c.want)
		}
	}
}

// Concat's result is a tensor of its own even when only one operand is
// left (the others empty 1-D tensors, skipped as torch.cat skips them):
// writing it leaves the operand as it was.
func TestConcatResultIsItsOwn(t *testing.T) {
	x := FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	for _, ts := range [][]*Tensor{{x}, {x, FromSlice([]float32{})}, {FromSlice([]float32{}), x}} {
		y := Concat(0, ts...)
		if y == x {
			t.Fatal("Concat returned its operand")
		}
		y.Assign(y.AddScalar(10))
		if got := fmt.Sprint(x.Float32s()); got != "[1 2 3 4]" {
			t.Fatalf("writing Concat's result changed its operand to %s", got)
		}
	}
}
