package bridge

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// Sites of errors and IR nodes pass over this package's frames to the
// user's line.
func init() { lazy.SkipInSites(reflect.TypeFor[Traced]().PkgPath()) }

// TraceOptions control a trace.
type TraceOptions struct{}

// Break is a graph break: user code forced a cut inside the traced function.
type Break struct {
	Reason string // Item, Float32s, Sync, String, ...
	Site   string // file:line of the read
}

// ErrGraphBreak is returned (wrapped in *BreakError) when the traced
// function reads a tensor value.
var ErrGraphBreak = errors.New("graph break")

// BreakError describes a graph break.
type BreakError struct{ Break Break }

func (e *BreakError) Error() string {
	return fmt.Sprintf("graph break: %s at %s reads a tensor value inside the traced function", e.Break.Reason, e.Break.Site)
}

func (e *BreakError) Unwrap() error { return ErrGraphBreak }

// Traced is the result of a trace.
type Traced struct {
	Graph *fx.Graph
	// Outputs are the tensors the function returned (identity matters: the
	// same tensor returned twice, an argument returned unchanged).
	Outputs []*lazy.Tensor
	// Created are the tensors the function made from host data: captures
	// of the graph that the plain function makes anew on every call.
	Created map[*lazy.Tensor]bool
	// GradArgs are the positions in args of the arguments the function
	// took a gradient with respect to, and GradCaptures the other inputs
	// it did: an argument's history before the call reaching one of them
	// is a path for the gradient that the graph does not hold, and such a
	// call must run the function itself (lazy.HistoryReaches).
	GradArgs     []int
	GradCaptures []*lazy.Tensor
	// ir is, per node ID of Graph, the IR node the call was converted from
	// (fx.FromTraceIR), for CompileTraced; it holds the traced inputs'
	// buffers, so the first compile drops it.
	ir []*lazy.Node
}

type recorder struct {
	// created are the tensors the function made from host data (writes
	// into tensors the function made are not reported: lazy keeps them
	// local to the trace).
	created   map[*lazy.Tensor]bool
	hostNodes []lazy.Value
	mutated   []*lazy.Tensor
	before    map[*lazy.Tensor]lazy.TensorState
	synced    map[any]lazy.Value
	hostOps   []fx.HostOp
	brk       *Break
	gradIns   []*lazy.Tensor
}

type breakPanic struct{}

func (r *recorder) OnAssign(t *lazy.Tensor, before lazy.TensorState) {
	if _, ok := r.before[t]; !ok {
		r.before[t] = before
		r.mutated = append(r.mutated, t)
	}
}

// OnHostNode records a host op recorded without running.
func (r *recorder) OnHostNode(v lazy.Value) { r.hostNodes = append(r.hostNodes, v) }

// OnCreate records a tensor the function made from host data.
func (r *recorder) OnCreate(t *lazy.Tensor) { r.created[t] = true }

// OnGrad records the inputs the function took a gradient with respect to.
func (r *recorder) OnGrad(xs []*lazy.Tensor) { r.gradIns = append(r.gradIns, xs...) }

func (r *recorder) OnCut(reason, site string) {
	r.brk = &Break{Reason: reason, Site: site}
	panic(breakPanic{})
}

func (r *recorder) OnSync(ts []*lazy.Tensor, before []lazy.Value) {
	for i, t := range ts {
		r.synced[t.DataID()] = before[i]
	}
}

func (r *recorder) OnHostOp(op *lazy.OpDef, a lazy.Attrs, in []lazy.Value, out []*lazy.Tensor) {
	h := fx.HostOp{Op: op, Attrs: a, Inputs: in, Outputs: out}
	for _, o := range out {
		h.OutputData = append(h.OutputData, o.DataID())
		h.OutputShapes = append(h.OutputShapes, o.Shape())
	}
	r.hostOps = append(r.hostOps, h)
}

// undo puts every mutated tensor back as it was before the trace.
func (r *recorder) undo() {
	for _, t := range r.mutated {
		t.Restore(r.before[t])
	}
}

// Trace runs fn once with the lazy runtime recording. args are the flattened
// tensor arguments fn reads (pending ones are computed first). On return
// every tensor fn assigned holds its old contents again, the RNG state
// included. A read of a tensor value inside fn aborts the trace with a
// *BreakError. What the trace counts (host ops, computed inputs) goes into
// a counting scope of its own, added to the counters when the trace
// succeeds and dropped when it fails; counts of other goroutines are never
// touched.
func Trace(args []*lazy.Tensor, fn func() ([]*lazy.Tensor, error), _ TraceOptions) (tr *Traced, err error) {
	if err := checkNil(args, nil); err != nil {
		return nil, err
	}
	if err := lazy.Sync(args...); err != nil {
		return nil, err
	}
	endCount := lazy.BeginCountScope()
	kept := false
	defer func() { endCount(kept) }()
	states := make([]lazy.TensorState, len(args))
	for i, a := range args {
		states[i] = a.TransientState()
	}
	rec := &recorder{before: map[*lazy.Tensor]lazy.TensorState{}, synced: map[any]lazy.Value{},
		created: map[*lazy.Tensor]bool{}}
	built := lazy.NodesBuilt()
	end := lazy.BeginTrace(rec)
	var outs []*lazy.Tensor
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(breakPanic); ok {
					err = &BreakError{Break: *rec.brk}
					return
				}
				if e := lazy.AsError(p); e != nil {
					err = e
					return
				}
				end()
				rec.undo()
				panic(p)
			}
		}()
		outs, err = fn()
		if rec.brk != nil {
			// The break's panic was recovered inside fn, which went on
			// with a value it never got: the trace is a break all the
			// same.
			err = &BreakError{Break: *rec.brk}
			return
		}
		if err == nil {
			lazy.SyncExternal(outs)
		}
	}()
	var t *fx.Trace
	if err == nil {
		t = &fx.Trace{Args: args, ArgStates: states, Synced: rec.synced, HostOps: rec.hostOps, HostNodes: rec.hostNodes,
			SizeHint: int(lazy.NodesBuilt() - built)}
		for i, o := range outs {
			if o == nil {
				end()
				rec.undo()
				return nil, fmt.Errorf("bridge: output %d is a nil tensor", i)
			}
			t.Outputs = append(t.Outputs, o.Value())
		}
		for _, m := range rec.mutated {
			t.Mutated = append(t.Mutated, m)
			t.MutStates = append(t.MutStates, rec.before[m])
			t.MutValues = append(t.MutValues, m.Value())
		}
	}
	end()
	rec.undo()
	if err != nil {
		return nil, err
	}
	g, ir, err := fx.FromTraceIR(t)
	if err != nil {
		return nil, err
	}
	kept = true
	tr = &Traced{Graph: g, Outputs: outs, Created: rec.created, ir: ir}
	for _, x := range rec.gradIns {
		at := false
		for i, a := range args {
			if a == x {
				at = true
				if !slices.Contains(tr.GradArgs, i) {
					tr.GradArgs = append(tr.GradArgs, i)
				}
			}
		}
		if !at && !slices.Contains(tr.GradCaptures, x) {
			tr.GradCaptures = append(tr.GradCaptures, x)
		}
	}
	return tr, nil
}
