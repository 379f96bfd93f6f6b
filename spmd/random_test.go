package spmd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
)

// A random lazy program, built twice from one seed: on a plain device
// and on the SPMD device with random shardings on its inputs and random
// annotations on intermediates. Both must compute the same values, exactly
// where the program only adds, multiplies and moves multiples of 1/8 (so
// any summation order is exact) and within 1e-5 (relative) after
// transcendental ops.

type genValue struct {
	t     *lazy.Tensor
	exact bool // every value is a small multiple of a power of two
}

type progGen struct {
	rng    *rand.Rand
	dev    *lazy.Device
	mesh   *Mesh
	spmd   bool
	vals   []genValue
	inputs int
	log    []string
	marks  int
}

var meshShapes = [][]int{{4}, {2, 2}, {1, 4}, {4, 1}, {2, 1, 2}}

func newGen(seed uint64, dev *lazy.Device, spmdRun bool) *progGen {
	g := &progGen{rng: rand.New(rand.NewPCG(seed, 99)), dev: dev, spmd: spmdRun}
	shape := meshShapes[g.rng.IntN(len(meshShapes))]
	perm := g.rng.Perm(4)
	if g.rng.IntN(2) == 0 {
		perm = ids(4)
	}
	g.mesh = MustMesh(perm, shape)
	return g
}

func (g *progGen) dim() int64 { return []int64{1, 2, 3, 4, 5, 6, 8}[g.rng.IntN(7)] }

func (g *progGen) shape() []int64 {
	dims := make([]int64, 1+g.rng.IntN(3))
	for i := range dims {
		dims[i] = g.dim()
	}
	return dims
}

// spec draws a random partition spec for a tensor of rank r on g.mesh.
func (g *progGen) spec(r int) []any {
	spec := make([]any, r)
	axes := g.rng.Perm(len(g.mesh.shape))
	for _, a := range axes {
		if g.rng.IntN(3) == 0 || r == 0 {
			continue // unused: replicated along it
		}
		d := g.rng.IntN(r)
		switch e := spec[d].(type) {
		case nil:
			spec[d] = a
		case int:
			spec[d] = []int{e, a}
		case []int:
			spec[d] = append(e, a)
		}
	}
	return spec
}

// input makes a new input of the given dims (values k/8, k in [-8, 8]);
// on the SPMD run it is laid out by a random spec.
func (g *progGen) input(dims []int64) genValue {
	l := hlo.NewLiteral(hlo.F32, dims...)
	for i := range l.F32() {
		l.F32()[i] = float32(g.rng.IntN(17)-8) / 8
	}
	spec := g.spec(len(dims))
	g.inputs++
	var t *lazy.Tensor
	if g.spmd {
		var err error
		if t, err = FromLiteral(g.dev, l, g.mesh, spec...); err != nil {
			panic(err)
		}
	} else {
		t = lazy.FromLiteralOn(g.dev, l)
	}
	g.log = append(g.log, fmt.Sprintf("in%d %v %v", g.inputs, dims, spec))
	return genValue{t, true}
}

// indices makes an i32 input of dims with values in [0, n), laid out by a
// random spec on the SPMD run.
func (g *progGen) indices(dims []int64, n int64) genValue {
	l := hlo.NewLiteral(hlo.I32, dims...)
	for i := range l.I32() {
		l.I32()[i] = int32(g.rng.Int64N(n))
	}
	spec := g.spec(len(dims))
	var t *lazy.Tensor
	if g.spmd {
		var err error
		if t, err = FromLiteral(g.dev, l, g.mesh, spec...); err != nil {
			panic(err)
		}
	} else {
		t = lazy.FromLiteralOn(g.dev, l)
	}
	g.log = append(g.log, fmt.Sprintf("indices %v < %d %v", dims, n, spec))
	return genValue{t, true}
}

func (g *progGen) pick() genValue { return g.vals[g.rng.IntN(len(g.vals))] }

// pickWith returns a value of the given dims, or a new input.
func (g *progGen) pickWith(dims []int64) genValue {
	var c []genValue
	for _, v := range g.vals {
		if slices.Equal(v.t.Dims(), dims) {
			c = append(c, v)
		}
	}
	if len(c) == 0 || g.rng.IntN(4) == 0 {
		v := g.input(dims)
		g.vals = append(g.vals, v)
		return v
	}
	return c[g.rng.IntN(len(c))]
}

