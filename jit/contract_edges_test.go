package jit_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// A graph break whose panic the function recovers itself is a break all
// the same: the function went on with a value it never read.
func TestRecoveredGraphBreakIsABreak(t *testing.T) {
	fn := func(x *lazy.Tensor) *lazy.Tensor {
		s := 0.0
		func() {
			defer func() { _ = recover() }()
			s = x.Sum().Item()
		}()
		if s > 5 {
			return x.MulScalar(2)
		}
		return x.AddScalar(1)
	}
	x := lazy.FromSlice([]float32{1, 2, 3})
	want := fmt.Sprint(fn(x).Float32s())
	f := jit.Compile(fn)
	for call := range 2 {
		if got := fmt.Sprint(f(x).Float32s()); got != want {
			t.Fatalf("call %d: %s, want %s", call, got, want)
		}
	}
	if st := jit.StatsOf(f); st.GraphBreaks != 1 || st.Compiles != 0 {
		t.Errorf("stats %s, want one graph break and no compile", st)
	}
	fg := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) { return fn(x), nil }, jit.FullGraph())
	if _, err := fg(x); err == nil || !strings.Contains(err.Error(), "graph break") {
		t.Errorf("under FullGraph: error %v, want a graph break", err)
	}
}

// Under FullGraph a graph break fails the call, and both StatsOf and the
// metric count it.
func TestFullGraphBreakCountsInMetric(t *testing.T) {
	before := lazy.Counter(lazy.MetricJITGraphBreak)
	f := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) { _ = x.Sum().Item(); return x, nil }, jit.FullGraph())
	if _, err := f(lazy.FromSlice([]float32{1})); err == nil {
		t.Fatal("no error")
	}
	if got := lazy.Counter(lazy.MetricJITGraphBreak) - before; got != 1 || jit.StatsOf(f).GraphBreaks != 1 {
		t.Errorf("metric counted %d breaks, stats %d; want 1 and 1", got, jit.StatsOf(f).GraphBreaks)
	}
}

func localCfgA() any {
	type cfg struct{ S float64 }
	return cfg{2}
}

func localCfgB() any {
	type cfg struct{ S float64 }
	return cfg{2}
}

// Two types that print alike (both local types called cfg in one package)
// are different dynamic types of an interface argument: the guard tells
// them apart.
func TestInterfaceArgumentsOfTypesThatPrintAlike(t *testing.T) {
	a, b := localCfgA(), localCfgB()
	if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		t.Skip("the two types print differently")
	}
	fn := func(x *lazy.Tensor, c any) *lazy.Tensor {
		if c == a {
			return x.MulScalar(100)
		}
		return x.AddScalar(100)
	}
	f := jit.Compile(fn)
	x := lazy.FromSlice([]float32{1})
	for _, c := range []any{a, b, a, b} {
		if got, want := f(x, c).Float32s()[0], fn(x, c).Float32s()[0]; got != want {
			t.Fatalf("with %#v: %v, want %v", c, got, want)
		}
	}
}

// A replay that writes a tensor leaves it without the history it had (the
// plain assignment replaced it); what the compiled program computed keeps
// no history Grad can follow, so a gradient through it is an error, not
// the old history's value or a zero. A failed trace leaves the history it
// found.
func TestGradHistoryAfterReplayAndFailedTrace(t *testing.T) {
	a := lazy.FromSlice([]float32{1, 2, 3})
	x := a.MulScalar(2)
	if err := lazy.Sync(x); err != nil {
		t.Fatal(err)
	}
	b := lazy.FromSlice([]float32{4, 5, 6})
	jit.Compile(func(x, b *lazy.Tensor) { x.Assign(b.MulScalar(3)) })(x, b)
	if err := gradError(func() { lazy.Grad(x.Sum(), a) }); err == nil || !strings.Contains(err.Error(), "compiled program") {
		t.Errorf("d sum(x)/da after a replay wrote x: error %v, want one naming the compiled program", err)
	}

	a = lazy.FromSlice([]float32{1, 2, 3})
	w := a.MulScalar(2)
	if err := lazy.Sync(w); err != nil {
		t.Fatal(err)
	}
	f := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) {
		w.Assign(x)
		return x.Add(lazy.FromSlice([]float32{1, 2})), nil // shapes differ
	})
	if _, err := f(lazy.FromSlice([]float32{7, 8, 9})); err == nil {
		t.Fatal("no error")
	}
	if g := lazy.Grad(w.Sum(), a)[0].Float32s(); g[0] != 2 {
		t.Errorf("after a failed trace d sum(w)/da = %v, want [2 2 2]", g)
	}
}

