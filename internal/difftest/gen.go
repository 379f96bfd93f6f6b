package difftest

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/xlajit/xlajit/lazy"
)

// gen builds one program from a seed.
type gen struct {
	r  *rand.Rand
	f  Features
	p  *Program
	st *state
	x  *gen // the signature families' generator (side)
	a  *gen // the generator of the families' program-level draws (aux)
}

// Generate returns the program of seed under features f (the same program
// for the same seed and features, every time).
func Generate(seed uint64, f Features) *Program {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), f: f, p: &Program{Seed: seed, Features: f}}
	g.inputs()
	g.optimizer()
	g.st = newState(g.p)
	n := 1 + g.r.IntN(14)
	for tries := 0; len(g.p.Body) < n && tries < 20*n && g.st.anyLive(len(g.p.Body)); tries++ {
		g.step()
	}
	g.finalStep()
	g.results()
	keepHostErrors(g.p, g.st)
	g.signature()
	g.calls()
	g.setLRs()
	g.rollBacks()
	g.forms()
	g.twins()
	g.outUpdates()
	g.concurrency()
	if f.Sharding {
		g.p.Shardings = planShardings(g.p, SPMDDevices)
	}
	return g.p
}

func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

// randomDims is a rank 0-3 shape of sizes 1-5.
func (g *gen) randomDims() []int64 {
	d := make([]int64, g.r.IntN(4))
	for i := range d {
		d[i] = int64(1 + g.r.IntN(5))
	}
	return d
}

func (g *gen) dtype() lazy.DType {
	switch x := g.r.IntN(20); {
	case x < 12:
		return lazy.F32
	case x < 14:
		return lazy.F64
	case x < 18:
		return lazy.I32
	}
	return lazy.Bool
}

// value is one element: mostly small numbers exact in every float type,
// sometimes zeros of both signs, large or tiny values, NaN or infinities.
func (g *gen) value(dt lazy.DType) float64 {
	switch {
	case dt == lazy.Bool:
		return float64(g.r.IntN(2))
	case isInt(dt):
		return float64(g.r.IntN(9) - 4)
	}
	switch x := g.r.IntN(200); {
	case x < 150:
		return float64(g.r.IntN(49)-24) / 8
	case x < 170:
		return math.Round(g.r.NormFloat64()*1000) / 1000
	case x < 180:
		return []float64{0, math.Copysign(0, -1)}[g.r.IntN(2)]
	case x < 190:
		return []float64{100, -100, 1e-3, 30, -30}[g.r.IntN(5)]
	case x < 194:
		return math.NaN()
	default:
		return math.Inf(1 - 2*g.r.IntN(2))
	}
}

func (g *gen) data(dt lazy.DType, n int64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = g.value(dt)
	}
	return out
}

// inputs chooses the parameters' shapes in every variant, the captures and
// the static parameters.
func (g *gen) inputs() {
	p := g.p
	nv := 1
	if g.f.ShapeChange && !g.chance(3) {
		nv = 2 + g.r.IntN(2)
	}
	// One or two base shapes; a parameter takes a base shape or a shape
	// that broadcasts against it. A varying dimension takes a size per
	// variant.
	nb := 1 + g.r.IntN(2)
	bases := make([][][]int64, nb) // [base][variant]dims
	for b := range bases {
		dims := g.randomDims()
		bases[b] = make([][]int64, nv)
		vary := make([]bool, len(dims))
		for i := range vary {
			vary[i] = nv > 1 && g.chance(2)
		}
		for v := range bases[b] {
			d := append([]int64{}, dims...)
			for i := range d {
				if vary[i] && v > 0 {
					d[i] = int64(1 + g.r.IntN(5))
				}
			}
			bases[b][v] = d
		}
	}
	np := g.r.IntN(5)
	if np == 0 && g.chance(2) {
		np = 1
	}
	p.Variants = make([][]lazy.Shape, nv)
	for i := 0; i < np; i++ {
		b := g.r.IntN(nb)
		dt := g.dtype()
		r := len(bases[b][0])
		// Derived: drop leading axes, or make axes 1 (same in every variant).
		drop := 0
		ones := make([]bool, r)
		if g.chance(3) && r > 0 {
			drop = g.r.IntN(r + 1)
			for a := range ones {
				ones[a] = g.chance(4)
			}
		}
		for v := 0; v < nv; v++ {
			d := append([]int64{}, bases[b][v][drop:]...)
			for a := range d {
				if ones[a+drop] {
					d[a] = 1
				}
			}
			p.Variants[v] = append(p.Variants[v], shp(dt, d...))
		}
	}
	if np == 0 {
		for v := range p.Variants {
			p.Variants[v] = []lazy.Shape{}
		}
	}
	nc := g.r.IntN(3)
	if np == 0 {
		nc = 1 + g.r.IntN(2)
	}
	for c := 0; c < nc; c++ {
		var s lazy.Shape
		if np > 0 && g.chance(2) {
			// The shape of a parameter in variant 0, so captures combine
			// with arguments (and may be passed as one).
			s = p.Variants[0][g.r.IntN(np)]
		} else {
			s = shp(g.dtype(), g.randomDims()...)
		}
		p.Captures = append(p.Captures, s)
		p.CapData = append(p.CapData, g.data(s.DType, numel(s.Dims)))
	}
	if g.f.Statics {
		for n := g.r.IntN(3); n > 0; n-- {
			p.Statics = append(p.Statics, g.chance(2))
		}
	}
}

