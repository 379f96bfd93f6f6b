package movement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// poolCase is a random pooling window: a window over one or two adjacent
// dimensions of a random shape, with strides and padding.
type poolCase struct {
	dims []int64
	a    *windowAttrs
}

func randPoolCase(r *rand.Rand) poolCase {
	rank := 1 + r.IntN(4)
	dims := make([]int64, rank)
	for d := range dims {
		dims[d] = int64(1 + r.IntN(6))
	}
	a := &windowAttrs{}
	for range dims {
		a.win = append(a.win, 1)
		a.strides = append(a.strides, 1)
		a.baseDil = append(a.baseDil, 1)
		a.winDil = append(a.winDil, 1)
		a.lo = append(a.lo, 0)
		a.hi = append(a.hi, 0)
	}
	if rank >= 2 && r.IntN(4) == 0 {
		// The layer that tiles its operand: 2x2, stride 2, innermost
		// (rows of up to 20 windows: the vector kernels do 8 at a time).
		dims[rank-2] = int64(2 * (1 + r.IntN(4)))
		dims[rank-1] = int64(2 * (1 + r.IntN(20)))
		for d := rank - 2; d < rank; d++ {
			a.win[d], a.strides[d] = 2, 2
		}
		return poolCase{dims, a}
	}
	n := 1 + r.IntN(min(2, rank))
	first := r.IntN(rank - n + 1)
	for d := first; d < first+n; d++ {
		dims[d] = int64(1 + r.IntN(9))
		a.win[d] = int64(1 + r.IntN(4))
		a.strides[d] = int64(1 + r.IntN(3))
		a.lo[d] = int64(r.IntN(3))
		a.hi[d] = int64(r.IntN(3))
	}
	return poolCase{dims, a}
}

func (c poolCase) outDims() []int64 {
	out := make([]int64, len(c.dims))
	for d := range out {
		out[d], _ = windowCount(c.dims[d], c.a.lo[d], c.a.hi[d], 1, c.a.win[d], 1, c.a.strides[d])
	}
	return out
}

func (c poolCase) attrs(dilations bool) []hlo.NamedAttr {
	var pad []int64
	for d := range c.dims {
		pad = append(pad, c.a.lo[d], c.a.hi[d])
	}
	as := []hlo.NamedAttr{attr("window_dimensions", ints(c.a.win...)), attr("window_strides", ints(c.a.strides...)),
		attr("padding", &hlo.DenseElementsAttr{Type: tt(hlo.I64, int64(len(c.dims)), 2), Value: hlo.LiteralFromSlice(pad, int64(len(c.dims)), 2)})}
	if dilations {
		as = append(as, attr("base_dilations", ints(c.a.baseDil...)), attr("window_dilations", ints(c.a.winDil...)))
	}
	return as
}

// poolValues fills a literal with few distinct values (ties), and for
// floats signed zeros, NaNs and values of many magnitudes (sums that round).
func poolValues(r *rand.Rand, dt hlo.DType, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(dt, dims...)
	for i := 0; i < l.NumElements(); i++ {
		v := float64(r.IntN(7) - 3)
		if dt.IsFloat() {
			switch r.IntN(12) {
			case 0:
				v = math.NaN()
			case 1:
				v = math.Copysign(0, -1)
			case 2:
				v = float64(r.IntN(1000)) / 64
			case 3, 4, 5:
				v = (r.Float64() - 0.5) * math.Ldexp(1, r.IntN(30)-15)
			}
		}
		l.SetFloat(i, v)
	}
	return l
}

// withPlanes runs f with the plane path on and off.
func withPlanes(t *testing.T, f func() *hlo.Literal) (planes, generic *hlo.Literal) {
	t.Helper()
	planes = f()
	usePoolPlanes = false
	defer func() { usePoolPlanes = true }()
	return planes, f()
}

