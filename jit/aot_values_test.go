package jit

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

type aotModel struct {
	W, B   *lazy.Tensor
	Layers []*lazy.Tensor
	Steps  *lazy.Tensor // written by the function
	Scale  float64      // a plain value: part of the guard
}

func aotForward(m *aotModel, x *lazy.Tensor) *lazy.Tensor {
	m.Steps.Assign(m.Steps.AddScalar(1))
	h := x.MatMul(m.W).Add(m.B)
	for _, l := range m.Layers {
		h = h.MatMul(l).ReLU()
	}
	return h.MulScalar(m.Scale)
}

func newAOTModel(scale float64) *aotModel {
	m := &aotModel{W: lazy.RandN(lazy.F32, 3, 4), B: lazy.RandN(lazy.F32, 4), Layers: []*lazy.Tensor{lazy.RandN(lazy.F32, 4, 4)},
		Steps: lazy.Zeros(lazy.F32), Scale: scale}
	if err := lazy.Sync(m.W, m.B, m.Layers[0], m.Steps); err != nil {
		panic(err)
	}
	return m
}

// TestAOTValues traces a function of a model struct ahead of time: calls
// with the traced structure, plain values and shapes replay (writing the
// model's mutated tensor), others go through jit.Compile, and CheckAOT
// retraces it from the recorded example arguments.
func TestAOTValues(t *testing.T) {
	lazy.ManualSeed(4)
	args := func() []any { return []any{newAOTModel(2), lazy.NewShape(lazy.F32, 5, 3)} }
	spec, _, err := TraceAOTValues("aotForward", aotForward, args()...)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Guard == "" || !strings.Contains(spec.Graph, "f32[5,3]") {
		t.Fatalf("guard %q, graph:\n%s", spec.Guard, spec.Graph)
	}
	spec.Args = args
	a, err := LoadAOT(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := newAOTModel(2)
	x := lazy.RandN(lazy.F32, 5, 3)
	want := func() []float32 {
		c := &aotModel{W: m.W, B: m.B, Layers: m.Layers, Steps: lazy.Zeros(lazy.F32), Scale: m.Scale}
		return aotForward(c, x).Float32s()
	}()
	outs, err := a.Call(m, x)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].Float32s(); !slices.Equal(got, want) {
		t.Errorf("replay %v, want %v", got, want)
	}
	a.Call(m, x)
	if s := a.Stats(); s.Replays != 2 || s.Traces != 0 {
		t.Errorf("stats %s: want 2 replays, no trace", s)
	}
	if n := m.Steps.Item(); n != 2 {
		t.Errorf("mutated field after two replays: %v, want 2", n)
	}
	// Another plain value or another structure is not the traced program.
	m.Scale = 3
	if _, err := a.Call(m, x); err != nil {
		t.Fatal(err)
	}
	m.Layers = append(m.Layers, m.Layers[0])
	if _, err := a.Call(m, x); err != nil {
		t.Fatal(err)
	}
	if s := a.Stats(); s.Calls != 4 || s.Traces != 2 || s.Replays != 4 {
		t.Errorf("stats %s: want 4 calls, 2 of them traced by the jit.Compile fallback (which counts its calls as replays too)", s)
	}
	if err := a.check(); err != nil {
		t.Errorf("check of an up-to-date trace: %v", err)
	}
	if _, err := a.Call(m); err == nil {
		t.Error("a call with a missing argument did not fail")
	}
	if _, _, err := TraceAOTValues("aotForward", aotForward, lazy.NewShape(lazy.F32, 1), lazy.NewShape(lazy.F32, 5, 3)); err == nil || !strings.Contains(err.Error(), "give an example value") {
		t.Errorf("a shape for a struct parameter: %v", err)
	}
}
