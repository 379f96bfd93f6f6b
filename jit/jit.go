package jit

import (
	"errors"
	"fmt"
	"log"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// Sites of errors and IR nodes pass over this package's frames to the
// user's line.
func init() { lazy.SkipInSites(reflect.TypeFor[Error]().PkgPath()) }

// Error is an error of the jit machinery (an unsupported signature, a
// failed trace or compile, a graph break under FullGraph). Functions whose
// last result is an error return it there; others panic with it.
type Error struct {
	Fn  string
	Msg string
	Err error
}

func (e *Error) Error() string {
	s := "jit"
	if e.Fn != "" {
		s += " " + e.Fn
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ReportedError marks Error as a reported failure (lazy.Try converts it).
func (*Error) ReportedError() {}

// runner replays one traced signature.
type runner interface {
	Run(args, captures []*lazy.Tensor) ([]*lazy.Tensor, error)
}

// entry is one input signature of a compiled function.
type entry struct {
	key      string
	guard    []guardItem
	notes    []string // aliasing of the traced arguments (Explain)
	run      runner   // nil: the function runs in lazy mode (graph break)
	captures []*lazy.Tensor
	// mutates is set when a replay writes into arguments or captures: it
	// then holds the stripe locks of everything it touches (capStripes
	// are the captures'), and the RNG lock when it advances a device's
	// RNG state (rng).
	mutates    bool
	capStripes uint64
	rng        *sync.Mutex
	results    []*outPlan
	// fresh are the result slots holding tensors the function made from
	// host data: each replay returns new tensors holding their data.
	fresh []int
	// plain is run when it is a device program and a replay needs none of
	// runEntry's locks and fresh results: replayOrLazy calls it directly.
	plain *bridge.Program
	// keyCaps is how many of the function's written captures (mutCaps)
	// were known when key was made (findEarlier).
	keyCaps int
	// grad is set when the function takes a gradient with respect to one
	// of its inputs (the arguments at gradArgs, gradCaps): a call whose
	// arguments' history before it reaches one runs the function itself
	// (gradThroughArgs).
	grad     bool
	gradArgs []int
	gradCaps []*lazy.Tensor
}

// fnState is everything jit keeps for one compiled function.
type fnState struct {
	// last is the most recently used entry.
	last atomic.Pointer[entry]

	name   string
	fn     reflect.Value
	typ    reflect.Type
	opts   options
	codecs []codec
	hasErr bool

	traceMu sync.Mutex // one trace at a time per function
	// replayMu keeps writing replays out of a trace of the same function
	// (a trace assigns tensors and then undoes it).
	replayMu sync.RWMutex
	// reachesCaller is set when an argument type reaches the caller's
	// memory (a pointer, slice or interface other than a tensor itself):
	// a trace puts stand-ins there (proxy.go), so a call walks such
	// arguments under callerMem's read lock, never while they are in.
	reachesCaller bool
	// mutCaps are the tensors captured by entries that write: an argument
	// that is one of them is part of the guard key.
	mutCaps atomic.Pointer[capSet]
	mu      sync.RWMutex
	entries map[string]*entry
	rekeyed int         // entries stored under a second key (findEarlier)
	lastG   []guardItem // guard of the most recent trace (Explain)
	lastN   []string    // its aliasing notes
	limited bool        // recompile limit reached: lazy mode for new signatures
	// leadChanges counts, per tensor path, the recompiles caused by its
	// leading dimension alone (a batch size that keeps changing).
	leadChanges map[string]int
	warnedFloat bool
	// evMu guards the events Explain lists (its own lock: Explain may be
	// called from inside the function's trace).
	evMu    sync.Mutex
	events  []string
	dropped int // events past maxEvents

	// lazyCalls are the calls not served by a replay (Stats.Calls adds
	// replays: a replay counts once, with one atomic add).
	lazyCalls, traces, compiles, replays, recompiles, breaks, hostFallbacks atomic.Int64
}

var (
	registry   sync.Map // funcval pointer → *fnState
	walkerPool = sync.Pool{New: func() any { return &walker{key: make([]byte, 0, 64), tensors: make([]*lazy.Tensor, 0, 8)} }}
)

// register maps a func value to its state. The registry does not keep
// the func value alive: when Go collects it, a cleanup removes its entry
// (so a program that compiles functions in a loop does not keep them all),
// and only then can its address, the key, be another function's. Func
// values that are not heap objects (top-level functions) live forever.
func register(f any, c compiled) {
	ptr := funcPtr(f)
	key := uintptr(ptr)
	registry.Store(key, c)
	func() {
		defer func() { recover() }() // not a heap object: nothing to clean up
		runtime.AddCleanup((*byte)(ptr), unregister, registeredKey{key, c})
	}()
}

type registeredKey struct {
	key uintptr
	c   compiled
}

func unregister(r registeredKey) { registry.CompareAndDelete(r.key, r.c) }

// funcKey identifies a func value (its closure pointer).
func funcKey(f any) uintptr { return uintptr(funcPtr(f)) }

// funcPtr is a func value's closure pointer.
func funcPtr(f any) unsafe.Pointer {
	type eface struct{ typ, data unsafe.Pointer }
	return (*eface)(unsafe.Pointer(&f)).data
}

// Compile wraps fn, a function over *lazy.Tensor values (and slices,
// arrays, structs and pointers of them, plus plain values that become part
// of the guard), into a function of the same type that traces once per
// input signature and replays the compiled program afterwards. It panics on
// an unsupported signature (CompileE returns the error).
func Compile[F any](fn F, opts ...Option) F {
	f, err := CompileE(fn, opts...)
	if err != nil {
		panic(err)
	}
	return f
}

// CompileE is Compile returning an error for a signature it cannot handle.
func CompileE[F any](fn F, opts ...Option) (F, error) {
	var zero F
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return zero, &Error{Msg: fmt.Sprintf("Compile needs a non-nil function, got %T", fn)}
	}
	t := v.Type()
	s := &fnState{fn: v, typ: t, opts: defaultOptions(), entries: map[string]*entry{}}
	for i, o := range opts {
		if o == nil {
			return zero, &Error{Msg: fmt.Sprintf("option %d is nil", i)}
		}
		o(&s.opts)
	}
	if s.opts.err != nil {
		return zero, &Error{Fn: s.opts.name, Msg: "invalid option", Err: s.opts.err}
	}
	s.name = s.opts.name
	if s.name == "" {
		s.name = funcName(v)
	}
	if t.IsVariadic() {
		return zero, &Error{Fn: s.name, Msg: "variadic functions are not supported"}
	}
	for i := 0; i < t.NumIn(); i++ {
		if err := checkArgType(t.In(i), map[reflect.Type]bool{}); err != nil {
			return zero, &Error{Fn: s.name, Msg: fmt.Sprintf("argument %d", i), Err: err}
		}
		s.codecs = append(s.codecs, codecFor(t.In(i)))
		s.reachesCaller = s.reachesCaller || reachesCallerMemory(t.In(i), map[reflect.Type]bool{})
	}
	for i := 0; i < t.NumOut(); i++ {
		ot := t.Out(i)
		if ot == errorType {
			if i != t.NumOut()-1 {
				return zero, &Error{Fn: s.name, Msg: "an error result must be last"}
			}
			s.hasErr = true
			continue
		}
		if err := checkArgType(ot, map[reflect.Type]bool{}); err != nil {
			return zero, &Error{Fn: s.name, Msg: fmt.Sprintf("result %d", i), Err: err}
		}
	}
	var wrapped F
	if f, ok := s.fastWrapper(any(fn)).(F); ok {
		wrapped = f
	} else {
		wrapped = reflect.MakeFunc(t, s.call).Interface().(F)
	}
	register(any(wrapped), s)
	return wrapped, nil
}

func funcName(v reflect.Value) string {
	if f := runtimeFuncName(v.Pointer()); f != "" {
		return f
	}
	return v.Type().String()
}

func (s *fnState) fail(err error) []reflect.Value {
	var je *Error
	if !errors.As(err, &je) {
		je = &Error{Fn: s.name, Err: err}
	}
	if !s.hasErr {
		panic(je)
	}
	out := make([]reflect.Value, s.typ.NumOut())
	for i := range out {
		out[i] = reflect.Zero(s.typ.Out(i))
	}
	out[len(out)-1] = reflect.ValueOf(error(je))
	return out
}

// call is the compiled function's body.
func (s *fnState) call(args []reflect.Value) []reflect.Value {
	if lazy.Tracing() {
		// Called from inside another traced function: inline.
		s.lazyCalls.Add(1)
		return s.fn.Call(args)
	}
	w := walkerPool.Get().(*walker)
	w.reset()
	defer walkerPool.Put(w)
	if s.reachesCaller {
		readCallerMem(s.name)
	}
	err := encodeArgs(w, s.codecs, args)
	if s.reachesCaller {
		callerMem.RUnlock()
	}
	if err != nil {
		s.lazyCalls.Add(1)
		return s.fail(err)
	}
	w.baseLen = len(w.key)
	var e *entry
	for {
		cs := s.mutCaps.Load()
		w.keyWith(cs)
		e = s.find(w.key)
		if e == nil && cs != nil {
			e = s.findEarlier(w, cs)
		}
		// A trace that ended after cs was loaded may have stored e and
		// made one of the arguments a written capture of it: e's graph
		// then reads that tensor twice. Make the key again.
		if e == nil || s.mutCaps.Load() == cs {
			break
		}
	}
	if e == nil {
		var err error
		if e, err = s.traceCall(args, w); err != nil {
			s.lazyCalls.Add(1)
			return s.fail(err)
		}
		s.last.Store(e)
	}
	// The output list is only picked from: it stays on the stack.
	var ob [outBufLen]*lazy.Tensor
	outs, ok, err := s.replayOrLazy(e, w.tensors, ob[:0])
	if !ok {
		s.lazyCalls.Add(1)
		if err != nil {
			return s.fail(err)
		}
		return s.fn.Call(args)
	}
	res := make([]reflect.Value, s.typ.NumOut())
	for i, p := range e.results {
		res[i] = p.build(outs, w.tensors, e.captures, args)
	}
	if s.hasErr {
		res[len(res)-1] = reflect.Zero(errorType)
	}
	return res
}

// traceCall is trace for call: a call whose trace panics (the function
// panicked) still counts in Stats.Calls, as the plain call happened.
func (s *fnState) traceCall(args []reflect.Value, w *walker) (e *entry, err error) {
	done := false
	defer func() {
		if !done {
			s.lazyCalls.Add(1)
		}
	}()
	e, err = s.trace(args, w)
	done = true
	return e, err
}

// find returns the entry of a guard key (nil for a new signature) and
// makes it the last one used.
func (s *fnState) find(key []byte) *entry {
	if e := s.last.Load(); e != nil && e.key == string(key) {
		return e
	}
	s.mu.RLock()
	e := s.entries[string(key)]
	s.mu.RUnlock()
	if e != nil {
		s.last.Store(e)
	}
	return e
}

// replayOrLazy replays e on args, the call's tensors, and counts the
// replay (and so the call); the outputs are appended to dst (the caller's
// buffer). ok is false when the call must run the function itself, in lazy
// mode: for a graph break, or when a host op's data-dependent result
// changed a later partition's shapes beyond what its recorded graph allows
// (every op still goes through the compile cache).
func (s *fnState) replayOrLazy(e *entry, args, dst []*lazy.Tensor) (outs []*lazy.Tensor, ok bool, err error) {
	if e.run == nil || s.gradThroughArgs(e, args) {
		return nil, false, nil
	}
	if e.plain != nil && lazy.DebugLevel() < 3 {
		outs, err = e.plain.RunInto(dst, args, e.captures)
	} else {
		outs, err = s.runEntry(e, args, dst)
	}
	if err != nil {
		return nil, false, s.replayError(err)
	}
	s.replays.Add(1)
	cJitReplay.Add(1)
	return outs, true, nil
}

// gradThroughArgs reports whether a call of e on args must run the
// function itself because the gradient it takes would flow through an
// argument's history before the call (the IR that computed it) into a
// tensor it takes the gradient with respect to: another argument, or a
// parameter the argument was computed from. The graph sees its arguments
// as leaves, as JAX's jit does, where the plain function, like PyTorch,
// differentiates through that history.
func (s *fnState) gradThroughArgs(e *entry, args []*lazy.Tensor) bool {
	if !e.grad || !lazy.HasHistory(args) {
		return false
	}
	var buf [8]*lazy.Tensor
	wrt := buf[:0]
	for _, i := range e.gradArgs {
		if i < len(args) {
			wrt = append(wrt, args[i])
		}
	}
	if !lazy.HistoryReaches(args, wrt, e.gradCaps) {
		return false
	}
	s.event("lazy call: the gradient flows through an argument's history before the call into a tensor it is taken with respect to")
	return true
}

// replayError is what a failed replay means for the call: nil when it must
// run lazily instead (a host result changed later shapes), else err.
func (s *fnState) replayError(err error) error {
	var re *respecializeError
	if errors.As(err, &re) {
		s.event("lazy call: %v", re)
		return nil
	}
	return err
}

// direct returns the executable a fast call runs itself (a plain program
// that bridge.Program.Direct runs as its executable), or nil.
func (e *entry) direct() *lazy.Executable {
	if e.plain == nil || lazy.DebugLevel() >= 3 {
		return nil
	}
	return e.plain.Direct()
}

func encodeArgs(w *walker, codecs []codec, args []reflect.Value) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *Error:
				err = e
			case errArgTooDeep:
				err = deepArgError(args)
			default:
				panic(r)
			}
		}
	}()
	for i, c := range codecs {
		c(w, args[i])
	}
	appendArgAliases(w, args)
	return nil
}

