package host

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// Random programs around dot_general (transposed operands, a transposed
// result, elementwise chains on the result with biases, residuals and
// splats, values read again outside) run fused and unfused must give the
// same bits: the compound step the linalg family makes of them computes
// every element as the separate ops do.

type dotGen struct {
	r    *rand.Rand
	b    *fb
	args []*hlo.Literal
	dt   hlo.DType
	rets []*hlo.Value
}

// arg adds an entry argument of type dt and dims.
func (g *dotGen) arg(dt hlo.DType, dims ...int64) *hlo.Value {
	t := hlo.NewTensorType(dt, dims...)
	v := &hlo.Value{Type: t, Index: len(g.b.fn.Args)}
	g.b.fn.Args = append(g.b.fn.Args, v)
	g.b.fn.Body.Blocks[0].Args = g.b.fn.Args
	g.args = append(g.args, randLiteral(g.r, dt, int(hlo.NumElements(dims)), dims))
	return v
}

func ints64(v ...int) *hlo.DenseArrayAttr {
	a := &hlo.DenseArrayAttr{DType: hlo.I64}
	for _, x := range v {
		a.Ints = append(a.Ints, int64(x))
	}
	return a
}

// transposed returns an argument that, transposed by a random permutation,
// has dims; the transpose is sometimes read elsewhere too.
func (g *dotGen) transposed(dims []int64) *hlo.Value {
	perm := g.r.Perm(len(dims))
	src := make([]int64, len(dims))
	for i, p := range perm {
		src[p] = dims[i]
	}
	x := g.arg(g.dt, src...)
	t := g.b.op("stablehlo.transpose", hlo.NewTensorType(g.dt, dims...), []*hlo.Value{x}, hlo.NamedAttr{Name: "permutation", Value: ints64(perm...)})
	if g.r.Intn(4) == 0 {
		g.rets = append(g.rets, t)
	}
	return t
}

func (g *dotGen) operand(dims []int64) *hlo.Value {
	if g.r.Intn(2) == 0 {
		return g.transposed(dims)
	}
	return g.arg(g.dt, dims...)
}

func dotGenProgram(r *rand.Rand) (*hlo.Module, []*hlo.Literal) {
	g := &dotGen{r: r, b: newFunc("main"), dt: []hlo.DType{hlo.F32, hlo.F32, hlo.F64, hlo.BF16}[r.Intn(4)]}
	size := func() int64 { return []int64{1, 2, 3, 5, 13, 40}[r.Intn(6)] }
	nb, nl, nr, nc := r.Intn(2), 1+r.Intn(2), 1+r.Intn(2), 1+r.Intn(2)
	var bd, ld, rd, cd []int64
	for range nb {
		bd = append(bd, size())
	}
	for range nl {
		ld = append(ld, size())
	}
	for range nr {
		rd = append(rd, size())
	}
	for range nc {
		cd = append(cd, size())
	}
	if r.Intn(3) == 0 { // a larger product on the packed GEMM
		for _, ds := range [][]int64{bd, ld, rd, cd} {
			for i := range ds {
				ds[i] = min(ds[i], 2)
			}
		}
		ld[0], rd[0], cd[0] = 64+int64(r.Intn(100)), 32+int64(r.Intn(100)), 100+int64(r.Intn(300))
	}
	// lhs [batch, lhs free, contracting], rhs [batch, contracting, rhs free].
	lhs := g.operand(slices.Concat(bd, ld, cd))
	rhs := g.operand(slices.Concat(bd, cd, rd))
	seq := func(from, n int) []int64 {
		var s []int64
		for i := range n {
			s = append(s, int64(from+i))
		}
		return s
	}
	dd := &hlo.DotDimsAttr{
		LhsBatchingDims: seq(0, nb), RhsBatchingDims: seq(0, nb),
		LhsContractingDims: seq(nb+nl, nc), RhsContractingDims: seq(nb, nc),
	}
	out := slices.Concat(bd, ld, rd)
	v := g.b.op("stablehlo.dot_general", hlo.NewTensorType(g.dt, out...), []*hlo.Value{lhs, rhs}, hlo.NamedAttr{Name: "dot_dimension_numbers", Value: dd})
	if r.Intn(3) == 0 {
		// Transpose the result: swap the free groups, or any permutation.
		perm := slices.Concat(seq(0, nb), seq(nb+nl, nr), seq(nb, nl))
		if r.Intn(3) == 0 {
			p := r.Perm(len(out))
			perm = perm[:0]
			for _, x := range p {
				perm = append(perm, int64(x))
			}
		}
		td := make([]int64, len(out))
		pi := make([]int, len(perm))
		for i, p := range perm {
			td[i] = out[p]
			pi[i] = int(p)
		}
		v = g.b.op("stablehlo.transpose", hlo.NewTensorType(g.dt, td...), []*hlo.Value{v}, hlo.NamedAttr{Name: "permutation", Value: ints64(pi...)})
		out = td
	}
	vt := hlo.NewTensorType(g.dt, out...)
	for range r.Intn(5) {
		switch r.Intn(7) {
		case 0: // bias along the last dimension
			bias := g.arg(g.dt, out[len(out)-1])
			bc := g.b.op("stablehlo.broadcast_in_dim", vt, []*hlo.Value{bias}, hlo.NamedAttr{Name: "broadcast_dimensions", Value: ints64(len(out) - 1)})
			v = g.b.op("stablehlo.add", vt, []*hlo.Value{v, bc})
		case 1: // maximum against a splatted constant (a broadcast scalar constant or a splat constant), the splat sometimes read elsewhere
			c := hlo.ScalarLiteral(g.dt, []float64{0, 0.5}[r.Intn(2)])
			z := g.b.splat(g.b.constant(c), out...)
			if r.Intn(2) == 0 {
				z = g.b.splatConstant(c, out...)
			}
			v = g.b.op("stablehlo.maximum", vt, []*hlo.Value{v, z})
			if r.Intn(2) == 0 {
				g.rets = append(g.rets, g.b.op("stablehlo.add", vt, []*hlo.Value{z, z}))
			}
		case 2: // residual
			v = g.b.op("stablehlo.add", vt, []*hlo.Value{g.arg(g.dt, out...), v})
		case 3: // scale by a scalar argument
			s := g.b.splat(g.arg(g.dt), out...)
			v = g.b.op("stablehlo.multiply", vt, []*hlo.Value{s, v})
		case 4:
			v = g.b.op([]string{"stablehlo.tanh", "stablehlo.logistic", "stablehlo.exponential", "stablehlo.negate"}[r.Intn(4)], vt, []*hlo.Value{v})
		case 5: // clamp with scalar bounds
			lo, hi := g.b.constant(hlo.ScalarLiteral(g.dt, -1)), g.b.constant(hlo.ScalarLiteral(g.dt, 2))
			v = g.b.op("stablehlo.clamp", vt, []*hlo.Value{lo, v, hi})
		case 6: // a chain value read outside too
			g.rets = append(g.rets, v)
			v = g.b.op("stablehlo.abs", vt, []*hlo.Value{v})
		}
	}
	g.rets = append(g.rets, v)
	return module(g.b.ret(g.rets...)), g.args
}