// step applies one random op and keeps its result.
func (g *progGen) step() {
	x := g.pick()
	d := x.t.Dims()
	r := len(d)
	var out genValue
	name := ""
	switch k := g.rng.IntN(20); {
	case k == 0:
		ops := []func(*lazy.Tensor) *lazy.Tensor{(*lazy.Tensor).Tanh, (*lazy.Tensor).Sigmoid, (*lazy.Tensor).Sin, (*lazy.Tensor).Exp}
		i := g.rng.IntN(len(ops))
		out, name = genValue{ops[i](x.t), false}, "transcendental"
	case k == 1:
		ops := []func(*lazy.Tensor) *lazy.Tensor{(*lazy.Tensor).Neg, (*lazy.Tensor).Abs, (*lazy.Tensor).ReLU}
		out, name = genValue{ops[g.rng.IntN(len(ops))](x.t), x.exact}, "unary"
	case k <= 3:
		y := g.pickWith(d)
		ops := []func(a, b *lazy.Tensor) *lazy.Tensor{(*lazy.Tensor).Add, (*lazy.Tensor).Sub, (*lazy.Tensor).Mul, (*lazy.Tensor).Max, (*lazy.Tensor).Min}
		out, name = genValue{ops[g.rng.IntN(len(ops))](x.t, y.t), x.exact && y.exact}, "binary"
	case k == 4 && r >= 1:
		// broadcast a lower-rank operand: y of d's suffix
		y := g.pickWith(d[g.rng.IntN(r):])
		out, name = genValue{x.t.Add(y.t), x.exact && y.exact}, "broadcast add"
	case k == 5 && r >= 1:
		axes := g.axes(r)
		ops := []func(*lazy.Tensor, ...int) *lazy.Tensor{(*lazy.Tensor).Sum, (*lazy.Tensor).ReduceMax, (*lazy.Tensor).ReduceMin, (*lazy.Tensor).SumKeepDims}
		out, name = genValue{ops[g.rng.IntN(len(ops))](x.t, axes...), x.exact}, fmt.Sprintf("reduce %v", axes)
	case k == 6 && r >= 2:
		out, name = genValue{x.t.Permute(g.rng.Perm(r)...), x.exact}, "permute"
	case k == 7 && r >= 1:
		nd := g.reshape(d)
		out, name = genValue{x.t.Reshape(nd...), x.exact}, fmt.Sprintf("reshape %v->%v", d, nd)
	case k == 8 && r == 2:
		w := g.pickWith([]int64{d[1], g.dim()})
		out, name = genValue{x.t.MatMul(w.t), x.exact && w.exact}, "matmul"
	case k == 9 && r == 3:
		w := g.pickWith([]int64{d[0], d[2], g.dim()})
		out, name = genValue{x.t.MatMul(w.t), x.exact && w.exact}, "batched matmul"
	case k == 10 && r >= 1:
		a := g.rng.IntN(r)
		if d[a] < 2 {
			return
		}
		start := g.rng.Int64N(d[a] - 1)
		out, name = genValue{x.t.Narrow(a, start, 1+g.rng.Int64N(d[a]-start-1)), x.exact}, "narrow"
	case k == 11 && r >= 1:
		a := g.rng.IntN(r)
		y := g.pickWith(d)
		out, name = genValue{lazy.Concat(a, x.t, y.t), x.exact && y.exact}, "concat"
	case k == 12 && r >= 1:
		a := g.rng.IntN(r)
		if x.exact {
			out, name = genValue{x.t.ArgMax(a).Cast(lazy.F32), true}, "argmax"
		} else {
			out, name = genValue{x.t.Softmax(a), false}, "softmax"
		}
	case k == 13 && r >= 1:
		out, name = genValue{x.t.Cumsum(g.rng.IntN(r)), x.exact}, "cumsum"
	case k == 14 && r >= 1:
		y := g.pickWith(d)
		if !x.exact || !y.exact {
			return
		}
		out, name = genValue{lazy.Where(x.t.Gt(y.t), x.t, y.t.MulScalar(0.5)), true}, "where"
	case k == 15 && r >= 1:
		out, name = genValue{x.t.Unsqueeze(g.rng.IntN(r + 1)), x.exact}, "unsqueeze"
		if g.rng.IntN(2) == 0 {
			nd := slices.Clone(out.t.Dims())
			for i := range nd {
				if nd[i] == 1 {
					nd[i] = g.dim()
				}
			}
			out, name = genValue{out.t.Expand(nd...), x.exact}, "unsqueeze+expand"
		}
	case k == 16 && r >= 1:
		a := g.rng.IntN(r)
		out, name = genValue{x.t.Flip(a).PadWith(padN(r, a, 1), padN(r, a, 2), padN(r, a, 0), 0.5), x.exact}, "flip+pad"
	case k == 17 && r >= 1:
		a := g.rng.IntN(r)
		out, name = genValue{x.t.TakeAlong(a, g.indices(d, d[a]).t), x.exact}, "take along"
	case k == 18 && r >= 1 && x.exact:
		v, _ := x.t.Sort(g.rng.IntN(r), g.rng.IntN(2) == 0)
		out, name = genValue{v, true}, "sort"
	case k == 19 && r >= 1:
		a := g.rng.IntN(r)
		src := g.pickWith(d)
		out, name = genValue{x.t.ScatterAdd(a, g.indices(d, d[a]).t, src.t), x.exact && src.exact}, "scatter add"
	default:
		return
	}
	if out.t.Size() > 4096 || out.t.Rank() > 4 {
		return
	}
	if g.spmd && g.rng.IntN(5) == 0 {
		spec := g.spec(out.t.Rank())
		if out.t.ShardingSpec() == nil { // ops may return their operand
			MustMark(out.t, g.mesh, spec...)
			g.marks++
			name += fmt.Sprintf(" marked %v", spec)
		}
	} else if !g.spmd && g.rng.IntN(5) == 0 {
		g.spec(out.t.Rank()) // keep both runs' random streams aligned
	}
	g.log = append(g.log, fmt.Sprintf("%s: %s -> %s", name, x.t.Shape(), out.t.Shape()))
	g.vals = append(g.vals, out)
}

