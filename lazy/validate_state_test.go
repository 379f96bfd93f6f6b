package lazy

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
)

// The state a rejected op must leave as it was: IR (the node sequence, the
// uses of every watched tensor's node, device-data leaves), counters, the
// RNG state, the compile cache and the watched tensors' contents.

type tensorSnap struct {
	st     TensorState
	leaf   *Node
	uses   int32 // uses of the pending node
	leaves int   // device-data leaves of the data
	origin Value
}

func snapTensor(t *Tensor) tensorSnap {
	s := tensorSnap{st: t.State(), leaf: t.leaf.Load(), origin: t.origin}
	if t.val.Node != nil {
		s.uses = t.val.Node.uses.Load()
	}
	if t.data != nil {
		t.data.mu.Lock()
		s.leaves = len(t.data.leaves())
		t.data.mu.Unlock()
	}
	return s
}

type lazySnap struct {
	seq      uint64
	counters map[string]int64
	rng      *Tensor
	rngState tensorSnap
	cache    int
	tensors  []tensorSnap
}

// snapState records the state; watch lists the tensors whose contents and
// IR bookkeeping must not change.
func snapState(watch []*Tensor) lazySnap {
	d := DefaultDevice()
	rng := d.RNGState()
	s := lazySnap{seq: nodeSeq.Load(), counters: map[string]int64{}, rng: rng, rngState: snapTensor(rng), cache: CacheLen(d)}
	for k, v := range CounterSnapshot() {
		if v != 0 {
			s.counters[k] = v
		}
	}
	for _, t := range watch {
		s.tensors = append(s.tensors, snapTensor(t))
	}
	return s
}

// diff says what changed between a and b ("" when nothing did).
func (a lazySnap) diff(b lazySnap) string {
	var out []string
	if a.seq != b.seq {
		out = append(out, fmt.Sprintf("%d IR nodes made", b.seq-a.seq))
	}
	if !reflect.DeepEqual(a.counters, b.counters) {
		var ks []string
		for k, v := range b.counters {
			if a.counters[k] != v {
				ks = append(ks, fmt.Sprintf("%s %d->%d", k, a.counters[k], v))
			}
		}
		for k, v := range a.counters {
			if _, ok := b.counters[k]; !ok {
				ks = append(ks, fmt.Sprintf("%s %d->0", k, v))
			}
		}
		sort.Strings(ks)
		out = append(out, "counters "+strings.Join(ks, ", "))
	}
	if a.rng != b.rng || a.rngState != b.rngState {
		out = append(out, "RNG state changed")
	}
	if a.cache != b.cache {
		out = append(out, fmt.Sprintf("compile cache %d->%d entries", a.cache, b.cache))
	}
	for i := range a.tensors {
		if a.tensors[i] != b.tensors[i] {
			out = append(out, fmt.Sprintf("watched tensor %d changed (%+v -> %+v)", i, a.tensors[i], b.tensors[i]))
		}
	}
	return strings.Join(out, "; ")
}

// countingTracer is a Tracer that counts what it is told (a rejected op
// must tell it nothing).
type countingTracer struct{ assigns, cuts, syncs, hostOps, creates int }

func (c *countingTracer) OnAssign(t *Tensor, before TensorState)     { c.assigns++ }
func (c *countingTracer) OnCut(reason, site string)                  { c.cuts++ }
func (c *countingTracer) OnSync(ts []*Tensor, before []Value)        { c.syncs++ }
func (c *countingTracer) OnHostOp(*OpDef, Attrs, []Value, []*Tensor) { c.hostOps++ }
func (c *countingTracer) OnCreate(*Tensor)                           { c.creates++ }
func (c *countingTracer) OnHostNode(Value)                           { c.hostOps++ }
func (c *countingTracer) OnGrad([]*Tensor)                           {}
func (c *countingTracer) total() int {
	return c.assigns + c.cuts + c.syncs + c.hostOps + c.creates
}

// siteOf is the file:line of fn's first line (a case's call site).
func siteOf(fn func()) string {
	f, l := lineOf(fn)
	return fmt.Sprintf("%s:%d", shortFile(f), l)
}

// tryOrBug is Try that also recovers what Try lets through (a bug); the
// bug's stack is left in lastBugStack.
func tryOrBug(fn func()) (err error, bug any) {
	defer func() {
		if r := recover(); r != nil {
			bug = r
			lastBugStack = string(debug.Stack())
		}
	}()
	return Try(fn), nil
}

var lastBugStack string

// checkBadCall runs c.fn, which must panic with an *Error whose Op is
// c.op, whose message contains c.msg, whose Site is the line of c.fn, and
// which leaves the state unchanged.
func checkBadCall(t *testing.T, c errCase, watch []*Tensor, tr *countingTracer) {
	t.Helper()
	site := siteOf(c.fn)
	before := snapState(watch)
	traced := 0
	if tr != nil {
		traced = tr.total()
	}
	err, bug := tryOrBug(c.fn)
	after := snapState(watch)
	if bug != nil {
		t.Errorf("%s: panicked with %T %v, want a *lazy.Error", site, bug, bug)
		return
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Errorf("%s: got %v (%T), want a *lazy.Error", site, err, err)
		return
	}
	if le.Op != c.op {
		t.Errorf("%s: Op %q, want %q (%v)", site, le.Op, c.op, le)
	}
	if c.shapes != nil && !reflect.DeepEqual(le.Shapes, c.shapes) {
		t.Errorf("%s: Shapes %q, want %q (%v)", site, le.Shapes, c.shapes, le)
	}
	if !strings.Contains(le.Msg, c.msg) {
		t.Errorf("%s: message %q does not mention %q", site, le.Msg, c.msg)
	}
	if le.Site != site {
		t.Errorf("%s: Site %q (%v)", site, le.Site, le)
	}
	if d := before.diff(after); d != "" {
		t.Errorf("%s: rejected %s changed the state: %s", site, c.op, d)
	}
	if tr != nil && tr.total() != traced {
		t.Errorf("%s: rejected %s reached the tracer (%+v)", site, c.op, *tr)
	}
}