// TestPoolPlanesMatchGeneric compares the plane path of reduce_window and
// select_and_scatter with the generic window iteration bit for bit on
// random pooling windows (1-D and 2-D, NCHW- and NHWC-like, strided,
// padded, overlapping), element types, bodies and init values, including
// NaNs, signed zeros and ties.
func TestPoolPlanesMatchGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	iters := 1500
	if testing.Short() {
		iters = 300
	}
	planned, tiled := 0, 0
	for it := 0; it < iters; it++ {
		c := randPoolCase(r)
		out := c.outDims()
		if p := planPool(c.dims, c.a, out); p != nil {
			planned++
			if p.tiles2x2() {
				tiled++
			}
		}
		dt := []hlo.DType{hlo.F32, hlo.F64, hlo.I32, hlo.BF16}[r.IntN(4)]
		in := poolValues(r, dt, c.dims...)
		init := poolValues(r, dt)
		body := []string{"stablehlo.add", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.multiply"}[r.IntN(4)]
		name := fmt.Sprintf("case %d: %s %v window %v strides %v pad %v %v, %s init %v", it, dt, c.dims, c.a.win, c.a.strides, c.a.lo, c.a.hi, body, init)
		got, want := withPlanes(t, func() *hlo.Literal {
			op := mkOp("stablehlo.reduce_window", []hlo.Type{in.Type(), init.Type()}, []hlo.Type{tt(dt, out...)}, c.attrs(true)...)
			op.Regions = []*hlo.Region{binRegion(body, dt)}
			return run(t, op, in, init)[0]
		})
		sameLit(t, "reduce_window "+name, got, want)

		src := poolValues(r, dt, out...)
		dir := []string{"GE", "GT", "LE", "LT"}[r.IntN(4)]
		typ := []string{"FLOAT", "TOTALORDER"}[r.IntN(2)]
		if !dt.IsFloat() {
			typ = "SIGNED"
		}
		sca := []string{"stablehlo.add", "stablehlo.maximum"}[r.IntN(2)]
		got, want = withPlanes(t, func() *hlo.Literal {
			sb := newBody(dt, dt)
			sel := sb.ret(sb.op("stablehlo.compare", hlo.Bool, []*hlo.Value{sb.arg(0), sb.arg(1)},
				attr("comparison_direction", hlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: dir}),
				attr("compare_type", hlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_type", Value: typ})))
			op := mkOp("stablehlo.select_and_scatter", []hlo.Type{in.Type(), src.Type(), init.Type()}, []hlo.Type{in.Type()}, c.attrs(false)...)
			op.Regions = []*hlo.Region{sel, binRegion(sca, dt)}
			return run(t, op, in, src, init)[0]
		})
		sameLit(t, "select_and_scatter "+name+" "+dir+" "+typ+" "+sca, got, want)
	}
	if planned < iters/2 || tiled < iters/8 {
		t.Fatalf("only %d of %d cases took the plane path, %d tiled 2x2", planned, iters, tiled)
	}
}

// TestPoolPlanesNCHW checks the common pooling layers (2x2 stride 2, 3x3
// stride 1 and 2 with padding, NCHW and NHWC) take the plane path and
// agree with the naive reference.
func TestPoolPlanesNCHW(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	for _, layout := range []string{"NCHW", "NHWC"} {
		for _, w := range []struct{ k, s, p int64 }{{2, 2, 0}, {3, 1, 1}, {3, 2, 1}, {3, 2, 0}} {
			dims := []int64{2, 3, 9, 8}
			win := []int64{1, 1, w.k, w.k}
			str := []int64{1, 1, w.s, w.s}
			pad := []int64{0, 0, w.p, w.p}
			if layout == "NHWC" {
				dims = []int64{2, 9, 8, 3}
				win = []int64{1, w.k, w.k, 1}
				str = []int64{1, w.s, w.s, 1}
				pad = []int64{0, w.p, w.p, 0}
			}
			c := poolCase{dims, &windowAttrs{win: win, strides: str, baseDil: []int64{1, 1, 1, 1}, winDil: []int64{1, 1, 1, 1}, lo: pad, hi: pad}}
			out := c.outDims()
			if planPool(c.dims, c.a, out) == nil {
				t.Fatalf("%s %v: no plane path", layout, w)
			}
			in := poolValues(r, hlo.F32, dims...)
			init := hlo.ScalarLiteral(hlo.F32, math.Inf(-1))
			want := naiveReduceWindow(in, init, c.a, opF("stablehlo.maximum", hlo.F32))
			op := mkOp("stablehlo.reduce_window", []hlo.Type{in.Type(), init.Type()}, []hlo.Type{want.Type()}, c.attrs(true)...)
			op.Regions = []*hlo.Region{binRegion("stablehlo.maximum", hlo.F32)}
			sameLit(t, fmt.Sprintf("%s %v", layout, w), run(t, op, in, init)[0], want)
		}
	}
}

// BenchmarkPool times max pooling 2x2 stride 2 and its gradient
// (select_and_scatter) on the first pooling layer of a small CNN (batch
// 64, 8 channels, 28x28, NCHW).
func BenchmarkPool(b *testing.B) {
	r := rand.New(rand.NewPCG(75, 76))
	dims := []int64{64, 8, 28, 28}
	c := poolCase{dims, &windowAttrs{win: []int64{1, 1, 2, 2}, strides: []int64{1, 1, 2, 2}, baseDil: []int64{1, 1, 1, 1}, winDil: []int64{1, 1, 1, 1}, lo: make([]int64, 4), hi: make([]int64, 4)}}
	out := c.outDims()
	in := poolValues(r, hlo.F32, dims...)
	init := hlo.ScalarLiteral(hlo.F32, math.Inf(-1))
	for _, planes := range []bool{true, false} {
		usePoolPlanes = planes
		rw := mkOp("stablehlo.reduce_window", []hlo.Type{in.Type(), init.Type()}, []hlo.Type{tt(hlo.F32, out...)}, c.attrs(true)...)
		rw.Regions = []*hlo.Region{binRegion("stablehlo.maximum", hlo.F32)}
		b.Run(fmt.Sprintf("reduce_window/planes=%v", planes), func(b *testing.B) { benchOp(b, rw, in, init) })
		src := poolValues(r, hlo.F32, out...)
		sb := newBody(hlo.F32, hlo.F32)
		sel := sb.ret(sb.cmp("GE", sb.arg(0), sb.arg(1)))
		sas := mkOp("stablehlo.select_and_scatter", []hlo.Type{in.Type(), src.Type(), init.Type()}, []hlo.Type{in.Type()}, c.attrs(false)...)
		sas.Regions = []*hlo.Region{sel, binRegion("stablehlo.add", hlo.F32)}
		b.Run(fmt.Sprintf("select_and_scatter/planes=%v", planes), func(b *testing.B) { benchOp(b, sas, in, src, hlo.ScalarLiteral(hlo.F32, 0)) })
	}
	usePoolPlanes = true
}

// benchOp times runs of op on args (compiled once; each result's storage
// goes back to the pool, as a plan recycles it).
func benchOp(b *testing.B, op *hlo.Op, args ...*hlo.Literal) {
	fn, err := compile(op)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]kernel.Value, len(args))
	for i, a := range args {
		in[i] = a
	}
	res := make([]kernel.Value, len(op.Results))
	x := &kernel.Ctx{Pool: &kernel.Pool{}}
	cpu0 := cpuNanos()
	for b.Loop() {
		if err := fn(x, in, res); err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			x.Pool.Put(r.(*hlo.Literal))
		}
	}
	b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N), "cpu-ns/op")
}
