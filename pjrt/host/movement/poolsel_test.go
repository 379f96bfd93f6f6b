package movement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// poolSelRegion is the select region lazy writes for a float max pool's
// gradient (dir GT) or a min pool's (LT): keep the current choice unless
// the candidate is greater (less) or NaN,
// not(or(compare(dir, cand, cur), compare(NE, cand, cand))); swap puts
// the or's operands the other way round.
func poolSelRegion(dt hlo.DType, dir string, swap bool) *hlo.Region {
	b := newBody(dt, dt)
	cur, cand := b.arg(0), b.arg(1)
	x := b.cmp(dir, cand, cur)
	y := b.cmp("NE", cand, cand)
	if swap {
		x, y = y, x
	}
	return b.ret(b.op("stablehlo.not", hlo.Bool, []*hlo.Value{b.op("stablehlo.or", hlo.Bool, []*hlo.Value{x, y})}))
}

// naivePoolSelect is select_and_scatter with an add scatter and PyTorch's
// pooling rule, computed in float64 from its definition: in row-major
// order, a position inside the operand replaces the current choice when
// there is none yet, when it is greater (max; less for min) or NaN.
func naivePoolSelect(operand, source, init *hlo.Literal, a *windowAttrs, max bool) *hlo.Literal {
	res := hlo.NewLiteral(operand.DType, operand.Dims...)
	for i := 0; i < res.NumElements(); i++ {
		res.SetFloat(i, init.Float(0))
	}
	out := source.Dims
	for o := 0; o < source.NumElements(); o++ {
		oi := unravel(o, out)
		chosen := -1
		for w := 0; w < int(hlo.NumElements(a.win)); w++ {
			wi := unravel(w, a.win)
			ii := make([]int64, len(oi))
			for d := range ii {
				ii[d] = oi[d]*a.strides[d] + wi[d] - a.lo[d]
			}
			if !inBounds(ii, operand.Dims) {
				continue
			}
			k := ravel(ii, operand.Dims)
			v := operand.Float(k)
			if chosen < 0 || math.IsNaN(v) || (max && v > operand.Float(chosen)) || (!max && v < operand.Float(chosen)) {
				chosen = k
			}
		}
		if chosen >= 0 {
			res.SetFloat(chosen, res.Float(chosen)+source.Float(o))
		}
	}
	return res
}

// TestPoolSelectNaNRule runs select_and_scatter with the pooling region on
// random pooling windows (1-D and 2-D, strided, padded, overlapping, and
// the 2x2 stride-2 tiling with rows for the vector kernels) and values
// with NaNs, infinities, signed zeros and ties: the region is recognised
// for f32 and f64 (typed loops, vector kernels), and the plane path with
// and without vector kernels, the generic path and the region run as a
// program (bf16, and the region the other way round) all agree with the
// rule's definition.
func TestPoolSelectNaNRule(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	iters := 800
	if testing.Short() {
		iters = 200
	}
	tiled := 0
	for it := 0; it < iters; it++ {
		c := randPoolCase(r)
		out := c.outDims()
		dt := []hlo.DType{hlo.F32, hlo.F32, hlo.F64, hlo.BF16}[r.IntN(4)]
		in := poolValues(r, dt, c.dims...)
		for i := 0; i < in.NumElements(); i++ {
			if r.IntN(10) == 0 {
				in.SetFloat(i, []float64{math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(3)])
			}
		}
		src := poolValues(r, dt, out...)
		init := hlo.ScalarLiteral(dt, []float64{0, 0, 1.5}[r.IntN(3)])
		max := r.IntN(3) > 0
		dir := map[bool]string{true: "GT", false: "LT"}[max]
		swap := r.IntN(4) == 0
		op := mkOp("stablehlo.select_and_scatter", []hlo.Type{in.Type(), src.Type(), init.Type()}, []hlo.Type{in.Type()}, c.attrs(false)...)
		op.Regions = []*hlo.Region{poolSelRegion(dt, dir, swap), binRegion("stablehlo.add", dt)}
		name := fmt.Sprintf("case %d: %s %v window %v strides %v pad %v %v %s swap=%v", it, dt, c.dims, c.a.win, c.a.strides, c.a.lo, c.a.hi, dir, swap)
		so, err := newSelectScatter(&kernel.OpCtx{Op: op, Compiler: testCompiler{}, In: []hlo.Type{in.Type(), src.Type(), init.Type()}, Out: []hlo.Type{in.Type()}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := map[bool]string{true: "MAXNAN", false: "MINNAN"}[max]
		if fast := dt == hlo.F32 || dt == hlo.F64; so.selDir != want || fast && so.selFast == nil || fast && so.pool != nil && !so.typed {
			t.Fatalf("%s: selDir %q, fast select %v, typed %v", name, so.selDir, so.selFast != nil, so.typed)
		}
		if so.pool != nil && so.pool.tiles2x2() {
			tiled++
		}
		ref := naivePoolSelect(in, src, init, c.a, max)
		sameLit(t, name+" planes", run(t, op, in, src, init)[0], ref)
		useVec = false
		sameLit(t, name+" planes, no vector kernels", run(t, op, in, src, init)[0], ref)
		useVec = true
		usePoolPlanes = false
		sameLit(t, name+" generic", run(t, op, in, src, init)[0], ref)
		usePoolPlanes = true
	}
	if tiled < iters/8 {
		t.Fatalf("only %d of %d cases tiled 2x2", tiled, iters)
	}
}

// TestPoolSelectRegionDetected checks that only the pooling region is
// taken for it: a GE or a region with other comparisons is not.
func TestPoolSelectRegionDetected(t *testing.T) {
	for _, tc := range []struct {
		dir, ne string
		want    string
	}{{"GT", "NE", "MAXNAN"}, {"LT", "NE", "MINNAN"}, {"GE", "NE", ""}, {"GT", "EQ", ""}} {
		b := newBody(hlo.F32, hlo.F32)
		cur, cand := b.arg(0), b.arg(1)
		x := b.cmp(tc.dir, cand, cur)
		y := b.cmp(tc.ne, cand, cand)
		reg := b.ret(b.op("stablehlo.not", hlo.Bool, []*hlo.Value{b.op("stablehlo.or", hlo.Bool, []*hlo.Value{x, y})}))
		if got := detectPoolSel(reg.Blocks[0]); got != tc.want {
			t.Errorf("%s/%s: %q, want %q", tc.dir, tc.ne, got, tc.want)
		}
		// The comparison of (cur, cand) instead of (cand, cur) is another rule.
		b = newBody(hlo.F32, hlo.F32)
		cur, cand = b.arg(0), b.arg(1)
		x = b.cmp(tc.dir, cur, cand)
		y = b.cmp(tc.ne, cand, cand)
		reg = b.ret(b.op("stablehlo.not", hlo.Bool, []*hlo.Value{b.op("stablehlo.or", hlo.Bool, []*hlo.Value{x, y})}))
		if got := detectPoolSel(reg.Blocks[0]); got != "" {
			t.Errorf("%s(cur, cand): %q, want none", tc.dir, got)
		}
	}
}