// gradError runs f and returns the error it panics with (nil if none).
func gradError(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = lazy.AsError(p)
			if err == nil {
				panic(p)
			}
		}
	}()
	f()
	return nil
}

// Grad through a compiled function's result: where the result is a
// constant for the xs (a compiled preprocessing step), the gradient is the
// plain function's; where it stood between y and an x, Grad reports it.
// Inside the compiled function Grad works as in the plain one.
func TestGradThroughCompiledResults(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2, 3})
	w := lazy.FromSlice([]float32{0.5, -1, 2})
	scale := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(3) })
	plainLoss := func(x, w *lazy.Tensor) *lazy.Tensor { return x.Mul(w).Sum() }

	got := lazy.Grad(plainLoss(scale(x), w), w)[0].Float32s()
	want := lazy.Grad(plainLoss(x.MulScalar(3), w), w)[0].Float32s()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gradient past a compiled preprocessing step: %v, want %v", got, want)
	}

	// An unused parameter beside them has a zero gradient, as in the plain
	// program; so has one when a tensor y reads was written by a replay.
	unused := lazy.FromSlice([]float32{7, 7, 7})
	target := lazy.FromSlice([]float32{1, 1, 1})
	jit.Compile(func(tn, w *lazy.Tensor) { tn.Assign(tn.MulScalar(0.9).Add(w.MulScalar(0.1))) })(target, w)
	gs := lazy.Grad(plainLoss(scale(x), w).Add(target.Sum()), w, unused)
	if got := fmt.Sprint(gs[0].Float32s(), gs[1].Float32s()); got != fmt.Sprint(want, []float32{0, 0, 0}) {
		t.Errorf("gradients with an unused parameter and a replay-written tensor: %s, want %v [0 0 0]", got, want)
	}

	loss := jit.Compile(plainLoss)
	if err := gradError(func() { lazy.Grad(loss(x, w), w) }); err == nil || !strings.Contains(err.Error(), "compiled program") {
		t.Errorf("Grad through a compiled loss: error %v, want one naming the compiled program", err)
	}

	gradInside := jit.Compile(func(x, w *lazy.Tensor) *lazy.Tensor { return lazy.Grad(plainLoss(x, w), w)[0] })
	if got, want := fmt.Sprint(gradInside(x, w).Float32s()), fmt.Sprint(lazy.Grad(plainLoss(x, w), w)[0].Float32s()); got != want {
		t.Errorf("Grad inside the compiled function: %s, want %s", got, want)
	}
}

