package host

import (
	"math/rand"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// binRegion is a region of two f32 scalars applying op (with attrs).
func binRegion(op string, out hlo.DType, attrs ...hlo.NamedAttr) *hlo.Region {
	st := hlo.NewTensorType(hlo.F32)
	blk := &hlo.Block{Args: []*hlo.Value{{Type: st}, {Type: st, Index: 1}}}
	o := hlo.NewOp(op, blk.Args, []hlo.Type{hlo.NewTensorType(out)}, attrs...)
	blk.Ops = []*hlo.Op{o, hlo.NewOp("stablehlo.return", o.Results, nil)}
	return &hlo.Region{Blocks: []*hlo.Block{blk}}
}

// poolSelRegion is the select region of lazy's max pool gradient (PyTorch's
// rule): not(or(compare(GT, cand, cur), compare(NE, cand, cand))).
func poolSelRegion() *hlo.Region {
	st, bt := hlo.NewTensorType(hlo.F32), hlo.NewTensorType(hlo.Bool)
	blk := &hlo.Block{Args: []*hlo.Value{{Type: st}, {Type: st, Index: 1}}}
	cur, cand := blk.Args[0], blk.Args[1]
	gt := hlo.NewOp("stablehlo.compare", []*hlo.Value{cand, cur}, []hlo.Type{bt}, dirAttr("GT")...)
	ne := hlo.NewOp("stablehlo.compare", []*hlo.Value{cand, cand}, []hlo.Type{bt}, dirAttr("NE")...)
	or := hlo.NewOp("stablehlo.or", []*hlo.Value{gt.Results[0], ne.Results[0]}, []hlo.Type{bt})
	not := hlo.NewOp("stablehlo.not", or.Results, []hlo.Type{bt})
	blk.Ops = []*hlo.Op{gt, ne, or, not, hlo.NewOp("stablehlo.return", not.Results, nil)}
	return &hlo.Region{Blocks: []*hlo.Block{blk}}
}

// Random programs of a max pool's gradient followed by a ReLU's
// (select_and_scatter of 2x2 windows with a GE select region or
// poolSelRegion, then select(a > 0, gradient, c) or
// its mirror select(a <= 0, c, gradient)),
// sometimes with the gradient or the comparison read elsewhere, run fused
// and unfused must give the same bits (NaNs, infinities and signed zeros
// among the values): the compound step masks the gradient as the
// separate compare and select do.
func poolGenProgram(r *rand.Rand) (*hlo.Module, []*hlo.Literal, bool) {
	g := &dotGen{r: r, b: newFunc("main"), dt: hlo.F32}
	n, c, oh, ow := int64(1+r.Intn(3)), int64(1+r.Intn(4)), int64(1+r.Intn(6)), int64(1+r.Intn(20))
	xt := hlo.NewTensorType(hlo.F32, n, c, 2*oh, 2*ow)
	x := g.arg(hlo.F32, n, c, 2*oh, 2*ow)
	src := g.arg(hlo.F32, n, c, oh, ow)
	a := g.arg(hlo.F32, n, c, 2*oh, 2*ow)
	init := g.b.constant(hlo.ScalarLiteral(hlo.F32, 0))
	sas := hlo.NewOp("stablehlo.select_and_scatter", []*hlo.Value{x, src, init}, []hlo.Type{xt},
		hlo.NamedAttr{Name: "window_dimensions", Value: ints64(1, 1, 2, 2)},
		hlo.NamedAttr{Name: "window_strides", Value: ints64(1, 1, 2, 2)})
	sel := binRegion("stablehlo.compare", hlo.Bool, dirAttr("GE")...)
	if r.Intn(2) == 0 {
		sel = poolSelRegion()
	}
	sas.Regions = []*hlo.Region{sel, binRegion("stablehlo.add", hlo.F32)}
	g.b.fn.Body.Blocks[0].Ops = append(g.b.fn.Body.Blocks[0].Ops, sas)
	v := sas.Results[0]
	fusible := true
	if r.Intn(5) == 0 { // the gradient read elsewhere: no compound
		g.rets = append(g.rets, v)
		fusible = false
	}
	// Splatted constants are broadcast scalar constants or splat constants.
	splat := func(v float64) *hlo.Value {
		if r.Intn(2) == 0 {
			return g.b.splatConstant(hlo.ScalarLiteral(hlo.F32, v), n, c, 2*oh, 2*ow)
		}
		return g.b.splat(g.b.constant(hlo.ScalarLiteral(hlo.F32, v)), n, c, 2*oh, 2*ow)
	}
	zero := splat(0)
	pt := hlo.NewTensorType(hlo.Bool, n, c, 2*oh, 2*ow)
	mirror := r.Intn(2) == 0
	dir := map[bool]string{false: "GT", true: "LE"}[mirror]
	pred := g.b.op("stablehlo.compare", pt, []*hlo.Value{a, zero}, dirAttr(dir)...)
	if r.Intn(4) == 0 { // the comparison read elsewhere: it stays a step
		g.rets = append(g.rets, pred)
	}
	fill := []float64{0, 0, -1.5}[r.Intn(3)]
	fz := splat(fill)
	if mirror {
		g.rets = append(g.rets, g.b.op("stablehlo.select", xt, []*hlo.Value{pred, fz, v}))
	} else {
		g.rets = append(g.rets, g.b.op("stablehlo.select", xt, []*hlo.Value{pred, v, fz}))
	}
	return module(g.b.ret(g.rets...)), g.args, fusible
}

func TestPoolCompoundsMatchUnfused(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	iters := 200
	if testing.Short() {
		iters = 50
	}
	compounds, expected := 0, 0
	for it := 0; it < iters; it++ {
		m, args, fusible := poolGenProgram(r)
		if _, made := checkCompounds(t, it, m, args, fusible); made {
			compounds++
		}
		if fusible {
			expected++
		}
	}
	t.Logf("%d compounds, %d programs could fuse, of %d", compounds, expected, iters)
	if compounds < expected*9/10 {
		t.Fatalf("only %d of %d fusible programs made a compound step", compounds, expected)
	}
}
