package difftest

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/optim"
)

// Mode is a way of running a program.
type Mode string

// The modes. Lazy is the reference the others are compared with.
const (
	Lazy     Mode = "lazy"      // ops record IR; reads cut (the reference, on a fresh device when ColdDevice is set)
	LazyWarm Mode = "lazy-warm" // lazy mode on the long-lived device, whose compile cache holds every earlier program's graphs
	Eager    Mode = "eager"     // lazy.SetEager(true): a cut after every op
	Jit      Mode = "jit"       // jit.Compile: trace on call 1, then replays
	JitEager Mode = "jit-eager" // jit.Compile called with eager mode on
)

// ColdDevice, when set, makes a fresh device (with an empty compile cache)
// for each program's reference run, so that a graph wrongly found in the
// long-lived device's compile cache (a hash collision) shows up as a
// difference instead of being shared by every mode. The tests set it to
// an embedded device; package difftest itself does not pick a device.
var ColdDevice func() *lazy.Device

func (m Mode) compiled() bool { return m == Jit || m == JitEager }

// obs is one tensor as a mode saw it: its identity (the order in which the
// caller first saw the object; -1 for nil), shape and raw bits.
type obs struct {
	id      int
	shape   lazy.Shape
	bits    []byte
	readErr string
}

// callObs is what one call did.
type callObs struct {
	sig      string // the call's input signature as the caller sees it
	argIDs   []int
	results  []obs
	err      error
	crash    string
	reads    int
	stats    jit.Stats // change during the call (compiled modes)
	pending  []*lazy.Tensor
	capIDs   []int
	resultOK bool
	// outs are the call's non-tensor results as text, right after the
	// call (Program.Outs); forms its holders' forms.
	outs  string
	forms string
}

// modeRun is everything one mode did.
type modeRun struct {
	mode   Mode
	calls  []callObs
	failAt int   // the failing call, -1 if none
	pre    []obs // the caller's tensors before the failing call (when hinted)
	post   []obs // the same tensors after it
	finals []obs // the caller's tensors (captures, arguments) after the calls
	rng    obs   // the RNG state at the end
	crash  string
	nCaps  int
	// outsFinal are the calls' non-tensor results as text once every call
	// is done (and the caller wrote into them).
	outsFinal []string
}

// tracker numbers tensor objects in the order the caller first sees them.
type tracker struct {
	ids  map[*lazy.Tensor]int
	objs []*lazy.Tensor
	// known are the ids of captures and arguments (whose values the
	// caller keeps).
	known []int
}

func (t *tracker) id(x *lazy.Tensor) int {
	if x == nil {
		return -1
	}
	if i, ok := t.ids[x]; ok {
		return i
	}
	t.ids[x] = len(t.objs)
	t.objs = append(t.objs, x)
	return len(t.objs) - 1
}

func (t *tracker) know(x *lazy.Tensor) int {
	i := t.id(x)
	for _, k := range t.known {
		if k == i {
			return i
		}
	}
	t.known = append(t.known, i)
	return i
}

// negNeg returns x negated twice (logical not for bools): the same values,
// held as pending IR in lazy mode.
func negNeg(x *lazy.Tensor) *lazy.Tensor {
	if x.DType() == lazy.Bool {
		return x.Not().Not()
	}
	return x.Neg().Neg()
}

// observe reads x (a cut) into an obs.
func observe(x *lazy.Tensor, id int) (o obs) {
	o.id = id
	if x == nil {
		return o
	}
	o.shape = x.Shape()
	defer func() {
		if r := recover(); r != nil {
			o.readErr = fmt.Sprint(r)
		}
	}()
	l, err := x.Literal()
	if err != nil {
		o.readErr = err.Error()
		return o
	}
	o.shape = lazy.NewShape(l.DType, l.Dims...)
	n := int(numel(l.Dims)) * l.DType.Size()
	o.bits = append([]byte{}, l.Data[:n]...)
	return o
}

// classify sorts a recovered panic or returned error into a clean error
// (an *lazy.Error or *jit.Error, possibly wrapping another error) or a
// crash (a runtime error, anything not an error, or a clean error that
// wraps a runtime error).
func classify(r any) (err error, crash string) {
	e, ok := r.(error)
	if !ok {
		return nil, fmt.Sprintf("panic: %v", r)
	}
	var he *harnessError
	if errors.As(e, &he) {
		return nil, he.Error()
	}
	var re runtime.Error
	if errors.As(e, &re) {
		return nil, "runtime error: " + e.Error()
	}
	return e, ""
}