// ManualSeed inside a traced function on a device that never drew: a
// failed trace leaves the RNG as it was, and a compiled call leaves it
// where the plain call does.
func TestManualSeedInsideTraceOnFreshDevice(t *testing.T) {
	freshDevice(t)
	untouched := fmt.Sprint(lazy.RandN(lazy.F32, 3).Float32s())

	freshDevice(t)
	bad := jit.Compile(func(a, b *lazy.Tensor) (*lazy.Tensor, error) {
		lazy.ManualSeed(42)
		return a.Add(b), nil // shapes differ
	})
	if _, err := bad(lazy.FromSlice([]float32{1, 2, 3}), lazy.FromSlice([]float32{1, 2})); err == nil {
		t.Fatal("no error")
	}
	if got := fmt.Sprint(lazy.RandN(lazy.F32, 3).Float32s()); got != untouched {
		t.Errorf("after a failed trace RandN gives %s, want %s (the device's first draws)", got, untouched)
	}

	fn := func(x *lazy.Tensor) *lazy.Tensor {
		lazy.ManualSeed(42)
		return x.Add(lazy.RandN(lazy.F32, 3))
	}
	run := func(f func(*lazy.Tensor) *lazy.Tensor) (string, string) {
		freshDevice(t)
		r := fmt.Sprint(f(lazy.Zeros(lazy.F32, 3)).Float32s())
		return r, fmt.Sprint(lazy.RandN(lazy.F32, 3).Float32s())
	}
	pr, pn := run(fn)
	cr, cn := run(jit.Compile(fn))
	if pr != cr || pn != cn {
		t.Errorf("plain drew %s then %s; compiled %s then %s", pr, pn, cr, cn)
	}
}

type runInfo struct {
	Dims  []int64
	Names []string
	Note  *string
	Same  *string // the same string as Note
}

// Non-tensor results belong to the caller, as the plain function's do: a
// caller that changes one call's slice or pointee does not change
// what a later call (a replay) returns; two pointers to one value in one
// result still point to one value.
func TestNonTensorResultsAreTheCallersOwn(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, runInfo) {
		note := "traced"
		return x.AddScalar(1), runInfo{Dims: []int64{x.Dim(0), 7}, Names: []string{"a"}, Note: &note, Same: &note}
	})
	x := lazy.FromSlice([]float32{1, 2})
	for call := range 3 {
		y, info := f(x)
		if got := fmt.Sprintf("%v %v %v %s", y.Float32s(), info.Dims, info.Names, *info.Note); got != "[2 3] [2 7] [a] traced" {
			t.Fatalf("call %d: %s", call, got)
		}
		if info.Note != info.Same {
			t.Fatalf("call %d: the two pointers to one string point to two", call)
		}
		info.Dims[1], info.Names[0], *info.Note = 99, "b", "changed by the caller"
	}
	if st := jit.StatsOf(f); st.Traces != 1 || st.Replays < 2 {
		t.Errorf("stats %s, want one trace and the later calls replays", st)
	}
}

// A function that returns an error while it is traced ran once: the call
// returns that error (wrapped, errors.Is reaches it) with zero results
// and the trace's writes undone, and the next call traces again; calls
// that return no error compile and replay.
func TestErrorResultsOfTracedCalls(t *testing.T) {
	runs := 0
	fn := func(x *lazy.Tensor, stop bool) (*lazy.Tensor, error) {
		runs++
		x.Assign(x.AddScalar(1))
		if stop {
			return x, io.EOF
		}
		return x, nil
	}
	f := jit.Compile(fn)
	x := lazy.FromSlice([]float32{1})
	want := float32(1)
	for call, stop := range []bool{true, false, true, false, false} {
		before := runs
		r, err := f(x, stop)
		if stop {
			if !errors.Is(err, io.EOF) || r != nil {
				t.Fatalf("call %d: result %v, error %v; want no result and an error wrapping io.EOF", call, r, err)
			}
			if runs != before+1 {
				t.Fatalf("call %d: the function ran %d times, want once", call, runs-before)
			}
		} else {
			if err != nil {
				t.Fatalf("call %d: %v", call, err)
			}
			want++
		}
		if got := x.Float32s()[0]; got != want {
			t.Fatalf("call %d: x = %v, want %v", call, got, want)
		}
	}
	if st := jit.StatsOf(f); st.Traces != 1 || st.Replays < 2 {
		t.Errorf("stats %s, want one trace (the calls returning no error) and replays", st)
	}
}

type boxed struct{ T *lazy.Tensor }

