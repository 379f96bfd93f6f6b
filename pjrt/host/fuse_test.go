package host

import (
	"fmt"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Random elementwise programs run fused and unfused must give the same
// bits: the fused plan runs the same TileFns on tiles instead of whole
// tensors, with splats instead of broadcast_in_dim, and in place.

var (
	chainFloatTypes = []hlo.DType{hlo.F32, hlo.F64, hlo.F16, hlo.BF16, hlo.F8E4M3FN}
	chainIntTypes   = []hlo.DType{hlo.I32, hlo.I8, hlo.U8, hlo.I4, hlo.U64}
	chainTypes      = append(append(append([]hlo.DType{}, chainFloatTypes...), chainIntTypes...), hlo.Bool, hlo.C64)

	floatUnary  = []string{"exponential", "log", "tanh", "logistic", "sine", "sqrt", "negate", "abs", "floor", "sign", "round_nearest_even", "cbrt", "exponential_minus_one", "rsqrt"}
	floatBinary = []string{"add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder", "atan2"}
	intUnary    = []string{"negate", "abs", "not", "popcnt", "count_leading_zeros", "sign"}
	intBinary   = []string{"add", "subtract", "multiply", "divide", "remainder", "and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical", "maximum", "minimum", "power"}
	boolBinary  = []string{"and", "or", "xor", "add", "multiply", "maximum", "minimum"}
	cplxUnary   = []string{"exponential", "negate", "sqrt", "tanh", "log"}
	cplxBinary  = []string{"add", "subtract", "multiply", "divide"}
	directions  = []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
)

type chainGen struct {
	r     *rand.Rand
	b     *fb
	sizes []int64                              // the program's two vector lengths
	n     int64                                // the current op's length
	byN   map[int64]map[hlo.DType][]*hlo.Value // values by length and type
	vals  map[hlo.DType][]*hlo.Value           // byN[n]
	all   []*hlo.Value
	scal  map[hlo.DType]*hlo.Value // rank-0 arguments by type
	// consts are the constant values splatted so far, by type.
	consts map[hlo.DType][]*hlo.Literal
}

func (g *chainGen) pick(dt hlo.DType) *hlo.Value {
	vs := g.vals[dt]
	if len(vs) == 0 || g.r.Intn(5) == 0 {
		// A splat of the type's scalar argument, or of a constant: one of
		// two values per type, each time its own constant op, so equal
		// constants share a compiled tile.
		if g.r.Intn(2) == 0 {
			return g.add(g.b.splat(g.scal[dt], g.n))
		}
		if len(g.consts[dt]) < 2 {
			g.consts[dt] = append(g.consts[dt], randLiteral(g.r, dt, 1, nil))
		}
		c := g.consts[dt][g.r.Intn(len(g.consts[dt]))]
		return g.add(g.b.splat(g.b.constant(c), g.n))
	}
	// Prefer recent values: chains, with some fan-out.
	k := len(vs) - 1 - int(math.Abs(g.r.NormFloat64()*2))
	return vs[max(k, 0)]
}

func (g *chainGen) add(v *hlo.Value) *hlo.Value {
	dt := v.TensorType().DType
	m := g.byN[v.TensorType().Dims[0]]
	m[dt] = append(m[dt], v)
	g.all = append(g.all, v)
	return v
}

func (g *chainGen) anyOf(list []string) string { return list[g.r.Intn(len(list))] }

func (g *chainGen) randType() hlo.DType { return chainTypes[g.r.Intn(len(chainTypes))] }

// step adds one random op to the program.
func (g *chainGen) step() {
	// Ops alternate between the two lengths at random, so fusions of
	// different shapes interleave.
	g.n = g.sizes[g.r.Intn(len(g.sizes))]
	g.vals = g.byN[g.n]
	b, n := g.b, g.n
	dt := g.randType()
	t := hlo.NewTensorType(dt, n)
	switch k := g.r.Intn(10); {
	case k == 0: // compare
		a, c := g.pick(dt), g.pick(dt)
		if dt.IsComplex() {
			dir := []string{"EQ", "NE"}[g.r.Intn(2)]
			g.add(b.op("stablehlo.compare", hlo.NewTensorType(hlo.Bool, n), []*hlo.Value{a, c}, dirAttr(dir)...))
			return
		}
		g.add(b.op("stablehlo.compare", hlo.NewTensorType(hlo.Bool, n), []*hlo.Value{a, c}, dirAttr(g.anyOf(directions))...))
	case k == 1: // select, sometimes with a scalar predicate
		p := g.pick(hlo.Bool)
		if g.r.Intn(3) == 0 {
			p = g.scal[hlo.Bool]
		}
		g.add(b.op("stablehlo.select", t, []*hlo.Value{p, g.pick(dt), g.pick(dt)}))
	case k == 2: // clamp, sometimes with scalar bounds
		if dt.IsComplex() {
			dt, t = hlo.F32, hlo.NewTensorType(hlo.F32, n)
		}
		lo, hi := g.pick(dt), g.pick(dt)
		if g.r.Intn(2) == 0 {
			lo, hi = g.scal[dt], g.scal[dt]
		}
		g.add(b.op("stablehlo.clamp", t, []*hlo.Value{lo, g.pick(dt), hi}))
	case k == 3: // convert from another type
		from := g.randType()
		g.add(b.op("stablehlo.convert", t, []*hlo.Value{g.pick(from)}))
	case k == 4: // a non-fusible op in the middle of a chain
		g.add(b.op("stablehlo.reverse", t, []*hlo.Value{g.pick(dt)}, hlo.NamedAttr{Name: "dimensions", Value: &hlo.DenseArrayAttr{DType: hlo.I64, Ints: []int64{0}}}))
	default:
		var un, bin []string
		switch {
		case dt.IsFloat():
			un, bin = floatUnary, floatBinary
		case dt.IsInt():
			un, bin = intUnary, intBinary
		case dt.IsBool():
			un, bin = []string{"not"}, boolBinary
		default:
			un, bin = cplxUnary, cplxBinary
		}
		// Only ops the spec allows on dt (the executor verifies modules).
		if g.r.Intn(2) == 0 {
			g.add(b.op("stablehlo."+g.anyOf(allowedOn(un, dt, 1)), t, []*hlo.Value{g.pick(dt)}))
		} else {
			g.add(b.op("stablehlo."+g.anyOf(allowedOn(bin, dt, 2)), t, []*hlo.Value{g.pick(dt), g.pick(dt)}))
		}
	}
}

// allowedOn keeps the ops of names whose type rule accepts arity operands
// of element type dt.
func allowedOn(names []string, dt hlo.DType, arity int) []string {
	var ok []string
	for _, n := range names {
		ins := make([]hlo.Type, arity)
		for i := range ins {
			ins[i] = hlo.NewTensorType(dt, 4)
		}
		if _, err := hlo.InferResultTypes("stablehlo."+n, ins, nil, nil); err == nil {
			ok = append(ok, n)
		}
	}
	return ok
}

func dirAttr(d string) []hlo.NamedAttr {
	return []hlo.NamedAttr{{Name: "comparison_direction", Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: d}}}
}