func padN(r, a int, v int64) []int64 {
	p := make([]int64, r)
	p[a] = v
	return p
}

func (g *progGen) axes(r int) []int {
	var out []int
	for a := 0; a < r; a++ {
		if g.rng.IntN(2) == 0 {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		out = []int{g.rng.IntN(r)}
	}
	return out
}

// reshape draws a new shape of the same size: merge two adjacent dims,
// split one, or flatten.
func (g *progGen) reshape(d []int64) []int64 {
	switch g.rng.IntN(3) {
	case 0:
		if len(d) >= 2 {
			i := g.rng.IntN(len(d) - 1)
			return slices.Concat(d[:i], []int64{d[i] * d[i+1]}, d[i+2:])
		}
	case 1:
		for _, i := range g.rng.Perm(len(d)) {
			for _, f := range []int64{2, 3, 4} {
				if d[i]%f == 0 && d[i] > f {
					return slices.Concat(d[:i], []int64{f, d[i] / f}, d[i+1:])
				}
			}
		}
	}
	n := int64(1)
	for _, x := range d {
		n *= x
	}
	return []int64{n}
}

// build generates a program of n ops and returns its values.
func (g *progGen) build(n int) []genValue {
	for i := 0; i < 1+g.rng.IntN(2); i++ {
		g.vals = append(g.vals, g.input(g.shape()))
	}
	for i := 0; i < n; i++ {
		g.step()
	}
	return g.vals
}

func randomPrograms() int {
	if s := os.Getenv("XLAJIT_SPMD_PROGRAMS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	if testing.Short() || raceEnabled {
		return 40
	}
	return 150
}

func TestRandomProgramsMatchUnsharded(t *testing.T) {
	spmdDev := spmdDevice(4)
	plain := lazy.DevicesOf(spmdClient(spmdDev))[0]
	before := reshardCounters()
	n := randomPrograms()
	marks := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		a := newGen(seed, plain, false)
		b := newGen(seed, spmdDev, true)
		va, vb := a.build(10), b.build(10)
		if len(va) != len(vb) {
			t.Fatalf("seed %d: generators diverged (%d vs %d values)\n%s\n---\n%s", seed, len(va), len(vb), strings.Join(a.log, "\n"), strings.Join(b.log, "\n"))
		}
		marks += b.marks
		ta, tb := make([]*lazy.Tensor, len(va)), make([]*lazy.Tensor, len(vb))
		for i := range va {
			ta[i], tb[i] = va[i].t, vb[i].t
		}
		if err := lazy.Sync(ta...); err != nil {
			t.Fatalf("seed %d: unsharded: %v\n%s", seed, err, strings.Join(a.log, "\n"))
		}
		if err := lazy.Sync(tb...); err != nil {
			t.Fatalf("seed %d: sharded: %v\n%s", seed, err, strings.Join(b.log, "\n"))
		}
		for i := range va {
			want, got := ta[i].MustLiteral(), tb[i].MustLiteral()
			tol := 1e-5
			if va[i].exact {
				tol = 0
			}
			if k, ok := sameValues(got, want, tol); !ok {
				t.Fatalf("seed %d: value %d (%s, sharding %s) differs at element %d: got %v, want %v\nprogram:\n%s",
					seed, i, tb[i].Shape(), tb[i].Sharding(), k, got.Float(k), want.Float(k), strings.Join(b.log, "\n"))
			}
		}
	}
	t.Logf("%d programs, %d intermediate annotations; reshards by op: %v", n, marks, diffCounters(before, reshardCounters()))
}

func sameValues(got, want *hlo.Literal, tol float64) (int, bool) {
	if !slices.Equal(got.Dims, want.Dims) {
		return 0, false
	}
	for i := 0; i < want.NumElements(); i++ {
		g, w := got.Float(i), want.Float(i)
		if g == w || (math.IsNaN(g) && math.IsNaN(w)) {
			continue
		}
		if math.Abs(g-w) > tol*(1+math.Abs(w)) {
			return i, false
		}
	}
	return 0, true
}

func spmdClient(d *lazy.Device) pjrt.Client { return d.Client() }

func reshardCounters() map[string]int64 {
	out := map[string]int64{}
	for name, v := range lazy.CounterSnapshot() {
		if strings.HasPrefix(name, lazy.MetricSPMDReshardPrefix) {
			out[strings.TrimPrefix(name, lazy.MetricSPMDReshardPrefix)] = v
		}
	}
	return out
}

func diffCounters(a, b map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range b {
		if d := v - a[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}
