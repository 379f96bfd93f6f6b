package difftest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/spmd"
)

// SPMD runs a program as lazy mode does, on the SPMD device of
// SPMDDevices embedded devices, with the shardings of its ShardPlan:
// parameters and captures laid out by random partition specs, some
// instruction results annotated. Its values may differ from lazy mode's by
// the order of sums (a cut reduction adds partial sums), so they are
// compared within tolerances (see closeDiffer); everything else (errors,
// identities, shapes, integer and bool values) as in the other modes.
const SPMD Mode = "spmd"

// SPMDDevice, when set, is the device of the SPMD mode (the tests set it
// to the SPMD device of an embedded client with four devices).
var SPMDDevice func() *lazy.Device

// ShardPlan is where a program's SPMD run puts shardings. A spec has one
// entry per dimension, each a list of mesh axes (empty: whole); a spec
// longer than a tensor's rank is cut, a shorter one extended with whole
// dimensions.
type ShardPlan struct {
	Mesh   []int // mesh shape (its size is the device count)
	Order  []int // device ids in mesh order
	Params [][][]int
	Caps   [][][]int
	Marks  []Mark
}

// Mark annotates the result of instruction Instr.
type Mark struct {
	Instr int
	Spec  [][]int
}

// planShardings draws p's shard plan from a stream of its own (the
// program's other choices do not change when Sharding is switched on).
func planShardings(p *Program, devices int) *ShardPlan {
	r := rand.New(rand.NewPCG(p.Seed, 0x5bd1e995))
	meshes := [][]int{{devices}, {2, devices / 2}, {devices / 2, 2}, {1, devices}}
	sp := &ShardPlan{Mesh: meshes[r.IntN(len(meshes))]}
	sp.Order = r.Perm(devices)
	if r.IntN(2) == 0 {
		for i := range sp.Order {
			sp.Order[i] = i
		}
	}
	spec := func() [][]int {
		s := make([][]int, 3) // ranks are at most 3 before ops grow them
		for a := range sp.Mesh {
			if r.IntN(3) == 0 {
				continue
			}
			d := r.IntN(len(s))
			s[d] = append(s[d], a)
		}
		return s
	}
	for range p.NumParams() {
		sp.Params = append(sp.Params, spec())
	}
	for range p.Captures {
		sp.Caps = append(sp.Caps, spec())
	}
	for k := range p.Body {
		if r.IntN(4) == 0 {
			sp.Marks = append(sp.Marks, Mark{Instr: k, Spec: spec()})
		}
	}
	return sp
}

// spmdRun is the state of an SPMD mode run: the mesh and the plan.
type spmdRun struct {
	plan *ShardPlan
	mesh *spmd.Mesh
	// marks maps registers to the specs of the instructions defining them.
	marks map[int][][]int
	// nearBranch is set when a data-dependent branch compared a value
	// within the summation-order tolerance of its threshold: lazy mode may
	// have taken the other side, so the run's values are not compared.
	nearBranch bool
}

// discontinuous ops turn a difference in the last bits of their operand
// (which a changed summation order makes) into an arbitrary one: a
// remainder wraps, a rounding or a comparison jumps, an arg-max picks
// another index.
var discontinuous = map[string]bool{
	"Rem": true, "Sign": true, "Floor": true, "Ceil": true, "Round": true,
	"Eq": true, "Ne": true, "Lt": true, "Le": true, "Gt": true, "Ge": true,
	"GtScalar": true, "LtScalar": true, "EqScalar": true,
	"ArgMax": true, "ArgMin": true, "Sort": true, "TopK": true, "Unique": true,
	"NonZero": true, "MaskedSelect": true, "Cast": true, "CastRound": true,
}

// spmdComparable reports whether an SPMD run's values can be compared with
// lazy mode's within tolerance: not when the program has a discontinuous
// op (conservatively, whether or not its operand depends on a reduction or
// a product, whose summation order sharding changes).
func spmdComparable(p *Program) bool {
	for _, in := range p.Body {
		if discontinuous[in.Op] {
			return false
		}
	}
	return true
}

// noteBranch records a branch on v > threshold (s nil: not an SPMD run).
func (s *spmdRun) noteBranch(v, threshold float64) {
	if s != nil && math.Abs(v-threshold) <= 4e-5*max(1, math.Abs(threshold)) {
		s.nearBranch = true
	}
}

// active is the SPMD run in progress (runs are sequential).
var active *spmdRun