// A tensor argument held in an interface (directly, in a struct value, or
// behind a pointer) and also read through a closure variable: the trace
// tells the two paths apart whichever call comes first.
func TestInterfaceArgumentsAliasingCapturedTensors(t *testing.T) {
	for _, wrap := range []struct {
		name string
		of   func(*lazy.Tensor) any
		get  func(any) *lazy.Tensor
	}{
		{"tensor", func(x *lazy.Tensor) any { return x }, func(a any) *lazy.Tensor { return a.(*lazy.Tensor) }},
		{"struct", func(x *lazy.Tensor) any { return boxed{x} }, func(a any) *lazy.Tensor { return a.(boxed).T }},
		{"pointer", func(x *lazy.Tensor) any { return &boxed{x} }, func(a any) *lazy.Tensor { return a.(*boxed).T }},
	} {
		for _, aliasedFirst := range []bool{true, false} {
			w := lazy.FromSlice([]float32{5})
			fn := func(a any) *lazy.Tensor {
				x := wrap.get(a)
				x.Assign(x.AddScalar(1))
				return w.MulScalar(10)
			}
			f := jit.Compile(fn)
			calls := []bool{true, false, true, false}
			if !aliasedFirst {
				calls = []bool{false, true, false, true}
			}
			for i, aliased := range calls {
				x := w
				if !aliased {
					x = lazy.FromSlice([]float32{100})
				}
				want := (w.Float32s()[0] + map[bool]float32{true: 1, false: 0}[aliased]) * 10
				if got := f(wrap.of(x)).Float32s()[0]; got != want {
					t.Fatalf("%s, aliased first %v, call %d (aliased %v): %v, want %v", wrap.name, aliasedFirst, i, aliased, got, want)
				}
			}
		}
	}
}

type stepConfig struct{ LR float64 }

var frozenDims = []int64{4, 5}

// A result that is one of the call's own arguments (a config pointer
// passed through) is that call's argument, as in the plain function; a
// slice the function keeps and returns is what it held at the trace (a
// replay does not run the Go code that might change it), each call's a
// copy of its own; a map inside an interface result is copied too.
func TestNonTensorResultsIdentityAndCopies(t *testing.T) {
	f := jit.Compile(func(c *stepConfig, x *lazy.Tensor) (*lazy.Tensor, *stepConfig, []int64, any) {
		return x.MulScalar(2), c, frozenDims, map[string]int{"n": 1}
	})
	x := lazy.FromSlice([]float32{1})
	for call := range 3 {
		c := &stepConfig{LR: 0.1} // a new pointer each call, the same signature
		_, got, dims, m := f(c, x)
		if got != c {
			t.Fatalf("call %d: the config result is not the call's own argument", call)
		}
		if fmt.Sprint(dims) != "[4 5]" || fmt.Sprint(m) != "map[n:1]" {
			t.Fatalf("call %d: dims %v, map %v", call, dims, m)
		}
		frozenDims[0] = 99 // after the trace: replays still return the traced value
		m.(map[string]int)["n"] = 99
	}
	frozenDims[0] = 4
	if st := jit.StatsOf(f); st.Traces != 1 {
		t.Errorf("stats %s, want one trace", st)
	}
}

// Two arguments that are one pointer at the trace and two later: the
// signature tells the calls apart, so a result that is the second argument
// is the later call's second argument.
func TestArgumentIdentityWithAliasedArguments(t *testing.T) {
	fn := func(a, b *stepConfig, x *lazy.Tensor) (*lazy.Tensor, *stepConfig) { return x.AddScalar(1), b }
	f := jit.Compile(fn)
	x := lazy.FromSlice([]float32{1})
	c := &stepConfig{LR: 0.1}
	if _, got := f(c, c, x); got != c {
		t.Fatal("f(c, c): not c")
	}
	c1, c2 := &stepConfig{LR: 0.1}, &stepConfig{LR: 0.1}
	for range 2 {
		if _, got := f(c1, c2, x); got != c2 {
			t.Fatal("f(c1, c2): not c2")
		}
	}
	if _, got := f(c2, c2, x); got != c2 {
		t.Fatal("f(c2, c2): not c2")
	}
	if st := jit.StatsOf(f); st.Traces != 2 {
		t.Errorf("stats %s, want two traces (aliased and not)", st)
	}
}