// shape0 is register r's shape in the first live variant.
func (g *gen) shape0(r int) lazy.Shape {
	k := len(g.p.Body)
	for v := range g.st.dead {
		if g.st.live(v, k) {
			return g.st.regs[r].shapes[v]
		}
	}
	return g.st.regs[r].shapes[0]
}

func (g *gen) shapes0(rs []int) []lazy.Shape {
	out := make([]lazy.Shape, len(rs))
	for i, r := range rs {
		out[i] = g.shape0(r)
	}
	return out
}

// invariant reports that r has the same shape in every live variant.
func (g *gen) invariant(r int) bool {
	k := len(g.p.Body)
	for v := range g.st.dead {
		if g.st.live(v, k) && !g.st.regs[r].shapes[v].Equal(g.shape0(r)) {
			return false
		}
	}
	return true
}

// sameEverywhere reports that registers a and b have equal shapes in every
// live variant.
func (g *gen) sameEverywhere(a, b int) bool {
	k := len(g.p.Body)
	for v := range g.st.dead {
		if g.st.live(v, k) && !g.st.regs[a].shapes[v].Equal(g.st.regs[b].shapes[v]) {
			return false
		}
	}
	return true
}

func (g *gen) sameDimsEverywhere(a, b int) bool {
	k := len(g.p.Body)
	for v := range g.st.dead {
		if g.st.live(v, k) && !sameDimsSym(g.st.regs[a].shapes[v].Dims, g.st.regs[b].shapes[v].Dims) {
			return false
		}
	}
	return true
}

// minDim is the smallest size of axis a of r over the live variants (0
// when the size is data-dependent).
func (g *gen) minDim(r, a int) int64 {
	k := len(g.p.Body)
	m := int64(math.MaxInt64)
	for v := range g.st.dead {
		if g.st.live(v, k) {
			d := g.st.regs[r].shapes[v].Dims[a]
			if isDyn(d) {
				return 0
			}
			m = min(m, d)
		}
	}
	return m
}

