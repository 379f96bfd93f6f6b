package bridge_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

func vals(t *lazy.Tensor) string { return fmt.Sprint(t.Float32s()) }

func freshDevice(t *testing.T) *lazy.Device {
	t.Helper()
	dev := lazy.DevicesOf(host.NewClient(1))[0]
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(dev)
	t.Cleanup(func() { lazy.SetDefaultDevice(old) })
	return dev
}

// counts runs fn and returns how many programs were compiled and executed.
func counts(fn func()) (compiled, executed int64) {
	c0, e0 := lazy.Counter(lazy.MetricUncachedCompile), lazy.Counter(lazy.MetricExecuteCount)
	fn()
	return lazy.Counter(lazy.MetricUncachedCompile) - c0, lazy.Counter(lazy.MetricExecuteCount) - e0
}

// A trace records, converts and undoes: the input written inside the
// function holds its old contents again, nothing executes, and the graph
// has the write as a mutation.
func TestTraceUndoesAndExecutesNothing(t *testing.T) {
	freshDevice(t)
	a := lazy.FromSlice([]float32{1, 2})
	w := lazy.FromSlice([]float32{10, 20})
	before := a.State()
	var tr *bridge.Traced
	_, executed := counts(func() {
		var err error
		tr, err = bridge.Trace([]*lazy.Tensor{a}, func() ([]*lazy.Tensor, error) {
			a.Assign(a.Add(w))
			return []*lazy.Tensor{a.MulScalar(2)}, nil
		}, bridge.TraceOptions{})
		if err != nil {
			t.Fatal(err)
		}
	})
	if executed != 0 {
		t.Errorf("the trace executed %d programs", executed)
	}
	if !a.State().SameData(before) || vals(a) != "[1 2]" {
		t.Errorf("a = %s after the trace, want [1 2] as before", vals(a))
	}
	out := tr.Graph.Output()
	if len(out.Mutations) != 1 || out.Mutations[0].Target.Input != fx.Arg || len(tr.Graph.Captures) != 1 || tr.Graph.Captures[0] != w {
		t.Errorf("graph:\n%s", tr.Graph)
	}
}

// Compile lowers and compiles without executing; Run replays, writes the
// mutation back and returns the outputs; a second Compile of the same
// graph is a cache hit.
func TestCompileAndRun(t *testing.T) {
	dev := freshDevice(t)
	a := lazy.FromSlice([]float32{1, 2})
	w := lazy.FromSlice([]float32{10, 20})
	tr, err := bridge.Trace([]*lazy.Tensor{a}, func() ([]*lazy.Tensor, error) {
		a.Assign(a.Add(w))
		return []*lazy.Tensor{a.MulScalar(2)}, nil
	}, bridge.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var p *bridge.Program
	compiled, executed := counts(func() {
		if p, err = bridge.Compile(tr.Graph, dev); err != nil {
			t.Fatal(err)
		}
	})
	if compiled != 1 || executed != 0 || !p.Compiled() || !p.Mutates() {
		t.Errorf("Compile: %d compiled, %d executed, compiled=%v mutates=%v", compiled, executed, p.Compiled(), p.Mutates())
	}
	for i := 1; i <= 3; i++ {
		outs, err := p.Run([]*lazy.Tensor{a}, tr.Graph.Captures)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint([]float32{float32(1+10*i) * 2, float32(2+20*i) * 2})
		if got := vals(outs[0]); got != want {
			t.Errorf("run %d: out = %s, want %s", i, got, want)
		}
	}
	if got := vals(a); got != "[31 62]" {
		t.Errorf("a = %s after three runs, want [31 62]", got)
	}
	if compiled, _ := counts(func() { bridge.Compile(tr.Graph, dev) }); compiled != 0 {
		t.Errorf("compiling the same graph again compiled %d programs", compiled)
	}
	if _, err := p.Run(nil, tr.Graph.Captures); err == nil {
		t.Errorf("Run with a missing argument: no error")
	}
}

// Outputs: an input returned unchanged is that input; two outputs of one
// value are two tensors; an input passed through and written comes back
// with its old value; a swap of two inputs reads both before writing.
func TestRunOutputsAndWriteBack(t *testing.T) {
	dev := freshDevice(t)
	a := lazy.FromSlice([]float32{1})
	b := lazy.FromSlice([]float32{2})
	tr, err := bridge.Trace([]*lazy.Tensor{a, b}, func() ([]*lazy.Tensor, error) {
		s := a.Add(b)
		s2 := s.MulScalar(1)
		s2.Assign(s)
		old := lazy.FromSlice([]float32{0})
		old.Assign(a)
		a.Assign(b) // swap
		b.Assign(old)
		return []*lazy.Tensor{b, s, s2, old}, nil
	}, bridge.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bridge.Compile(tr.Graph, dev)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := p.Run([]*lazy.Tensor{a, b}, tr.Graph.Captures)
	if err != nil {
		t.Fatal(err)
	}
	if vals(a) != "[2]" || vals(b) != "[1]" {
		t.Errorf("after the swap a = %s, b = %s", vals(a), vals(b))
	}
	if outs[1] == outs[2] || vals(outs[1]) != "[3]" || vals(outs[2]) != "[3]" {
		t.Errorf("two outputs of one value: %p %p %s %s", outs[1], outs[2], vals(outs[1]), vals(outs[2]))
	}
	// b ends holding a's old value, and old is a's old value: both read a
	// before the swap wrote it.
	if vals(outs[0]) != "[1]" || vals(outs[3]) != "[1]" || outs[0] == a || outs[3] == a {
		t.Errorf("a's old value passed through: %s %s, want [1] [1] in tensors other than a", vals(outs[0]), vals(outs[3]))
	}
}

// A read of a tensor value inside the function is a graph break naming the
// read and its call site, and the trace still undoes its writes.
func TestTraceGraphBreak(t *testing.T) {
	freshDevice(t)
	a := lazy.FromSlice([]float32{1})
	_, err := bridge.Trace([]*lazy.Tensor{a}, func() ([]*lazy.Tensor, error) {
		a.Assign(a.AddScalar(1))
		_ = a.Item()
		return nil, nil
	}, bridge.TraceOptions{})
	var be *bridge.BreakError
	if !errors.As(err, &be) || be.Break.Reason != "Item" || be.Break.Site == "" || !errors.Is(err, bridge.ErrGraphBreak) {
		t.Fatalf("err = %v, want a graph break at Item", err)
	}
	if vals(a) != "[1]" {
		t.Errorf("a = %s after the broken trace", vals(a))
	}
}
