package jit

import (
	"fmt"
	"log"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// AOTSpec is an ahead-of-time trace embedded in generated code by
// `xlajit gen` (see package codegen): the traced function's graph and the
// facts needed to replay it without tracing.
type AOTSpec struct {
	Name      string   // the traced function's name
	Signature string   // its Go type when generated (reflect's String form)
	Fn        any      // the function (signature check, other shapes)
	Graph     string   // the fx graph, in its text form
	HLO       string   // the lowered StableHLO (for dumps and checks)
	Hash      string   // the graph hash when generated
	Captures  []string // what each capture placeholder is: "rng" (the device RNG state)
	// Guard is the traced arguments' signature (structure, plain values,
	// tensor shapes, hex) of a trace made by TraceAOTValues; "" when every
	// parameter is a tensor.
	Guard string
	// Args gives the trace's arguments again (shapes or example values),
	// for CheckAOT of a trace with non-tensor parameters.
	Args func() []any
}

// AOT replays one ahead-of-time traced function. Calls with the traced
// argument shapes replay the embedded graph (compiled on first use, through
// the compile cache and the persistent cache); other shapes go through
// jit.Compile of the function.
type AOT struct {
	spec      AOTSpec
	graph     *fx.Graph
	argShapes []lazy.Shape
	fallback  *fnState

	once sync.Once
	run  runner
	err  error

	calls, replays, compiles, hostFallbacks atomic.Int64

	codecsOnce sync.Once
	codecs     []codec // for Call
}

// LoadAOT checks spec against the function it was generated for and parses
// its graph. A changed signature is an error naming the function and the
// fix (run go generate).
func LoadAOT(spec AOTSpec) (*AOT, error) {
	if spec.Fn == nil {
		return nil, fmt.Errorf("xlajit: ahead-of-time trace of %s has no function", spec.Name)
	}
	if reflect.TypeOf(spec.Fn).Kind() != reflect.Func {
		return nil, fmt.Errorf("xlajit: ahead-of-time trace of %s: Fn is a %T, not a function", spec.Name, spec.Fn)
	}
	if got := reflect.TypeOf(spec.Fn).String(); got != spec.Signature {
		return nil, fmt.Errorf("xlajit: %s is now %s but its ahead-of-time trace was generated for %s; run go generate", spec.Name, got, spec.Signature)
	}
	g, err := fx.Parse(spec.Graph)
	if err != nil {
		return nil, fmt.Errorf("xlajit: ahead-of-time trace of %s: %w (run go generate)", spec.Name, err)
	}
	if err := g.Lint(); err != nil {
		return nil, fmt.Errorf("xlajit: ahead-of-time trace of %s: %w (run go generate)", spec.Name, err)
	}
	argShapes, err := aotArgShapes(spec, g)
	if err != nil {
		return nil, fmt.Errorf("xlajit: ahead-of-time trace of %s: %w (run go generate)", spec.Name, err)
	}
	a := &AOT{spec: spec, graph: g, argShapes: argShapes}
	fb, err := CompileE(spec.Fn, WithName(spec.Name))
	if err != nil {
		return nil, err
	}
	a.fallback = stateOf(any(fb))
	aotMu.Lock()
	aotLoaded = append(aotLoaded, a)
	aotMu.Unlock()
	return a, nil
}

// aotArgShapes returns the shapes of g's argument placeholders by index,
// checking each placeholder first (nothing is allocated by an index): a
// trace numbers its arguments 0..n-1, one placeholder each, n being the
// function's parameter count when every parameter is a tensor (no Guard),
// and reads only captures that spec.Captures describes.
func aotArgShapes(spec AOTSpec, g *fx.Graph) ([]lazy.Shape, error) {
	var args []*fx.Node
	for _, n := range g.Placeholders() {
		if n.Index < 0 {
			return nil, fmt.Errorf("%%%s: placeholder[%s %d]: negative index", n.Name, inputKind(n.Input), n.Index)
		}
		if n.Input == fx.Arg {
			args = append(args, n)
		} else if n.Index >= len(spec.Captures) || spec.Captures[n.Index] != "rng" {
			return nil, fmt.Errorf("%%%s: placeholder[capture %d]: capture of unknown kind (%d described)", n.Name, n.Index, len(spec.Captures))
		}
	}
	if t := reflect.TypeOf(spec.Fn); spec.Guard == "" && len(args) != t.NumIn() {
		return nil, fmt.Errorf("%d argument placeholders for %s, which takes %d", len(args), t, t.NumIn())
	}
	shapes := make([]lazy.Shape, len(args))
	seen := make([]bool, len(args))
	for _, n := range args {
		if n.Index >= len(args) || seen[n.Index] {
			return nil, fmt.Errorf("%%%s: placeholder[arg %d]: the %d argument placeholders are not numbered 0 to %d once each", n.Name, n.Index, len(args), len(args)-1)
		}
		seen[n.Index] = true
		shapes[n.Index] = n.Shapes[0]
	}
	return shapes, nil
}

func inputKind(k fx.InputKind) string {
	if k == fx.Capture {
		return "capture"
	}
	return "arg"
}

// MustLoadAOT is LoadAOT panicking on error (generated code calls it at
// init, so a stale trace stops the program at start with the fix).
func MustLoadAOT(spec AOTSpec) *AOT {
	a, err := LoadAOT(spec)
	if err != nil {
		panic(err)
	}
	return a
}

// Register makes StatsOf(wrapper) and Explain(wrapper) report this trace
// (generated code registers its typed wrapper).
func (a *AOT) Register(wrapper any) { register(wrapper, a) }

func (a *AOT) matches(args []*lazy.Tensor) bool {
	if len(args) != len(a.argShapes) {
		return false
	}
	for i, t := range args {
		if t == nil || !t.Shape().Equal(a.argShapes[i]) {
			return false
		}
	}
	return true
}

func (a *AOT) captures(dev *lazy.Device) []*lazy.Tensor {
	if len(a.spec.Captures) == 0 {
		return nil
	}
	caps := make([]*lazy.Tensor, len(a.spec.Captures))
	for i := range caps {
		caps[i] = dev.RNGState()
	}
	return caps
}

// Run replays the trace on args (their shapes must be the traced ones for a
// replay; other shapes are traced by jit.Compile of the function) and
// returns the function's tensor results.
func (a *AOT) Run(args ...*lazy.Tensor) ([]*lazy.Tensor, error) {
	a.calls.Add(1)
	if lazy.Tracing() || !a.matches(args) {
		return a.slow(args)
	}
	dev := device(args)
	a.once.Do(func() {
		var n int64
		a.run, n, a.err = a.build(dev)
		a.compiles.Add(n)
	})
	if a.err != nil {
		return nil, a.err
	}
	caps := a.captures(dev)
	if len(caps) > 0 {
		mu := dev.RNGLock()
		mu.Lock()
		defer mu.Unlock()
	}
	// runOn keeps args from escaping, so a generated wrapper's variadic
	// call needs no allocation.
	outs, err := runOn(a.run, nil, args, caps)
	if err != nil {
		return nil, &Error{Fn: a.spec.Name, Err: err}
	}
	a.replays.Add(1)
	cJitReplay.Add(1)
	return outs, nil
}

func (a *AOT) build(dev *lazy.Device) (runner, int64, error) {
	s := &fnState{name: a.spec.Name}
	if host := partitioner.Discover(a.graph, dev); len(host) > 0 {
		r, n, err := newStaged(s, a.graph, host, dev)
		if err != nil {
			return nil, 0, err
		}
		return &aotStaged{r, a}, int64(n), nil
	}
	p, err := bridge.Compile(a.graph, dev)
	if err != nil {
		return nil, 0, err
	}
	if got := p.Hash.String(); a.spec.Hash != "" && got != a.spec.Hash && p.Compiled() {
		// Lowering changed since generation: still correct, only the
		// persistent cache entry written by the generator is missed.
		if lazy.DebugLevel() >= 1 {
			log.Printf("xlajit: %s: graph hash %s differs from the generated %s (run go generate to refresh)", a.spec.Name, got, a.spec.Hash)
		}
	}
	return p, 1, nil
}

// aotStaged counts host fallbacks of a partitioned AOT graph.
type aotStaged struct {
	*staged
	a *AOT
}

func (r *aotStaged) Run(args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	before := r.staged.s.hostFallbacks.Load()
	outs, err := r.staged.Run(args, captures)
	r.a.hostFallbacks.Add(r.staged.s.hostFallbacks.Load() - before)
	return outs, err
}

// slow calls the function through jit.Compile (reflection): for shapes the
// ahead-of-time trace does not cover, and inside another trace (inlined).
func (a *AOT) slow(args []*lazy.Tensor) ([]*lazy.Tensor, error) {
	t := reflect.TypeOf(a.spec.Fn)
	if len(args) != t.NumIn() && !(t.IsVariadic() && len(args) >= t.NumIn()-1) {
		return nil, &Error{Fn: a.spec.Name, Msg: fmt.Sprintf("%d arguments for %s, which takes %d", len(args), t, t.NumIn())}
	}
	for i := range args {
		pt := t.In(min(i, t.NumIn()-1))
		if t.IsVariadic() && i >= t.NumIn()-1 {
			pt = pt.Elem()
		}
		if !tensorPtrType.AssignableTo(pt) {
			return nil, &Error{Fn: a.spec.Name, Msg: fmt.Sprintf("argument %d of %s is %s, given a *lazy.Tensor (use Call)", i, t, pt)}
		}
	}
	in := make([]reflect.Value, len(args))
	for i, t := range args {
		in[i] = reflect.ValueOf(t)
	}
	return a.callFallback(in)
}

// callFallback calls the jit.Compile fallback with in and returns its
// tensor results, or the error it returned or raised.
func (a *AOT) callFallback(in []reflect.Value) ([]*lazy.Tensor, error) {
	var res []reflect.Value
	if err := lazy.Try(func() { res = a.fallback.call(in) }); err != nil {
		return nil, err
	}
	var outs []*lazy.Tensor
	for _, r := range res {
		switch v := r.Interface().(type) {
		case *lazy.Tensor:
			outs = append(outs, v)
		case error:
			if v != nil {
				return nil, v
			}
		case nil:
		}
	}
	return outs, nil
}

// Stats returns the trace's counters: calls that replayed the embedded
// graph count as replays (Traces stays 0); calls with other shapes add the
// counters of the jit.Compile fallback.
func (a *AOT) Stats() Stats {
	fb := Stats{}
	if a.fallback != nil {
		fb = a.fallback.statsNow()
	}
	return Stats{
		Calls:         a.calls.Load(),
		Traces:        fb.Traces,
		Compiles:      a.compiles.Load() + fb.Compiles,
		Replays:       a.replays.Load() + fb.Replays,
		Recompiles:    fb.Recompiles,
		GraphBreaks:   fb.GraphBreaks,
		HostFallbacks: a.hostFallbacks.Load() + fb.HostFallbacks,
	}
}

func (a *AOT) statsNow() Stats { return a.Stats() }

func (a *AOT) explain() string {
	s := fmt.Sprintf("%s (ahead-of-time trace, graph %s): %s\n", a.spec.Name, a.spec.Hash, a.Stats())
	if a.fallback != nil {
		s += a.fallback.explainEvents()
	}
	return s
}

var (
	aotMu     sync.Mutex
	aotLoaded []*AOT // every loaded ahead-of-time trace, for CheckAOT
)

// CheckAOT traces every loaded ahead-of-time function again, as `xlajit
// gen` does, and returns one error per function whose embedded graph is no
// longer what its Go body computes (the body changed since go generate:
// the wrapper would replay the old program for the traced shapes and run
// the new body for others). jittest.CheckAOT calls it from a test.
func CheckAOT() []error {
	aotMu.Lock()
	loaded := append([]*AOT(nil), aotLoaded...)
	aotMu.Unlock()
	var errs []error
	for _, a := range loaded {
		if err := a.check(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// check retraces a's function and compares the graphs.
func (a *AOT) check() error {
	var spec AOTSpec
	var g *fx.Graph
	var err error
	switch {
	case a.spec.Guard == "":
		spec, g, err = TraceAOT(a.spec.Name, a.spec.Fn, a.argShapes...)
	case a.spec.Args != nil:
		spec, g, err = TraceAOTValues(a.spec.Name, a.spec.Fn, a.spec.Args()...)
		if err == nil && spec.Guard != a.spec.Guard {
			return fmt.Errorf("xlajit: the ahead-of-time trace of %s is stale: its arguments' structure or plain values changed; run go generate", a.spec.Name)
		}
	default:
		return nil // nothing to retrace with
	}
	if err != nil {
		return fmt.Errorf("xlajit: checking the ahead-of-time trace of %s: %w", a.spec.Name, err)
	}
	want, got := a.graph.Format(false), g.Format(false)
	if want != got {
		return fmt.Errorf("xlajit: the ahead-of-time trace of %s is stale: its body now traces to another graph (%s); run go generate", a.spec.Name, firstDiff(want, got))
	}
	if a.spec.Hash != "" && spec.Hash != "" && spec.Hash != a.spec.Hash {
		return fmt.Errorf("xlajit: the ahead-of-time trace of %s is stale: graph hash %s, generated %s (the lowering changed); run go generate", a.spec.Name, spec.Hash, a.spec.Hash)
	}
	return nil
}

// firstDiff names the first line where two texts differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d: generated %q, now %q", i+1, strings.TrimSpace(w), strings.TrimSpace(g))
		}
	}
	return "no line differs"
}