func newSPMDRun(p *Program, dev *lazy.Device) (*spmdRun, error) {
	sp := p.Shardings
	if sp == nil {
		sp = planShardings(p, dev.NumShards())
	}
	mesh, err := spmd.NewMesh(sp.Order, sp.Mesh)
	if err != nil {
		return nil, err
	}
	s := &spmdRun{plan: sp, mesh: mesh, marks: map[int][][]int{}}
	for _, m := range sp.Marks {
		s.marks[p.InstrReg(m.Instr)] = m.Spec
	}
	return s, nil
}

// mark lays t out by spec (cut or extended to t's rank); a tensor marked
// before is cleared first. Marking never changes values, so a failure to
// mark (a spec the tensor cannot take) is ignored.
func (s *spmdRun) mark(t *lazy.Tensor, spec [][]int) {
	if t == nil || !t.Device().IsSPMD() {
		return
	}
	entries := make([]any, t.Rank())
	for d := range entries {
		if d < len(spec) && len(spec[d]) > 0 {
			entries[d] = spec[d]
		}
	}
	if t.ShardingSpec() != nil {
		t.ClearSharding()
	}
	_ = spmd.MarkSharding(t, s.mesh, entries...)
}

// markInput lays out parameter i (or capture i when capture is set).
func markInput(t *lazy.Tensor, i int, capture bool) {
	if active == nil {
		return
	}
	specs := active.plan.Params
	if capture {
		specs = active.plan.Caps
	}
	if i < len(specs) {
		active.mark(t, specs[i])
	}
}

// markReg annotates the tensor an instruction put in register r.
func markReg(r int, t *lazy.Tensor) {
	if active == nil {
		return
	}
	if spec, ok := active.marks[r]; ok {
		active.mark(t, spec)
	}
}

// runSPMD runs p in SPMD mode on SPMDDevice; near reports a branch taken
// on a value within tolerance of its threshold (see spmdRun.nearBranch).
func runSPMD(p *Program, failHint int) (r *modeRun, near bool) {
	dev := SPMDDevice()
	s, err := newSPMDRun(p, dev)
	if err != nil {
		return &modeRun{mode: SPMD, failAt: -1, crash: "difftest: shard plan: " + err.Error()}, false
	}
	shared := lazy.DefaultDevice()
	lazy.SetDefaultDevice(dev)
	active = s
	defer func() {
		active = nil
		lazy.SetDefaultDevice(shared)
	}()
	r = runMode(p, SPMD, failHint)
	return r, s.nearBranch
}

// closeDiffer compares an SPMD observation with lazy mode's: integer and
// bool values exactly, floats within a relative tolerance of their type
// (f32 and f64 1e-5, f16 2e-3, bf16 1.6e-2) above an absolute floor of the
// same size, NaN matching NaN and infinities matching exactly. An f64
// result may have been computed in f32 and cast (a changed summation order
// then shows at f32's precision), so f64 gets f32's tolerance.
func closeDiffer(a, b obs) (differ bool, where string) {
	if a.readErr != "" || b.readErr != "" || !a.shape.Equal(b.shape) {
		d, _, w := bitsDiffer(a, b)
		return d, w
	}
	dt := a.shape.DType
	var tol float64
	switch dt {
	case lazy.F64, lazy.F32:
		tol = 1e-5
	case lazy.F16:
		tol = 2e-3
	case lazy.BF16:
		tol = 1.6e-2
	default:
		d, _, w := bitsDiffer(a, b)
		return d, w
	}
	la := &hlo.Literal{DType: dt, Dims: a.shape.Dims, Data: a.bits}
	lb := &hlo.Literal{DType: dt, Dims: b.shape.Dims, Data: b.bits}
	for i := 0; i < la.NumElements(); i++ {
		x, y := la.Float(i), lb.Float(i)
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			if math.IsNaN(x) != math.IsNaN(y) {
				return true, fmt.Sprintf("element %d: %v vs %v", i, x, y)
			}
		case math.IsInf(x, 0) || math.IsInf(y, 0):
			if x != y {
				return true, fmt.Sprintf("element %d: %v vs %v", i, x, y)
			}
		case math.Abs(x-y) > tol*(1+math.Max(math.Abs(x), math.Abs(y))):
			return true, fmt.Sprintf("element %d: %v vs %v (beyond %g); all: %s vs %s", i, x, y, tol, short(la), short(lb))
		}
	}
	return false, ""
}

// SPMDDevices is the number of devices of the SPMD mode's mesh.
const SPMDDevices = 4