// pickWhere picks a register satisfying ok, preferring recent ones.
func (g *gen) pickWhere(ok func(r int) bool) (int, bool) {
	var cands []int
	for r := range g.st.regs {
		if !g.st.regs[r].void && ok(r) {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return 0, false
	}
	// Half the time one of the three most recent candidates.
	if len(cands) > 3 && g.chance(2) {
		return cands[len(cands)-1-g.r.IntN(3)], true
	}
	return cands[g.r.IntN(len(cands))], true
}

// pick picks a register whose variant-0 shape satisfies ok.
func (g *gen) pick(ok func(s lazy.Shape) bool) (int, bool) {
	return g.pickWhere(func(r int) bool { return ok(g.shape0(r)) })
}

// pickHostInput picks the operand of a host op.
func (g *gen) pickHostInput(ok func(s lazy.Shape) bool) (int, bool) {
	if g.f.HostChain && g.chance(2) {
		if r, found := g.pickWhere(func(r int) bool {
			return ok(g.shape0(r)) && g.st.regs[r].hostFn && (g.f.HostChainMulti || !g.st.regs[r].multi)
		}); found {
			return r, true
		}
	}
	return g.pickWhere(func(r int) bool { return ok(g.shape0(r)) && (g.f.HostChain || !g.st.regs[r].hostFn) })
}

type pickOpt int

const anyDType pickOpt = 1

// pickCompatible picks a register that broadcasts with x in every live
// variant (and has x's dtype unless anyDType); with Errors on it
// sometimes ignores the variants after the first.
func (g *gen) pickCompatible(x int, opts ...pickOpt) (int, bool) {
	anyDT := len(opts) > 0 && opts[0] == anyDType
	loose := g.f.Errors && g.chance(4)
	k := len(g.p.Body)
	return g.pickWhere(func(r int) bool {
		if !anyDT && g.shape0(r).DType != g.shape0(x).DType {
			return false
		}
		for v := range g.st.dead {
			if !g.st.live(v, k) {
				continue
			}
			if _, err := bcastDims(g.st.regs[x].shapes[v].Dims, g.st.regs[r].shapes[v].Dims); err != nil {
				return false
			}
			if loose {
				break
			}
		}
		return true
	})
}

// branchPair picks two different branch ops for dtype dt.
func (g *gen) branchPair(dt lazy.DType) (int64, int64) {
	n := len(branchOps)
	if !isFloat(dt) {
		n = 4
	}
	a := g.r.IntN(n)
	b := (a + 1 + g.r.IntN(n-1)) % n
	return int64(a), int64(b)
}

// validEverywhere reports that in checks in every live variant.
func (g *gen) validEverywhere(in Instr) bool {
	_, errs, fatal := g.st.check(in, len(g.p.Body))
	if fatal != nil {
		return false
	}
	for _, e := range errs {
		if e != nil {
			return false
		}
	}
	return true
}

// step adds one instruction.
func (g *gen) step() {
	var enabled []*opSpec
	total := 0
	for _, o := range ops {
		if o.on(&g.f) {
			enabled = append(enabled, o)
			total += o.weight
		}
	}
	if total == 0 {
		return
	}
	x := g.r.IntN(total)
	var o *opSpec
	for _, e := range enabled {
		if x < e.weight {
			o = e
			break
		}
		x -= e.weight
	}
	in, ok := o.gen(g)
	if !ok {
		return
	}
	k := len(g.p.Body)
	res, errs, fatal := g.st.check(in, k)
	if fatal != nil || !instrAllowed(&g.f, g.st, in, k, res) {
		return
	}
	nErr, nLive := 0, 0
	for v, e := range errs {
		if g.st.live(v, k) {
			nLive++
			if e != nil {
				nErr++
			}
		}
	}
	switch {
	case nErr == 0:
	case !g.f.Errors:
		return
	case nErr < nLive && g.chance(2):
	case nErr == nLive && g.chance(40):
	default:
		return
	}
	g.p.Body = append(g.p.Body, in)
	g.st.add(in, k, res, errs)
}

func (g *gen) results() {
	var cands []int
	for r := range g.st.regs {
		if resultAllowed(&g.f, g.st, r) {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return
	}
	n := 1 + g.r.IntN(3)
	if g.chance(8) {
		n = 0
	}
	for i := 0; i < n; i++ {
		// Prefer the last locals: they depend on most of the body.
		r := cands[len(cands)-1]
		if i > 0 || g.chance(3) {
			r = cands[g.r.IntN(len(cands))]
		}
		// Sometimes a tensor the body assigned to (a mutated argument,
		// capture or local).
		var assigned []int
		for _, c := range cands {
			if g.st.assigned[g.st.regs[c].root] {
				assigned = append(assigned, c)
			}
		}
		if len(assigned) > 0 && g.chance(3) {
			r = assigned[g.r.IntN(len(assigned))]
		}
		dup := false
		for _, o := range g.p.Results {
			dup = dup || o == r
		}
		if dup && !g.f.DupOutputs || !g.f.SharedResults && sharedResults(g.st, append(slices.Clone(g.p.Results), r)) ||
			!g.f.SharedMutations && resultsShareMutation(g.st, []int{r}) {
			continue
		}
		g.p.Results = append(g.p.Results, r)
	}
	if g.f.DupOutputs && len(g.p.Results) > 0 && g.chance(6) {
		g.p.Results = append(g.p.Results, g.p.Results[g.r.IntN(len(g.p.Results))])
	}
}

func (g *gen) signature() {
	p := g.p
	fast := len(p.Statics) == 0 && p.NumParams() >= 1 && p.NumParams() <= 4 && len(p.Results) == 1
	if fast && g.chance(2) {
		return // func(*lazy.Tensor, ...) *lazy.Tensor: jit's reflection-free wrappers
	}
	p.SliceArgs = g.f.SliceArgs && g.chance(3)
	p.SliceRes = g.f.SliceArgs && g.chance(3)
	p.ErrResult = g.f.ErrResult && g.chance(3)
	g.holders()
	g.outs()
}

// staticValue is a value for static parameter i (ints stay small).
func (g *gen) staticValue(isInt bool) float64 {
	if isInt {
		return float64(g.r.IntN(3))
	}
	return []float64{0.5, 2, -1}[g.r.IntN(3)]
}

func (g *gen) calls() {
	p := g.p
	n := 2 + g.r.IntN(4)
	p.ReadEachCall = g.chance(2)
	for k := 0; k < n; k++ {
		c := Call{}
		if k > 0 && len(p.Variants) > 1 && g.chance(2) {
			c.Variant = g.r.IntN(len(p.Variants))
		}
		for i, isInt := range p.Statics {
			if k > 0 && !g.chance(3) {
				c.Statics = append(c.Statics, p.Calls[k-1].Statics[i])
				continue
			}
			c.Statics = append(c.Statics, g.staticValue(isInt))
		}
		p.Calls = append(p.Calls, c)
		for i := 0; i < p.NumParams(); i++ {
			p.Calls[k].Args = append(p.Calls[k].Args, g.binding(k, i))
		}
		if g.f.MutateResults && k+1 < n {
			for o := range p.Results {
				if rs, ok := g.st.resultShape(o, c.Variant); ok && g.chance(4) {
					p.Calls[k].MutateResults = append(p.Calls[k].MutateResults, ResultUpdate{Result: o, Data: g.data(rs.DType, numel(rs.Dims))})
				}
			}
		}
		if g.f.UpdateCaps && k > 0 {
			for ci, cs := range p.Captures {
				if g.chance(3) {
					p.Calls[k].UpdateCaps = append(p.Calls[k].UpdateCaps, CapUpdate{
						Cap: ci, Data: g.data(cs.DType, numel(cs.Dims)), Pending: g.f.PendingArgs && g.chance(2)})
				}
			}
		}
	}
}

// binding chooses where argument i of call k comes from.
func (g *gen) binding(k, i int) Binding {
	p := g.p
	want := p.Variants[p.Calls[k].Variant][i]
	var opts []Binding
	fits := func(b Binding) bool {
		p.Calls[k].Args = append(p.Calls[k].Args[:i], b)
		s, ok := g.st.bindShape(k, i)
		p.Calls[k].Args = p.Calls[k].Args[:i]
		return ok && s.Equal(want)
	}
	add := func(b Binding, weight int) {
		if fits(b) && bindingAllowed(&g.f, g.st, k, i, b) {
			for ; weight > 0; weight-- {
				opts = append(opts, b)
			}
		}
	}
	if g.f.AliasArgs {
		for j := 0; j < i; j++ {
			add(Binding{Kind: BindSame, Index: j}, 2)
		}
	}
	if g.f.CaptureAsArg {
		for c := range p.Captures {
			add(Binding{Kind: BindCapture, Index: c}, 2)
		}
	}
	if k > 0 && g.f.KeepArgs {
		add(Binding{Kind: BindKeep}, 3)
	}
	if k > 0 && g.f.FeedOutputs {
		for o := range p.Results {
			add(Binding{Kind: BindPrevOut, Index: o}, 2)
		}
	}
	if len(opts) > 0 && g.chance(2) {
		return opts[g.r.IntN(len(opts))]
	}
	b := Binding{Kind: BindFresh, Data: g.data(want.DType, numel(want.Dims))}
	if g.f.PendingArgs && g.chance(4) {
		b.Kind = BindPending
	}
	return b
}