// appendArgAliases adds to the guard key the arguments that are another
// argument again (the same pointer, map, or slice of one array, length and
// capacity; tensors have their own aliasing keys): a result that is one of
// them is then the same for every call the entry serves (planCallArg).
func appendArgAliases(w *walker, args []reflect.Value) {
	for i, a := range args {
		switch a.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice:
		default:
			continue
		}
		if a.IsNil() || a.Type() == tensorPtrType {
			continue
		}
		for j, b := range args[:i] {
			if b.Type() == a.Type() && !b.IsNil() && b.Pointer() == a.Pointer() &&
				(a.Kind() != reflect.Slice || (a.Len() == b.Len() && a.Cap() == b.Cap())) {
				w.tag('P')
				w.varint(int64(i))
				w.varint(int64(j))
				break
			}
		}
	}
}

// trace handles a new input signature: trace, partition, compile, and store
// the entry. Concurrent callers with the same signature wait for one trace.
func (s *fnState) trace(args []reflect.Value, w *walker) (_ *entry, err error) {
	if s.reachesCaller {
		// A trace puts stand-ins into the caller's memory (or, tracing
		// again without them, writes the caller's tensors there): calls
		// of every compiled function walking it wait (callerMem). Taken
		// before traceMu, so that a trace waiting for it holds nothing
		// another trace's Explain could want.
		lockCallerMem(s.name)
		defer unlockCallerMem()
	}
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	beginTrace()
	defer endTrace()
	// The key was made before this call waited for traceMu: a trace that
	// ended meanwhile may have made an argument a written capture (only
	// traces, under traceMu, add to the set). Make it again; the entry
	// that trace stored may serve the call.
	cs := s.mutCaps.Load()
	w.keyWith(cs)
	key := string(w.key)
	s.mu.RLock()
	e := s.entries[key]
	s.mu.RUnlock()
	if e == nil && cs != nil {
		e = s.findEarlier(w, cs)
	}
	if e != nil {
		return e, nil
	}
	guard := describe(args)
	notes := aliasNotes(args, s.mutCaps.Load())
	e = &entry{key: key, guard: guard, notes: notes, keyCaps: w.nCaps}
	s.mu.RLock()
	n := len(s.entries) - s.rekeyed
	s.mu.RUnlock()
	if s.limited || n >= s.opts.recompileLimit {
		if s.opts.fullGraph {
			return nil, &Error{Fn: s.name, Msg: fmt.Sprintf("recompile limit %d reached (%s)", s.opts.recompileLimit, s.diff(guard, notes))}
		}
		if !s.limited {
			log.Printf("xlajit: warning: %s was traced for %d input signatures; new signatures run in lazy mode (raise jit.WithRecompileLimit)", s.name, s.opts.recompileLimit)
			s.limited = true
		}
		s.event("lazy fallback (recompile limit): %s", s.diff(guard, notes))
		s.store(e)
		return e, nil
	}
	// Writing replays of this function wait until the trace has undone
	// its assignments.
	s.replayMu.Lock()
	defer s.replayMu.Unlock()
	if err := lazy.Sync(w.tensors...); err != nil {
		return nil, err
	}
	// What tracing, discovery and compiling count is added to the
	// counters when an entry results, and dropped on failure.
	endCount := lazy.BeginCountScope()
	fullGraphBreak := false
	defer func() {
		endCount(err == nil)
		if fullGraphBreak {
			// The break fails the call under FullGraph, but it
			// happened: the metric counts it as StatsOf does.
			lazy.AddCounter(lazy.MetricJITGraphBreak, 1)
		}
	}()
	tr, err := s.traceOnce(args, w.tensors, true)
	if err == nil && len(tr.aliased) > 0 && len(tr.traced.Graph.Output().Mutations) > 0 {
		// The function reaches an argument through a closure variable too,
		// and writes: the graph must be the aliased one. Trace again on the
		// tensors themselves, and key the entry by the aliasing.
		caps := s.mutCaps.Load().with(tr.aliased)
		s.mutCaps.Store(caps)
		w.keyWith(caps)
		key = string(w.key)
		s.mu.RLock()
		old := s.entries[key]
		s.mu.RUnlock()
		if old != nil {
			return old, nil
		}
		notes = aliasNotes(args, caps)
		e = &entry{key: key, guard: guard, notes: notes, keyCaps: w.nCaps}
		tr, err = s.traceOnce(args, w.tensors, false)
	}
	var traced *bridge.Traced
	var rp *resultPlanner
	tensors := w.tensors
	if tr != nil {
		traced, rp, tensors = tr.traced, tr.rp, tr.tensors
		e.results = tr.results
	}
	var be *bridge.BreakError
	switch {
	case errors.As(err, &be):
		s.breaks.Add(1)
		s.event("graph break: %s at %s", be.Break.Reason, be.Break.Site)
		if s.opts.fullGraph {
			fullGraphBreak = true
			return nil, &Error{Fn: s.name, Err: err}
		}
		lazy.AddCounter(lazy.MetricJITGraphBreak, 1)
		e.results = nil
		s.store(e)
		return e, nil
	case err != nil:
		return nil, err
	}
	run, compiled, err := s.build(traced, tensors)
	if err != nil {
		return nil, err
	}
	s.traces.Add(1)
	lazy.AddCounter(lazy.MetricJITTrace, 1)
	if n := s.traces.Load(); n > 1 {
		s.recompiles.Add(1)
		lazy.AddCounter(lazy.MetricJITRecompile, 1)
		why := s.diff(guard, notes) + s.recompileHint(guard)
		s.event("recompile %d: %s", n-1, why)
		if i, ok := firstGuardDiff(s.lastG, guard); ok && i >= 0 && i < len(s.lastG) && guard[i].kind == 'f' && !s.warnedFloat {
			s.warnedFloat = true
			log.Printf("xlajit: warning: %s traced again because %s", s.name, why)
		}
	} else {
		s.event("trace: %s", guardString(guard, notes))
	}
	for _, r := range reshardEvents(run) {
		s.event("%s", r)
	}
	s.lastG, s.lastN = guard, notes
	s.compiles.Add(int64(compiled))
	e.run, e.captures = run, originals(traced.Graph.Captures)
	e.gradArgs, e.gradCaps = traced.GradArgs, originals(traced.GradCaptures)
	e.grad = len(e.gradArgs)+len(e.gradCaps) > 0
	for _, c := range e.captures {
		if c == c.Device().RNGState() {
			e.rng = c.Device().RNGLock()
		}
	}
	if out := traced.Graph.Output(); out != nil && len(out.Mutations) > 0 {
		e.mutates = true
		e.capStripes = stripeMask(e.captures)
		s.mutCaps.Store(s.mutCaps.Load().with(e.captures))
	}
	out := traced.Graph.Output()
	e.fresh = identify(e.results, tensors, e.captures, rp.tensors, traced.Created,
		func(slot int) bool { return out.Args[slot].Node.Kind == fx.Placeholder })
	if p, ok := run.(*bridge.Program); ok && !e.mutates && e.rng == nil && len(e.fresh) == 0 {
		e.plain = p
	}
	if lazy.DebugLevel() >= 1 {
		log.Printf("xlajit: jit trace %s: %s (%d device program(s))", s.name, guardString(guard, notes), compiled)
	}
	s.store(e)
	return e, nil
}