type hiddenAny struct{ any any }

// A tensor held in an unexported interface field of an argument.
func TestUnexportedInterfaceFieldArgument(t *testing.T) {
	h := &hiddenAny{any: lazy.FromSlice([]float32{2})}
	f := jit.Compile(func(h *hiddenAny, x *lazy.Tensor) *lazy.Tensor { return x.Mul(h.any.(*lazy.Tensor)) })
	x := lazy.FromSlice([]float32{3})
	for range 2 {
		if got := f(h, x).Float32s()[0]; got != 6 {
			t.Fatalf("got %v, want 6", got)
		}
	}
}

// A compiled function called inside another's trace is inlined into the
// outer graph, as torch.compile inlines a nested compiled function. Its
// options still hold where the plain outer function would see them: a
// graph break in the inner body breaks the outer trace, the outer call
// then runs as it is, and that calls the inner function for real, whose
// FullGraph fails it, on every call, as the plain outer function fails.
func TestInlinedFullGraphBreakFailsTheOuterCall(t *testing.T) {
	inner := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) {
		if x.Sum().Item() > 0 {
			return x.MulScalar(2), nil
		}
		return x, nil
	}, jit.FullGraph())
	plainOuter := func(x *lazy.Tensor) (*lazy.Tensor, error) {
		y, err := inner(x.AddScalar(1))
		if err != nil {
			return nil, err
		}
		return y.AddScalar(1), nil
	}
	outer := jit.Compile(plainOuter)
	x := lazy.FromSlice([]float32{1, 2})
	_, plainErr := plainOuter(x)
	if plainErr == nil || !strings.Contains(plainErr.Error(), "graph break") {
		t.Fatalf("plain outer: error %v, want the inner's graph break", plainErr)
	}
	for call := range 3 {
		if _, err := outer(x); err == nil || err.Error() != plainErr.Error() {
			t.Fatalf("call %d: error %v, want the plain function's %v", call, err, plainErr)
		}
	}
	if st := jit.StatsOf(outer); st.GraphBreaks != 1 || st.Compiles != 0 {
		t.Errorf("outer: %s, want one graph break and no compile", st)
	}
}

// Two clients each have a device 0 (two embedded clients, or a plugin's
// device beside the embedded one): the guard keyed devices by ordinal
// alone, so a tensor of the second client replayed the first client's
// program and the call failed ("input 0 is on cpu:0, the program on
// cpu:0"), where the plain function runs on either.
func TestDevicesOfTwoClientsAreTwoSignatures(t *testing.T) {
	other := lazy.DevicesOf(host.NewClient(1))[0]
	fn := func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(2).Add(lazy.OnesLike(x)) }
	f := jit.Compile(fn)
	a := lazy.FromSlice([]float32{1, 2})
	b := lazy.FromLiteralOn(other, lazy.FromSlice([]float32{3, 4}).MustLiteral())
	for call := range 2 {
		for _, x := range []*lazy.Tensor{a, b} {
			var got *lazy.Tensor
			if err := lazy.Try(func() { got = f(x) }); err != nil {
				t.Fatalf("call %d on %s: %v", call, x.Device(), err)
			}
			want := fn(x)
			if fmt.Sprint(got.Float32s()) != fmt.Sprint(want.Float32s()) || got.Device() != x.Device() {
				t.Errorf("call %d: %v on %s, want %v on %s", call, got, got.Device(), want, x.Device())
			}
		}
	}
	if st := jit.StatsOf(f); st.Traces != 2 {
		t.Errorf("stats %s, want one trace per device", st)
	}
	if ex := jit.Explain(f); !strings.Contains(ex, "of client") {
		t.Errorf("Explain does not tell the devices apart:\n%s", ex)
	}
}