// randomProgram builds a random elementwise program over [n]- and
// [n/3+1]-shaped arguments of every chain type and rank-0 arguments of
// every type, and returns it with matching random arguments.
func randomProgram(r *rand.Rand, n int64, nops int) (*hlo.Module, []*hlo.Literal) {
	var types []hlo.Type
	args := randomArgs(r, n)
	for _, a := range args {
		types = append(types, a.Type())
	}
	b := newFunc("main", types...)
	sizes := progSizes(n)
	g := &chainGen{r: r, b: b, sizes: sizes, byN: map[int64]map[hlo.DType][]*hlo.Value{}, scal: map[hlo.DType]*hlo.Value{}, consts: map[hlo.DType][]*hlo.Literal{}}
	for _, m := range sizes {
		g.byN[m] = map[hlo.DType][]*hlo.Value{}
	}
	k := 0
	for range sizes {
		for range chainTypes {
			g.add(b.arg(k))
			k++
		}
	}
	for _, dt := range chainTypes {
		g.scal[dt] = b.arg(k)
		k++
	}
	nargs := len(g.all)
	for i := 0; i < nops; i++ {
		g.step()
	}
	// Return the last value and a few random intermediates (which must be
	// materialized), sometimes one twice.
	outs := []*hlo.Value{g.all[len(g.all)-1]}
	for i := 0; i < 3 && len(g.all) > nargs; i++ {
		outs = append(outs, g.all[nargs+r.Intn(len(g.all)-nargs)])
	}
	return module(b.ret(outs...)), args
}

// progSizes are the vector lengths of a random program.
func progSizes(n int64) []int64 {
	if m := n/3 + 1; m != n {
		return []int64{n, m}
	}
	return []int64{n}
}

// randomArgs makes arguments for randomProgram.
func randomArgs(r *rand.Rand, n int64) []*hlo.Literal {
	var args []*hlo.Literal
	for _, m := range progSizes(n) {
		for _, dt := range chainTypes {
			args = append(args, randLiteral(r, dt, int(m), []int64{m}))
		}
	}
	for _, dt := range chainTypes {
		args = append(args, randLiteral(r, dt, 1, nil))
	}
	return args
}

