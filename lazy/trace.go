package lazy

// Tracer observes lazy activity while the jit traces a function (package
// bridge implements it). Each goroutine has at most one active trace.
type Tracer interface {
	// OnAssign is called before an input of the trace (an argument or
	// captured tensor, not a tensor the function made) is overwritten,
	// with its previous state.
	OnAssign(t *Tensor, before TensorState)
	// OnCut is called when user code forces a cut (Item, Float32s, Sync,
	// String, ...) inside the traced function. It may panic to abort the
	// trace (a graph break).
	OnCut(reason, site string)
	// OnSync is called after a cut computed tensors: before[i] is the IR
	// value ts[i] held, now replaced by device data.
	OnSync(ts []*Tensor, before []Value)
	// OnHostOp is called after a host-only op ran: its inputs (as IR values
	// before they were computed), attributes and the output tensors.
	OnHostOp(op *OpDef, a Attrs, in []Value, out []*Tensor)
	// OnHostNode is called when a host-only op with declared output shapes
	// is recorded as IR without running (v is its first output).
	OnHostNode(v Value)
	// OnCreate is called when the traced function makes a tensor from host
	// data (FromSlice, FromLiteral): a constant of the trace, local to the
	// function.
	OnCreate(t *Tensor)
	// OnGrad is called when the traced function takes a gradient (Grad,
	// GradWith), with xs the inputs of the trace (not tensors it computed
	// or made) among the tensors it differentiates with respect to: the
	// history of its arguments before the call, which the graph does not
	// hold, may reach them (HistoryReaches).
	OnGrad(xs []*Tensor)
}

// traces holds each tracing goroutine's trace. Goroutines trace
// independently: a trace never waits for another goroutine's trace.
var traces goroutineMap[traceState]

// traceState is one active trace.
type traceState struct {
	t Tracer
	// start is the last node sequence number before the trace began:
	// pending values older than that were computed outside the function.
	start uint64
	// created are the tensors the function made from host data; locals
	// are tensors the function made and then wrote into; written are the
	// other tensors it wrote into (inputs: arguments and captures).
	created, locals, written map[*Tensor]bool
	// madeBefore are the contents of tensors made from host data before
	// the function wrote into them: they are constants of the trace (its
	// graph reads them as captures), so they get them back when the trace
	// ends.
	madeBefore map[*Tensor]TensorState
	// computed is the device data the trace computed from its own IR: a
	// host op's operands, computed by the cut before it, and its results.
	// The tracer maps them back to that IR (OnSync, OnHostOp): they are
	// values of the graph, not data frozen into it.
	computed map[*deviceData]bool
	// splats are the constants Go numbers applied to tensors became
	// (Tensor.number), by value, type and shape: one node each per trace
	// (see traceState.splat).
	splats map[traceSplatKey]*Tensor
}

// local reports whether writing into t (whose contents are before) is a
// write to a tensor the traced function made itself, not to an input:
// one made from host data or by an op of the trace, never written as an
// input before.
func (st *traceState) local(t *Tensor, before TensorState) bool {
	if st.written[t] {
		return false
	}
	if st.locals[t] || st.created[t] {
		return true
	}
	return before.val.Node != nil && before.val.Node.seq > st.start
}

// recorded reports whether s is IR the trace recorded or data it computed
// from it (or nothing), not other device data or IR built before the
// trace.
func (st *traceState) recorded(s TensorState) bool {
	return (s.data == nil || st.computed[s.data]) && (s.val.Node == nil || s.val.Node.seq > st.start)
}

// keepLocal records that t, a tensor the function made whose contents were
// before, is about to be written: it stays the function's own whatever it
// holds next, and a constant gets its contents back when the trace ends.
func (st *traceState) keepLocal(t *Tensor, before TensorState) {
	st.locals[t] = true
	if _, saved := st.madeBefore[t]; !saved && st.created[t] {
		st.madeBefore[t] = before
	}
}

// onAssign records a write into t during the trace: locals only in the
// trace state, inputs through the tracer.
func (st *traceState) onAssign(t *Tensor) {
	before := t.state()
	if st.local(t, before) {
		st.keepLocal(t, before)
		return
	}
	st.written[t] = true
	st.t.OnAssign(t, before)
}

// BeginTrace makes tr the calling goroutine's tracer until end is called.
// Traces on other goroutines go on meanwhile; a goroutine traces one
// function at a time (BeginTrace panics on a goroutine already tracing).
// Node call sites are recorded while any trace is active.
func BeginTrace(tr Tracer) (end func()) {
	id := goid()
	st := &traceState{t: tr, start: nodeSeq.Load(), created: map[*Tensor]bool{}, locals: map[*Tensor]bool{},
		written: map[*Tensor]bool{}, madeBefore: map[*Tensor]TensorState{}, computed: map[*deviceData]bool{}}
	if traces.get() != nil {
		panic(&Error{Op: "BeginTrace", Msg: "this goroutine is already tracing a function"})
	}
	traces.set(id, st)
	captureSites.Add(1)
	return func() {
		for t, s := range st.madeBefore {
			t.restore(s)
		}
		captureSites.Add(-1)
		traces.set(id, nil)
	}
}

// currentTrace returns the calling goroutine's trace, or nil.
func currentTrace() *traceState { return traces.get() }

func currentTracer() Tracer {
	if st := currentTrace(); st != nil {
		return st.t
	}
	return nil
}

// Tracing reports whether the calling goroutine is tracing a function.
func Tracing() bool { return currentTrace() != nil }

// anyTrace reports whether some goroutine is tracing (buffers are not
// donated then: a trace may give a tensor its old buffer back).
func anyTrace() bool { return traces.any() }

// SyncExternal computes tensors used during a trace whose
// pending IR was built before the trace began (values the function reads
// but did not compute, such as a weight updated lazily by the caller), so
// that they enter the trace as device data of their tensor.
func SyncExternal(inputs []*Tensor) { syncExternal(currentTrace(), inputs) }

// syncExternal is SyncExternal in the trace st (nil: none).
func syncExternal(st *traceState, inputs []*Tensor) {
	if st == nil {
		return
	}
	start := st.start
	var ext []*Tensor
	for _, t := range inputs {
		// A pending tensor has IR; IR built during the trace is its own
		// (the cheap test first: most operands of a trace are).
		if t == nil || t.data != nil || t.val.Node != nil && t.val.Node.seq > start || st.locals[t] || st.written[t] {
			continue // computed, or a value of the trace
		}
		if l := t.val.Node; l.data != nil {
			// It was assigned another tensor: it holds that tensor's
			// buffer, and nothing needs computing.
			t.setData(l.data)
			t.val = Value{}
			continue
		}
		ext = append(ext, t)
	}
	if len(ext) > 0 {
		mustSync("internal:TraceInput", ext...)
	}
}