// An argument emptied by Release fails the compiled call with the plain
// function's error, on the first call and on a replay, and changes
// nothing: the replay dereferenced its missing IR while syncing the
// arguments (a nil pointer panic).
func TestReleasedArgumentIsAnError(t *testing.T) {
	fn := func(x, y *lazy.Tensor) (*lazy.Tensor, error) { y.Assign(y.AddScalar(1)); return x.AddScalar(1), nil }
	for _, traced := range []bool{false, true} {
		f := jit.Compile(fn)
		a, b := lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{1, 2})
		if traced {
			if _, err := f(a, b); err != nil {
				t.Fatal(err)
			}
		}
		before := fmt.Sprint(b.Float32s())
		s := a.Release()
		var err error
		if perr := lazy.Try(func() { _, err = f(a, b) }); perr != nil {
			err = perr
		}
		var le *lazy.Error
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "Release") {
			t.Errorf("traced before: %v: error %v, want the lazy error naming Release", traced, err)
		}
		if got := fmt.Sprint(b.Float32s()); got != before {
			t.Errorf("traced before: %v: the failed call changed y: %s, want %s", traced, got, before)
		}
		a.Restore(s)
		if y, err := f(a, b); err != nil || fmt.Sprint(y.Float32s()) != "[2 3]" {
			t.Errorf("traced before: %v: after Restore: %v, %v", traced, y, err)
		}
	}
}

// A zero Tensor value (&lazy.Tensor{}, made by no constructor) has no
// device: the plain function fails with a lazy error where it uses it, and
// the compiled call, whose guard read its device, crashed with a nil
// pointer; it now fails with an error saying what the argument is, and a
// later call with a real tensor traces and runs.
func TestZeroTensorArgumentIsAnError(t *testing.T) {
	type model struct{ W *lazy.Tensor }
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) })
	g := jit.Compile(func(m model, x *lazy.Tensor) (*lazy.Tensor, error) { return x.Add(m.W), nil })
	zero := &lazy.Tensor{}
	if err := lazy.Try(func() { f(zero) }); err == nil || !strings.Contains(err.Error(), "zero Tensor") {
		t.Errorf("f(zero tensor): %v, want an error naming the zero Tensor value", err)
	}
	if _, err := g(model{W: zero}, lazy.FromSlice([]float32{1})); err == nil || !strings.Contains(err.Error(), "zero Tensor") {
		t.Errorf("g(model with a zero tensor): %v, want an error naming the zero Tensor value", err)
	}
	if got := fmt.Sprint(f(lazy.FromSlice([]float32{1})).Float32s()); got != "[2]" {
		t.Errorf("f(x) after the failed call = %s, want [2]", got)
	}
	if err := lazy.Try(func() { zero.AddScalar(1) }); err == nil || !strings.Contains(err.Error(), "zero Tensor") {
		t.Errorf("plain use of a zero tensor: %v, want a lazy error naming the zero Tensor value", err)
	}
}

// A tensor the function makes with Share of an argument is its own: a
// write into it writes no input, and a swap through it is the plain
// function's. The share held the argument's device data, which the trace
// matches to arguments by tensor, so it became a capture of the graph: its
// writes persisted from one replay to the next (s + 5 grew by 5 per call)
// and the swap replayed the traced call's values.
func TestShareOfAnArgumentIsTheFunctionsOwn(t *testing.T) {
	fns := map[string]func(x, y *lazy.Tensor) *lazy.Tensor{
		"write the share": func(x, y *lazy.Tensor) *lazy.Tensor {
			s := x.Share()
			s.Assign(s.AddScalar(5))
			return s.Add(x)
		},
		"swap through a share": func(x, y *lazy.Tensor) *lazy.Tensor {
			s := x.Share()
			x.Assign(y)
			y.Assign(s)
			return s
		},
	}
	// A captured tensor the caller assigned (it holds pending IR from
	// before the trace): the share became a constant of the traced call.
	w := lazy.FromSlice([]float32{100, 100})
	fns["share a capture"] = func(x, y *lazy.Tensor) *lazy.Tensor {
		s := w.Share()
		w.Assign(w.Add(x))
		return s.Sub(w)
	}
	for name, fn := range fns {
		f := jit.Compile(fn)
		x, y := lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{3, 4})
		px, py := lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{3, 4})
		for call := range 3 {
			w.Assign(lazy.FromSlice([]float32{float32(100 * call), 100}))
			r := f(x, y)
			got := fmt.Sprint(r.Float32s(), x.Float32s(), y.Float32s(), w.Float32s())
			w.Assign(lazy.FromSlice([]float32{float32(100 * call), 100}))
			pr := fn(px, py)
			if want := fmt.Sprint(pr.Float32s(), px.Float32s(), py.Float32s(), w.Float32s()); got != want {
				t.Errorf("%s, call %d: result, x, y, w = %s, want %s", name, call, got, want)
			}
			if r == x || r == y {
				t.Errorf("%s, call %d: the result is an argument, not a new tensor", name, call)
			}
		}
	}
}

