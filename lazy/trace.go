package lazy

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Tracer observes lazy activity while the jit traces a function (package
// bridge implements it). One trace runs at a time in a process.
type Tracer interface {
	// OnAssign is called before t is overwritten, with its previous state.
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
}

var (
	traceMu     sync.Mutex
	activeTrace atomic.Pointer[tracerBox]
	// traceStart is the last node sequence number before the active trace:
	// pending values older than that were computed outside the function.
	traceStart atomic.Uint64
)

type tracerBox struct {
	t    Tracer
	goid uint64 // the tracing goroutine: other goroutines are not traced
}

// goid returns the current goroutine's id (parsed from its stack header;
// only called while a trace is active).
func goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	s := buf[:n]
	const prefix = "goroutine "
	if len(s) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range s[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// BeginTrace makes tr the active tracer until end is called; it waits while
// another trace is active. Node call sites are recorded meanwhile.
func BeginTrace(tr Tracer) (end func()) {
	traceMu.Lock()
	traceStart.Store(nodeSeq.Load())
	activeTrace.Store(&tracerBox{t: tr, goid: goid()})
	captureSites.Add(1)
	return func() {
		captureSites.Add(-1)
		activeTrace.Store(nil)
		traceMu.Unlock()
	}
}

func currentTracer() Tracer {
	if b := activeTrace.Load(); b != nil && b.goid == goid() {
		return b.t
	}
	return nil
}

// Tracing reports whether the calling goroutine is tracing a function.
func Tracing() bool {
	b := activeTrace.Load()
	return b != nil && b.goid == goid()
}

// SyncExternal computes tensors used during a trace whose
// pending IR was built before the trace began (values the function reads
// but did not compute, such as a weight updated lazily by the caller), so
// that they enter the trace as device data of their tensor.
func SyncExternal(inputs []*Tensor) {
	start := traceStart.Load()
	var ext []*Tensor
	for _, t := range inputs {
		if t != nil && t.data == nil && t.val.Node.seq <= start {
			ext = append(ext, t)
		}
	}
	if len(ext) > 0 {
		mustSync("internal:TraceInput", ext...)
	}
}