// traceResult is what one run of the function under a trace recorded.
type traceResult struct {
	traced   *bridge.Traced
	results  []*outPlan
	rp       *resultPlanner
	replaced []binding
	// tensors are the argument tensors the graph's argument placeholders
	// stand for (proxies when used); aliased are captured tensors that are
	// also arguments (reached through a closure variable too).
	tensors []*lazy.Tensor
	aliased []*lazy.Tensor
}

// traceOnce runs the function under bridge.Trace, on proxies of its
// argument tensors when useProxies is set (see proxy.go).
func (s *fnState) traceOnce(args []reflect.Value, argTensors []*lazy.Tensor, useProxies bool) (*traceResult, error) {
	tr := &traceResult{rp: &resultPlanner{slots: map[*lazy.Tensor]int{}, args: args}, tensors: argTensors}
	callArgs := args
	if useProxies {
		var ps *proxySet
		callArgs, ps = installProxies(args)
		defer ps.restore()
		tr.tensors = make([]*lazy.Tensor, len(argTensors))
		for i, t := range argTensors {
			tr.tensors[i] = ps.proxy(t)
		}
		defer func() {
			if tr.traced == nil {
				return
			}
			for _, c := range tr.traced.Graph.Captures {
				if ps.of[c] != nil {
					tr.aliased = append(tr.aliased, c)
				}
			}
		}()
	}
	bindings := bindingsOf(callArgs)
	traced, err := bridge.Trace(tr.tensors, func() ([]*lazy.Tensor, error) {
		rs := s.fn.Call(callArgs)
		if tr.replaced = rebound(bindings); len(tr.replaced) > 0 {
			restore(tr.replaced)
			if s.opts.fullGraph {
				return nil, &Error{Fn: s.name, Msg: reboundMessage(tr.replaced)}
			}
			return nil, &bridge.BreakError{Break: bridge.Break{Reason: reboundMessage(tr.replaced), Site: s.name}}
		}
		if s.hasErr {
			if errv := rs[len(rs)-1]; !errv.IsNil() {
				return nil, errv.Interface().(error)
			}
			rs = rs[:len(rs)-1]
		}
		for i, r := range rs {
			p, err := tr.rp.plan(r, 0)
			if err != nil {
				return nil, fmt.Errorf("result %d: %w", i, err)
			}
			tr.results = append(tr.results, p)
		}
		return tr.rp.tensors, nil
	}, bridge.TraceOptions{})
	tr.traced = traced
	return tr, err
}