// The device buffer of an argument, taken inside the function, is a read
// the trace cannot follow: wrapped with FromBuffer (or copied to the host)
// it froze the traced call's data into every replay. It is a graph break.
func TestBufferOfAnArgumentBreaks(t *testing.T) {
	fn := func(x *lazy.Tensor) *lazy.Tensor {
		return lazy.FromBuffer(x.Buffer(), x.Device()).AddScalar(1)
	}
	f := jit.Compile(fn)
	for call := range 3 {
		x := lazy.FromSlice([]float32{float32(call), 1})
		if got, want := fmt.Sprint(f(x).Float32s()), fmt.Sprint(fn(x).Float32s()); got != want {
			t.Errorf("call %d: %s, want %s", call, got, want)
		}
	}
	if st := jit.StatsOf(f); st.GraphBreaks != 1 {
		t.Errorf("stats %s, want one graph break", st)
	}
	// The buffer of a tensor the function computed is its own.
	g := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		y := x.AddScalar(1)
		_ = y.Buffer() // pending: nil, no break
		return y
	})
	g(lazy.FromSlice([]float32{1}))
	if st := jit.StatsOf(g); st.GraphBreaks != 0 {
		t.Errorf("stats %s, want no graph break", st)
	}
}

// A Go assignment of another tensor to a place the arguments reach (a
// field, a slice element, *p) is a graph break: the trace put the old
// tensor back and compiled, so every call, the first included, left the
// place unchanged where the plain function rebinds it on each call.
func TestGoAssignmentOfATensorBreaks(t *testing.T) {
	fn := func(pp **lazy.Tensor, xs []*lazy.Tensor, m *linear) *lazy.Tensor {
		*pp = (*pp).AddScalar(1)
		xs[0] = xs[0].MulScalar(2)
		m.W = m.W.Sub(xs[0])
		return (*pp).Sum()
	}
	f := jit.Compile(fn)
	p, pp := lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{1, 2})
	xs, pxs := []*lazy.Tensor{lazy.FromSlice([]float32{1})}, []*lazy.Tensor{lazy.FromSlice([]float32{1})}
	m, pm := &linear{W: lazy.FromSlice([]float32{10})}, &linear{W: lazy.FromSlice([]float32{10})}
	for call := range 3 {
		got := fmt.Sprint(f(&p, xs, m).Float32s(), p.Float32s(), xs[0].Float32s(), m.W.Float32s())
		if want := fmt.Sprint(fn(&pp, pxs, pm).Float32s(), pp.Float32s(), pxs[0].Float32s(), pm.W.Float32s()); got != want {
			t.Errorf("call %d: result, *p, xs[0], m.W = %s, want %s", call, got, want)
		}
	}
	if st := jit.StatsOf(f); st.GraphBreaks != 1 || st.Compiles != 0 {
		t.Errorf("stats %s, want one graph break and no compile", st)
	}
	if ex := jit.Explain(f); !strings.Contains(ex, "arg 0") || !strings.Contains(ex, "Assign") {
		t.Errorf("Explain does not name the replaced place:\n%s", ex)
	}
}