func randLiteral(r *rand.Rand, dt hlo.DType, n int, dims []int64) *hlo.Literal {
	l := hlo.NewLiteral(dt, dims...)
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, math.Inf(1), math.Inf(-1), math.NaN(), 3}
	for i := 0; i < n; i++ {
		switch {
		case dt.IsBool():
			l.Data[i] = byte(r.Intn(2))
		case dt.IsInt():
			v := int64(r.Intn(21) - 10)
			if r.Intn(4) == 0 {
				v = int64(r.Uint64())
			}
			l.SetInt(i, v)
		case dt.IsComplex():
			l.SetComplex(i, complex(r.NormFloat64()*2, r.NormFloat64()*2))
		default:
			v := r.NormFloat64() * 3
			if r.Intn(8) == 0 {
				v = special[r.Intn(len(special))]
			}
			l.SetFloat(i, v)
		}
	}
	return l
}

func TestFusedMatchesUnfused(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	sizes := []int64{1, 3, 64, 1000, 5000, 70000}
	iters := 60
	if testing.Short() {
		iters = 15
	}
	for it := 0; it < iters; it++ {
		n := sizes[it%len(sizes)]
		m, args := randomProgram(r, n, 4+r.Intn(20))
		fused, plain := compileBoth(t, it, m)
		want := run(t, plain, args...)
		for rep := 0; rep < 2; rep++ { // the second run reuses pooled storage
			got := run(t, fused, args...)
			for i := range want {
				if !got[i].Equal(want[i]) {
					t.Fatalf("program %d (n=%d), result %d differs fused vs unfused:\n%s\ngot  %v\nwant %v", it, n, i, describeSteps(fused), head(got[i]), head(want[i]))
				}
			}
		}
	}
}

// compileBoth compiles program it fused and unfused.
func compileBoth(t *testing.T, it int, m *hlo.Module) (fused, plain *Program) {
	t.Helper()
	fused, err := compile(m, true)
	if err != nil {
		t.Fatalf("program %d: %v\n%s", it, err, m)
	}
	if plain, err = compile(m, false); err != nil {
		t.Fatalf("program %d: %v", it, err)
	}
	return fused, plain
}

// checkCompounds compiles m (program it of a generator) fused and
// unfused, fails if the fused program made a compound step though m is
// not fusible or if the two differ in any result bit on args, and returns
// the fused program and whether it made a compound step.
func checkCompounds(t *testing.T, it int, m *hlo.Module, args []*hlo.Literal, fusible bool) (fused *Program, made bool) {
	t.Helper()
	fused, plain := compileBoth(t, it, m)
	for _, s := range fused.entry.body.steps {
		made = made || s.compound != nil
	}
	if made && !fusible {
		t.Fatalf("program %d made a compound step it must not:\n%s\nsteps: %s", it, m, describeSteps(fused))
	}
	want := run(t, plain, args...)
	got := run(t, fused, args...)
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("program %d, result %d differs fused vs unfused:\n%s\nsteps: %s\ngot  %v\nwant %v", it, i, m, describeSteps(fused), head(got[i]), head(want[i]))
		}
	}
	return fused, made
}

func head(l *hlo.Literal) string {
	n := min(l.NumElements(), 8)
	s := ""
	for i := 0; i < n; i++ {
		s += l.ElemString(i) + " "
	}
	return s
}

func describeSteps(p *Program) string {
	s := ""
	for _, st := range p.entry.body.steps {
		if st.fused != nil {
			s += fmt.Sprintf("fused(%d members, %d in, %d out, inplace %v) ", len(st.fused.members), len(st.fused.inVals), len(st.fused.outVals), st.fused.inPlace)
		} else {
			s += st.op.ShortName() + " "
		}
	}
	return s
}

// TestConcurrentExecutions runs one fused program from many goroutines at
// once with different inputs: pooled storage, frames and fusion scratch
// must not leak between executions.
func TestConcurrentExecutions(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	m, _ := randomProgram(r, 3000, 25)
	fused := mustCompile(t, m)
	plain, err := compile(m, false)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 8
	inputs := make([][]*hlo.Literal, workers)
	wants := make([][]*hlo.Literal, workers)
	for w := range inputs {
		inputs[w] = randomArgs(rand.New(rand.NewSource(int64(100+w))), 3000)
		wants[w] = run(t, plain, inputs[w]...)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			in := make([]kernel.Value, len(inputs[w]))
			for i, a := range inputs[w] {
				in[i] = a
			}
			for rep := 0; rep < 20; rep++ {
				res, err := fused.Run(nil, in)
				if err != nil {
					errs <- err
					return
				}
				for i, v := range res {
					if !v.(*hlo.Literal).Equal(wants[w][i]) {
						errs <- fmt.Errorf("worker %d rep %d: result %d differs", w, rep, i)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