// recompileHint suggests a fix when recompiles keep coming from one
// tensor's leading dimension (batches of varying size).
func (s *fnState) recompileHint(guard []guardItem) string {
	i, ok := firstGuardDiff(s.lastG, guard)
	if !ok || i < 0 || i >= len(s.lastG) || guard[i].kind != 't' || s.lastG[i].path != guard[i].path {
		return ""
	}
	old, cur := s.lastG[i].value, guard[i].value
	if leadingDim(old) == leadingDim(cur) || restDims(old) != restDims(cur) {
		return ""
	}
	if s.leadChanges == nil {
		s.leadChanges = map[string]int{}
	}
	s.leadChanges[guard[i].path]++
	if n := s.leadChanges[guard[i].path]; n >= 2 {
		return fmt.Sprintf(" (the leading dimension of %s changed in %d traces: pad batches to one size or bucket the sizes, so that few sizes are traced; a data loader's drop-last or padding does it)", guard[i].path, n)
	}
	return ""
}

// diff says how a new signature differs from the last traced one.
func (s *fnState) diff(guard []guardItem, notes []string) string {
	if d := notesDiff(s.lastN, notes); d != "" {
		if g := diffGuards(s.lastG, guard); g != "no difference" {
			return g + "; " + d
		}
		return d
	}
	return diffGuards(s.lastG, guard)
}

