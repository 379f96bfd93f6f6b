package jit_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

func affine(x, w *lazy.Tensor) *lazy.Tensor { return x.MatMul(w).AddScalar(0.5).ReLU() }

// aotSpecFor traces fn on placeholders, as the generator does.
func aotSpecFor(t *testing.T, name string, fn any, shapes ...lazy.Shape) jit.AOTSpec {
	dev := lazy.DefaultDevice()
	args := make([]*lazy.Tensor, len(shapes))
	in := make([]reflect.Value, len(shapes))
	for i, s := range shapes {
		args[i] = lazy.NewPlaceholder(s, dev)
		in[i] = reflect.ValueOf(args[i])
	}
	tr, err := bridge.Trace(args, func() ([]*lazy.Tensor, error) {
		out := reflect.ValueOf(fn).Call(in)
		return []*lazy.Tensor{out[0].Interface().(*lazy.Tensor)}, nil
	}, bridge.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return jit.AOTSpec{Name: name, Signature: reflect.TypeOf(fn).String(), Fn: fn, Graph: tr.Graph.String()}
}

func TestAOTReplaysWithoutTracing(t *testing.T) {
	spec := aotSpecFor(t, "affine", affine, lazy.NewShape(lazy.F32, 2, 3), lazy.NewShape(lazy.F32, 3, 2))
	a, err := jit.LoadAOT(spec)
	if err != nil {
		t.Fatal(err)
	}
	wrapper := func(x, w *lazy.Tensor) *lazy.Tensor {
		outs, err := a.Run(x, w)
		if err != nil {
			panic(err)
		}
		return outs[0]
	}
	a.Register(wrapper)
	x := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w := lazy.FromSlice([]float32{1, 0, 0, 1, -1, 1}, 3, 2)
	got := wrapper(x, w).Float32s()
	if s := jit.StatsOf(wrapper); s.Traces != 0 || s.Replays != 1 {
		t.Errorf("first call: %s", s)
	}
	want := jit.Compile(affine)(x, w).Float32s()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("aot %v, jit %v", got, want)
	}
	// Other shapes go through jit.Compile.
	x2 := lazy.FromSlice([]float32{1, 2, 3}, 1, 3)
	wrapper(x2, w)
	if s := jit.StatsOf(wrapper); s.Traces != 1 || s.Replays != 2 || s.Calls != 2 {
		t.Errorf("after another shape: %s", s)
	}
}

func TestAOTStaleSignature(t *testing.T) {
	spec := aotSpecFor(t, "affine", affine, lazy.NewShape(lazy.F32, 2, 3), lazy.NewShape(lazy.F32, 3, 2))
	spec.Signature = "func(*lazy.Tensor) *lazy.Tensor"
	_, err := jit.LoadAOT(spec)
	if err == nil || !strings.Contains(err.Error(), "affine") || !strings.Contains(err.Error(), "go generate") {
		t.Errorf("err = %v", err)
	}
}

func affineChanged(x, w *lazy.Tensor) *lazy.Tensor { return x.MatMul(w).AddScalar(0.25).ReLU() }

// A wrapper generated for an older body of the function: CheckAOT notices.
func TestCheckAOTFindsAChangedBody(t *testing.T) {
	x, w := lazy.NewShape(lazy.F32, 2, 3), lazy.NewShape(lazy.F32, 3, 2)
	fresh := aotSpecFor(t, "affine", affine, x, w)
	if _, err := jit.LoadAOT(fresh); err != nil {
		t.Fatal(err)
	}
	stale := aotSpecFor(t, "affineChanged", affine, x, w)
	stale.Fn = affineChanged // the body changed after generation
	if _, err := jit.LoadAOT(stale); err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, err := range jit.CheckAOT() {
		bad = append(bad, err.Error())
	}
	if len(bad) != 1 || !strings.Contains(bad[0], "affineChanged") || !strings.Contains(bad[0], "go generate") || !strings.Contains(bad[0], "2.500000e-01") {
		t.Errorf("CheckAOT = %q, want one error naming affineChanged, the changed line and go generate", bad)
	}
}