// call runs f(in), recovering panics.
func call(f reflect.Value, in []reflect.Value) (out []reflect.Value, err error, crash string) {
	defer func() {
		if r := recover(); r != nil {
			err, crash = classify(r)
			if crash != "" {
				crash += "\n" + string(debug.Stack())
			}
		}
	}()
	return f.Call(in), nil, ""
}

// sigOf describes the call's input signature: variant, statics, the
// holders' forms, which struct parameters are one pointer (hv are the
// holders' values) and which arguments are the same object or a captured
// one.
func sigOf(c Call, args []*lazy.Tensor, caps []*lazy.Tensor, hv []reflect.Value) string {
	s := fmt.Sprintf("v%d s%v", c.Variant, c.Statics)
	if len(c.Forms) > 0 {
		s += fmt.Sprintf(" f%v", c.Forms)
	}
	for h, v := range hv {
		for j := 0; j < h; j++ {
			if v.Kind() == reflect.Pointer && hv[j].Kind() == reflect.Pointer && v.Pointer() == hv[j].Pointer() {
				s += fmt.Sprintf(" m%d=m%d", h, j)
				break
			}
		}
	}
	for i, a := range args {
		for j := 0; j < i; j++ {
			if args[j] == a {
				s += fmt.Sprintf(" a%d=a%d", i, j)
				break
			}
		}
		for j, cp := range caps {
			if cp == a {
				s += fmt.Sprintf(" a%d=c%d", i, j)
			}
		}
	}
	return s
}