func (s *fnState) store(e *entry) {
	s.mu.Lock()
	s.entries[e.key] = e
	s.mu.Unlock()
}

// maxEvents bounds what Explain keeps per function (a long-running program
// whose host results change size would otherwise grow the list forever).
const maxEvents = 256

func (s *fnState) event(format string, args ...any) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if len(s.events) >= maxEvents {
		s.dropped++
		return
	}
	s.events = append(s.events, fmt.Sprintf(format, args...))
}

func guardString(g []guardItem, notes []string) string {
	var b strings.Builder
	for i, it := range g {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.path)
		b.WriteByte('=')
		b.WriteString(it.value)
	}
	if b.Len() == 0 {
		b.WriteString("no inputs")
	}
	for _, n := range notes {
		b.WriteString("; ")
		b.WriteString(n)
	}
	return b.String()
}

// device picks the device of a trace: that of the first tensor argument.
func device(tensors []*lazy.Tensor) *lazy.Device {
	for _, t := range tensors {
		if t != nil {
			return t.Device()
		}
	}
	return lazy.DefaultDevice()
}

// build compiles the traced graph into a runner: one program, or stages
// of device partitions and host nodes when the device cannot run every op.
func (s *fnState) build(tr *bridge.Traced, tensors []*lazy.Tensor) (runner, int, error) {
	dev := device(tensors)
	if host := partitioner.Discover(tr.Graph, dev); len(host) > 0 {
		return newStaged(s, tr.Graph, host, dev)
	}
	p, err := bridge.CompileTraced(tr, dev)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	if p.Compiled() {
		n = 1
	}
	return p, n, nil
}