func TestDotCompoundsMatchUnfused(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	iters := 300
	if testing.Short() {
		iters = 80
	}
	compounds := 0
	for it := 0; it < iters; it++ {
		m, args := dotGenProgram(r)
		fused, plain := compileBoth(t, it, m)
		for _, s := range fused.entry.body.steps {
			if s.compound != nil {
				compounds++
				break
			}
		}
		want := run(t, plain, args...)
		for rep := 0; rep < 2; rep++ {
			got := run(t, fused, args...)
			for i := range want {
				if !sameValues(got[i], want[i]) {
					t.Fatalf("program %d, result %d differs fused vs unfused:\n%s\nsteps: %s\ngot  %v\nwant %v", it, i, m, describeSteps(fused), head(got[i]), head(want[i]))
				}
			}
		}
	}
	// The generator must exercise the compounds, not just plain steps.
	if compounds < iters/3 {
		t.Fatalf("only %d of %d programs made a compound step", compounds, iters)
	}
	t.Logf("%d of %d programs made a compound step", compounds, iters)
}

// sameValues compares bits, except that any NaN equals any NaN: a
// transposed product is computed with its operands swapped, and when both
// factors of a product are NaN the CPU returns the first one's payload.
func sameValues(a, b *hlo.Literal) bool {
	if a.Equal(b) {
		return true
	}
	if a.DType != b.DType || !a.DType.IsFloat() || a.NumElements() != b.NumElements() {
		return false
	}
	for i := range a.NumElements() {
		x, y := a.Float(i), b.Float(i)
		if !(math.IsNaN(x) && math.IsNaN(y)) && math.Float64bits(x) != math.Float64bits(y) {
			return false
		}
	}
	return true
}

// TestDotCompoundOps checks what the common patterns compile to: a linear
// layer (transposed weight, bias, ReLU) is one step, its zero written as a
// broadcast scalar constant or as a splat constant.
func TestDotCompoundOps(t *testing.T) {
	vt := hlo.NewTensorType(hlo.F32, 64, 512)
	zeros := map[string]func(b *fb) *hlo.Value{
		"broadcast":      func(b *fb) *hlo.Value { return b.splat(b.constant(hlo.ScalarLiteral(hlo.F32, 0)), 64, 512) },
		"splat constant": func(b *fb) *hlo.Value { return b.splatConstant(hlo.ScalarLiteral(hlo.F32, 0), 64, 512) },
	}
	for name, zero := range zeros {
		b := newFunc("main", hlo.NewTensorType(hlo.F32, 64, 784), hlo.NewTensorType(hlo.F32, 512, 784), hlo.NewTensorType(hlo.F32, 512))
		wt := b.op("stablehlo.transpose", hlo.NewTensorType(hlo.F32, 784, 512), []*hlo.Value{b.arg(1)}, hlo.NamedAttr{Name: "permutation", Value: ints64(1, 0)})
		y := b.op("stablehlo.dot_general", vt, []*hlo.Value{b.arg(0), wt}, hlo.NamedAttr{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}})
		bc := b.op("stablehlo.broadcast_in_dim", vt, []*hlo.Value{b.arg(2)}, hlo.NamedAttr{Name: "broadcast_dimensions", Value: ints64(1)})
		y = b.op("stablehlo.add", vt, []*hlo.Value{y, bc})
		y = b.op("stablehlo.maximum", vt, []*hlo.Value{y, zero(b)})
		p := mustCompile(t, module(b.ret(y)))
		var got []string
		for _, s := range p.entry.body.steps {
			got = append(got, s.op.ShortName())
			if s.compound != nil {
				got[len(got)-1] += fmt.Sprintf("+%d", len(s.compound.Ops)-1)
			}
		}
		// Everything is the product's: the epilogue holds the zero (a
		// scalar constant only the absorbed broadcast read is dead).
		if want := []string{"dot_general+5"}; !slices.Equal(got, want) {
			t.Errorf("%s: steps %v, want %v", name, got, want)
		}
	}
}
