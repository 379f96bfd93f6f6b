package jit_test

import (
	"fmt"
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
	// Loaded traces stay registered for the process: a name of this run's
	// own keeps the test repeatable (-count=2), and only errors that this
	// run's loads added count.
	aotCheckRuns++
	name := fmt.Sprintf("affineChanged%d", aotCheckRuns)
	before := len(jit.CheckAOT())
	x, w := lazy.NewShape(lazy.F32, 2, 3), lazy.NewShape(lazy.F32, 3, 2)
	fresh := aotSpecFor(t, "affine", affine, x, w)
	if _, err := jit.LoadAOT(fresh); err != nil {
		t.Fatal(err)
	}
	stale := aotSpecFor(t, name, affine, x, w)
	stale.Fn = affineChanged // the body changed after generation
	if _, err := jit.LoadAOT(stale); err != nil {
		t.Fatal(err)
	}
	var bad []string
	errs := jit.CheckAOT()
	for _, err := range errs {
		if strings.Contains(err.Error(), name+" ") {
			bad = append(bad, err.Error())
		}
	}
	if len(errs) != before+1 || len(bad) != 1 || !strings.Contains(bad[0], "go generate") || !strings.Contains(bad[0], "2.500000e-01") {
		t.Errorf("CheckAOT = %q (%d errors before the loads), want one more error, naming %s, the changed line and go generate", errs, before, name)
	}
}

// aotCheckRuns counts TestCheckAOTFindsAChangedBody's runs.
var aotCheckRuns int

func double(x *lazy.Tensor) *lazy.Tensor { return x.Add(x) }

// TestLoadAOTChecksPlaceholders: a graph whose placeholders do not fit the
// function (a negative, huge, repeated or missing argument index, an
// unknown capture) is an error naming the placeholder, not an index panic
// or a slice grown to the index (placeholder[arg 1e18] ran the process
// out of memory).
func TestLoadAOTChecksPlaceholders(t *testing.T) {
	const add = "%b : f32[2] = Add(%a, %a)\noutput(%b)\n"
	for _, c := range []struct{ graph, want string }{
		{"%a : f32[2] = placeholder[arg -1]\n" + add, "placeholder index -1 out of range"},
		{"%a : f32[2] = placeholder[arg 0]\n%r : ui64[2] = placeholder[capture -1]\n" + add, "placeholder index -1 out of range"},
		{"%a : f32[2] = placeholder[arg 1000000000000000000]\n" + add, "%a: placeholder[arg 1000000000000000000]"},
		{"%a : f32[2] = placeholder[arg 1]\n" + add, "%a: placeholder[arg 1]"},
		{"%a : f32[2] = placeholder[arg 0]\n%c : f32[2] = placeholder[arg 0]\n" + add, "2 argument placeholders for func(*lazy.Tensor) *lazy.Tensor, which takes 1"},
		{"%a : f32[2] = placeholder[arg 0]\n%r : ui64[2] = placeholder[capture 0]\n" + add, "%r: placeholder[capture 0]: capture of unknown kind"},
	} {
		spec := jit.AOTSpec{Name: "double", Signature: reflect.TypeOf(double).String(), Fn: double, Graph: c.graph}
		if _, err := jit.LoadAOT(spec); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "double") {
			t.Errorf("graph\n%s: err %v, want one naming double and %q", c.graph, err, c.want)
		}
	}
}

// TestAOTRunChecksArgumentCount: Run with more or fewer tensors than the
// function takes is an error naming both counts, not an index panic or a
// reflect panic from the fallback's call.
func TestAOTRunChecksArgumentCount(t *testing.T) {
	a, err := jit.LoadAOT(aotSpecFor(t, "double", double, lazy.NewShape(lazy.F32, 2)))
	if err != nil {
		t.Fatal(err)
	}
	x := lazy.FromSlice([]float32{1, 2}, 2)
	for _, args := range [][]*lazy.Tensor{nil, {x, x}} {
		if _, err := a.Run(args...); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d arguments for func(*lazy.Tensor) *lazy.Tensor, which takes 1", len(args))) {
			t.Errorf("Run with %d arguments: %v", len(args), err)
		}
	}
	outs, err := a.Run(x)
	if err != nil || !reflect.DeepEqual(outs[0].Float32s(), []float32{2, 4}) {
		t.Errorf("Run(x) = %v, %v", outs, err)
	}
}

func aotAddsConst(x *lazy.Tensor) *lazy.Tensor    { return x.Add(lazy.FromSlice([]float32{1, 2})) }
func aotReturnsConst(x *lazy.Tensor) *lazy.Tensor { return lazy.FromSlice([]float32{1, 2}) }

// A tensor the function makes from Go data is a constant of an
// ahead-of-time trace: the graph holds its value, and the loaded trace
// computes what the function does. A tensor it only captures is still an
// error that says where it is read.
func TestTraceAOTEmbedsConstantsMadeInside(t *testing.T) {
	s := lazy.NewShape(lazy.F32, 2)
	x := lazy.FromSlice([]float32{3, 4})
	for _, fn := range []func(*lazy.Tensor) *lazy.Tensor{aotAddsConst, aotReturnsConst} {
		spec, _, err := jit.TraceAOT("consts", fn, s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(spec.Graph, "Constant(value=") || strings.Contains(spec.Graph, "capture") {
			t.Errorf("graph does not hold the constant:\n%s", spec.Graph)
		}
		a, err := jit.LoadAOT(spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprint(got[0].Float32s()), fmt.Sprint(fn(x).Float32s()); g != w {
			t.Errorf("loaded trace gives %s, the function %s", g, w)
		}
	}
	w := lazy.FromSlice([]float32{1, 2})
	_, _, err := jit.TraceAOT("captures", func(x *lazy.Tensor) *lazy.Tensor { return x.Mul(w) }, s)
	if err == nil || !strings.Contains(err.Error(), "first read by Mul at jit/aot_test.go:") {
		t.Errorf("a captured tensor: error %v", err)
	}
}

func aotWideEmptyConst(x *lazy.Tensor) *lazy.Tensor {
	return x.Add(lazy.FromSlice([]float32{}, 0, 1<<25).Sum())
}

func aotHugeConst(x *lazy.Tensor) *lazy.Tensor {
	return x.Add(lazy.FromSlice(make([]int8, 1<<24+1)).Sum().Cast(lazy.F32))
}

// A constant an ahead-of-time graph file could not hold (a dimension past
// 2^24, more than a MiB of data) is an error at trace time, never a spec
// that LoadAOT refuses.
func TestTraceAOTRefusesConstantsTooLargeToEmbed(t *testing.T) {
	for name, fn := range map[string]func(*lazy.Tensor) *lazy.Tensor{"wide": aotWideEmptyConst, "huge": aotHugeConst} {
		spec, _, err := jit.TraceAOT(name, fn, lazy.NewShape(lazy.F32, 1))
		if err == nil {
			if _, lerr := jit.LoadAOT(spec); lerr != nil {
				t.Errorf("%s: TraceAOT produced a spec LoadAOT refuses: %v", name, lerr)
			}
			t.Errorf("%s: no error for a constant too large to embed", name)
			continue
		}
		if !strings.Contains(err.Error(), "pass it as an argument") {
			t.Errorf("%s: error %q does not say what to do", name, err)
		}
	}
}