// cJitReplay is resolved once: by name, counting takes a lock and a map
// lookup on every replay (RATIONALE: the jit's fast path).
var cJitReplay = lazy.CounterFor(lazy.MetricJITReplay)

// runEntry runs e's program on the arguments. A replay that writes holds,
// while it runs, the locks of every tensor it reads or writes (and the RNG
// lock when it draws random numbers), so concurrent writing calls are
// linearizable.
func (s *fnState) runEntry(e *entry, args, dst []*lazy.Tensor) ([]*lazy.Tensor, error) {
	if e.mutates {
		s.replayMu.RLock()
		defer s.replayMu.RUnlock()
	}
	if e.rng != nil {
		e.rng.Lock()
		defer e.rng.Unlock()
	}
	if e.mutates {
		m := e.capStripes | stripeMask(args)
		lockStripes(m)
		defer unlockStripes(m)
	}
	if lazy.DebugLevel() >= 3 {
		log.Printf("xlajit: jit replay %s", s.name)
	}
	outs, err := runOn(e.run, dst, args, e.captures)
	if err == nil && len(e.fresh) > 0 {
		outs = append([]*lazy.Tensor(nil), outs...)
		for _, k := range e.fresh {
			outs[k] = outs[k].Share()
		}
	}
	return outs, err
}

var argPool = sync.Pool{New: func() any { s := make([]*lazy.Tensor, 0, 8); return &s }}

// runOn runs r on args and captures. A program is called as itself, so
// that args and dst, where it appends the outputs, can stay on its
// caller's stack (an argument of an interface call escapes); another
// runner gets a pooled copy of args.
func runOn(r runner, dst, args, captures []*lazy.Tensor) ([]*lazy.Tensor, error) {
	if p, ok := r.(*bridge.Program); ok {
		return p.RunInto(dst, args, captures)
	}
	bp := argPool.Get().(*[]*lazy.Tensor)
	buf := append((*bp)[:0], args...)
	outs, err := r.Run(buf, captures)
	clear(buf)
	*bp = buf[:0]
	argPool.Put(bp)
	return outs, err
}