// runMode runs the program's calls in mode m from fresh state. failHint is
// the call the reference mode failed at (-1: none): the caller's tensors
// are read before it, so the state a failed call leaves can be checked.
func runMode(p *Program, m Mode, failHint int) (mr *modeRun) {
	mr = &modeRun{mode: m, failAt: -1, nCaps: len(p.Captures)}
	lazy.SetEager(m == Eager || m == JitEager)
	defer lazy.SetEager(false)
	defer func() {
		if r := recover(); r != nil {
			mr.crash = fmt.Sprintf("panic outside a call: %v\n%s", r, debug.Stack())
		}
	}()
	lazy.ManualSeed(p.Seed)
	tr := &tracker{ids: map[*lazy.Tensor]int{}}
	caps := make([]*lazy.Tensor, len(p.Captures))
	for c, s := range p.Captures {
		caps[c] = fromData(s, p.CapData[c])
		markInput(caps[c], c, true)
		tr.know(caps[c])
	}
	var opt optim.Optimizer
	if p.Optim != nil {
		// Its state tensors are the caller's as captures are.
		opt = p.Optim.make(caps)
		for _, t := range optimState(opt) {
			tr.know(t)
			mr.nCaps++
		}
	}
	var reads int
	var want []lazy.Shape
	closed := opt // the function closes over the optimizer unless it takes it
	if p.optimArg() {
		closed = nil
	}
	fv := p.makeFunc(caps, closed, &reads, &want)
	st, _ := analyze(p)
	if m.compiled() {
		jf := jit.Compile[any](fv.Interface())
		fv = reflect.ValueOf(jf)
	}
	stats := func() jit.Stats {
		if !m.compiled() {
			return jit.Stats{}
		}
		return jit.StatsOf[any](fv.Interface())
	}
	var prevArgs, prevOuts []*lazy.Tensor
	var prevHolders []reflect.Value
	// The Go results of each call (settable, as the caller's variables)
	// and the holders it passed, rendered again at the end.
	var outVars, outHolders [][]reflect.Value
	rend := &outRenderer{}
	for k, c := range p.Calls {
		for _, u := range c.UpdateCaps {
			v := fromData(p.Captures[u.Cap], u.Data)
			if u.Pending {
				v = negNeg(v)
			}
			caps[u.Cap].Assign(v)
		}
		if c.SetLR != 0 {
			opt.Shared().SetLR(c.SetLR)
		}
		snaps := make([]lazy.TensorState, len(c.RollBack))
		for i, ci := range c.RollBack {
			snaps[i] = caps[ci].State()
		}
		args := make([]*lazy.Tensor, len(c.Args))
		for i, b := range c.Args {
			s := p.Variants[c.Variant][i]
			switch b.Kind {
			case BindFresh:
				args[i] = fromData(s, b.Data)
				markInput(args[i], i, false)
			case BindPending:
				args[i] = negNeg(fromData(s, b.Data))
				markInput(args[i], i, false)
			case BindSame:
				args[i] = args[b.Index]
			case BindKeep:
				args[i] = prevArgs[i]
			case BindCapture:
				args[i] = caps[b.Index]
			case BindPrevOut:
				args[i] = prevOuts[b.Index]
			}
		}
		hv := p.holderValues(k, args, prevHolders)
		co := callObs{sig: sigOf(c, args, caps, hv)}
		if len(c.Forms) > 0 {
			co.forms = fmt.Sprint(c.Forms)
		}
		for _, a := range args {
			co.argIDs = append(co.argIDs, tr.know(a))
		}
		if k == failHint {
			// Read everything before the failing call: a plain call that
			// fails may leave its writes half done where a compiled one
			// leaves none, and earlier results may be those tensors.
			readPending(mr)
			mr.pre = observeKnown(tr)
		}
		before := stats()
		reads = 0
		want = want[:0]
		for _, ri := range st.regs {
			want = append(want, ri.shapes[c.Variant])
		}
		out, err, crash := call(fv, p.packArgs(args, hv, opt, c.Statics))
		var outs []*lazy.Tensor
		var gos []reflect.Value
		if err == nil && crash == "" {
			outs, gos, err = p.unpackResults(out)
		}
		co.reads = reads
		after := stats()
		co.stats = jit.Stats{
			Calls: after.Calls - before.Calls, Traces: after.Traces - before.Traces, Compiles: after.Compiles - before.Compiles,
			Replays: after.Replays - before.Replays, Recompiles: after.Recompiles - before.Recompiles,
			GraphBreaks: after.GraphBreaks - before.GraphBreaks, HostFallbacks: after.HostFallbacks - before.HostFallbacks,
		}
		co.err, co.crash = err, crash
		if err != nil || crash != "" {
			mr.failAt = k
			mr.calls = append(mr.calls, co)
			if crash == "" {
				mr.post = observeKnown(tr)
			}
			break
		}
		for _, o := range outs {
			co.results = append(co.results, obs{id: tr.id(o)})
		}
		if p.ReadEachCall {
			for i, o := range outs {
				co.results[i] = observe(o, co.results[i].id)
			}
		} else {
			co.pending = outs
		}
		var vars []reflect.Value
		if len(p.Outs) > 0 {
			for _, g := range gos {
				v := reflect.New(g.Type()).Elem()
				v.Set(g)
				vars = append(vars, v)
			}
			co.outs = rend.render(p, vars, hv)
		}
		mr.calls = append(mr.calls, co)
		prevArgs, prevOuts, prevHolders = args, outs, hv
		outVars, outHolders = append(outVars, vars), append(outHolders, hv)
		for _, u := range c.MutateResults {
			outs[u.Result].Assign(fromData(outs[u.Result].Shape(), u.Data))
		}
		for _, u := range c.MutateOuts {
			p.mutateOut(vars, u)
		}
		for i, ci := range c.RollBack {
			caps[ci].Restore(snaps[i])
		}
	}
	readPending(mr)
	if mr.failAt < 0 {
		mr.finals = observeKnown(tr)
		mr.rng = observe(lazy.DefaultDevice().RNGState(), -1)
		if len(p.Outs) > 0 {
			for k := range outVars {
				mr.outsFinal = append(mr.outsFinal, rend.render(p, outVars[k], outHolders[k]))
			}
		}
	}
	return mr
}

// holderValues builds the Go values call k passes for the holders from
// its argument tensors: an earlier holder's pointer again where the call
// passes one struct twice (twinOf), the previous call's value (prev) again
// where it passes the same tensors in the same form (reusesHolder).
func (p *Program) holderValues(k int, args []*lazy.Tensor, prev []reflect.Value) []reflect.Value {
	forms := p.formsOf(k)
	hv := make([]reflect.Value, len(p.Holders))
	for h := range p.Holders {
		if j := p.twinOf(k, h); j >= 0 {
			hv[h] = asType(hv[j], p.Holders[h].goType())
			continue
		}
		if prev != nil && p.reusesHolder(k, h) {
			hv[h] = prev[h]
			continue
		}
		hv[h] = p.Holders[h].value(forms[h], args)
	}
	return hv
}

func observeKnown(tr *tracker) []obs {
	out := make([]obs, len(tr.known))
	for i, id := range tr.known {
		out[i] = observe(tr.objs[id], id)
	}
	return out
}

// readPending reads the results not read yet.
func readPending(mr *modeRun) {
	for k := range mr.calls {
		c := &mr.calls[k]
		for i, o := range c.pending {
			c.results[i] = observe(o, c.results[i].id)
		}
		c.pending = nil
	}
}
