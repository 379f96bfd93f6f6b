package jit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// readValues returns a tensor's values, or the error reading them panicked
// with.
func readValues(x *lazy.Tensor) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("PANIC(%v)", r)
		}
	}()
	return fmt.Sprint(x.Float32s())
}

// A snapshot taken with State survives a compiled call that writes the
// tensor in place: the replay must not donate the buffer the snapshot
// holds.
func TestSnapshotSurvivesCompiledWrite(t *testing.T) {
	fn := func(w *lazy.Tensor) { w.Assign(w.MulScalar(2)) }
	for _, name := range []string{"plain", "compiled"} {
		g := fn
		if name == "compiled" {
			g = jit.Compile(fn)
		}
		w := lazy.FromSlice([]float32{1, 2, 3, 4})
		g(w)
		g(w)
		if err := lazy.Sync(w); err != nil {
			t.Fatal(err)
		}
		snap := w.State()
		g(w)
		if err := lazy.Sync(w); err != nil {
			t.Fatal(err)
		}
		w.Restore(snap)
		if got := readValues(w); got != "[4 8 12 16]" {
			t.Errorf("%s: after Restore w = %s, want [4 8 12 16]", name, got)
		}
	}
}

// TakeData, Restore, SetData and Release replace a tensor's contents other
// than by Assign: inside a traced function, on a tensor the function did
// not make, they are a graph break (the calls run as plain Go), never a
// write the replay silently drops.
func TestReplacingContentsInsideTraceBreaks(t *testing.T) {
	take := func(a, b *lazy.Tensor) *lazy.Tensor { a.TakeData(b); return a.AddScalar(1) }
	f := jit.Compile(take)
	for i := 0; i < 3; i++ {
		a1, b1 := lazy.FromSlice([]float32{1}), lazy.FromSlice([]float32{float32(2 + i)})
		a2, b2 := lazy.FromSlice([]float32{1}), lazy.FromSlice([]float32{float32(2 + i)})
		r1, r2 := take(a1, b1), f(a2, b2)
		if readValues(a1) != readValues(a2) || readValues(r1) != readValues(r2) {
			t.Errorf("call %d: TakeData on an argument: plain a = %s, result %s; compiled a = %s, result %s",
				i, readValues(a1), readValues(r1), readValues(a2), readValues(r2))
		}
	}
	if s := jit.StatsOf(f); s.GraphBreaks != 1 || s.Replays != 0 {
		t.Errorf("TakeData: stats %s, want one graph break and no replays", s)
	}

	g1, g2 := lazy.FromSlice([]float32{0}), lazy.FromSlice([]float32{0})
	mk := func(g *lazy.Tensor) func(x *lazy.Tensor) *lazy.Tensor {
		return func(x *lazy.Tensor) *lazy.Tensor { g.Restore(x.State()); return x }
	}
	p, c := mk(g1), jit.Compile(mk(g2))
	for i := 0; i < 3; i++ {
		p(lazy.FromSlice([]float32{float32(i)}))
		c(lazy.FromSlice([]float32{float32(i)}))
		if readValues(g1) != readValues(g2) {
			t.Errorf("call %d: Restore into a captured tensor: plain g = %s, compiled g = %s", i, readValues(g1), readValues(g2))
		}
	}

	// Release and Restore of a tensor the function made are its own
	// business: the function still compiles.
	local := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		y := x.AddScalar(1)
		z := lazy.ZerosLike(x)
		z.Restore(y.Release())
		return z
	})
	for i := 0; i < 2; i++ {
		if got := readValues(local(lazy.FromSlice([]float32{float32(i)}))); got != fmt.Sprint([]float32{float32(i + 1)}) {
			t.Errorf("call %d: local Release/Restore gives %s", i, got)
		}
	}
	if s := jit.StatsOf(local); s.GraphBreaks != 0 || s.Traces != 1 || s.Replays != 2 {
		t.Errorf("local Release/Restore: stats %s, want one trace, no graph break, every call a replay", s)
	}
}

// Explain of a function from inside its own first call returns (its
// events have their own lock).
func TestExplainSelfInsideFirstCall(t *testing.T) {
	var f func(x *lazy.Tensor) *lazy.Tensor
	f = jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { _ = jit.Explain(f); return x.AddScalar(1) })
	done := make(chan struct{})
	go func() { f(lazy.FromSlice([]float32{1})); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Explain(f) inside f's first call never returned")
	}
}

type unexportedCache struct{ cache *lazy.Tensor }

// Under FullGraph, a call that fails because the function replaced a
// tensor in its caller's memory puts the old one back, in unexported
// fields too.
func TestFullGraphRestoresUnexportedField(t *testing.T) {
	f := jit.Compile(func(m *unexportedCache, x *lazy.Tensor) (*lazy.Tensor, error) {
		m.cache = x.AddScalar(1)
		return x, nil
	}, jit.FullGraph())
	m := &unexportedCache{}
	if _, err := f(m, lazy.FromSlice([]float32{1})); err == nil {
		t.Fatal("no error for a replaced field under FullGraph")
	}
	if m.cache != nil {
		t.Errorf("the failed call left m.cache = %s, want nil", readValues(m.cache))
	}
}

// A call whose trace panics (the function panicked) counts in Stats.Calls.
func TestPanickingCallIsCounted(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor, boom bool) *lazy.Tensor {
		if boom {
			panic("boom")
		}
		return x
	})
	x := lazy.FromSlice([]float32{1})
	func() {
		defer func() { _ = recover() }()
		f(x, true)
	}()
	f(x, false)
	if s := jit.StatsOf(f); s.Calls != 2 {
		t.Errorf("stats %s, want calls=2", s)
	}
}

// A failed trace leaves the compile cache as it was, as its counters: the
// cut it made to learn a data-dependent shape (NonZero) compiled a graph
// whose entry goes with the trace.
func TestFailedTraceLeavesCompileCache(t *testing.T) {
	dev := lazy.DefaultDevice()
	x := lazy.FromSlice([]float32{1, 0, 3})
	if err := lazy.Sync(x); err != nil {
		t.Fatal(err)
	}
	f := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) {
		nz := x.Exp().AddScalar(-1).NonZero() // the trace computes Exp(x)-1
		return nz, fmt.Errorf("refused")
	})
	n0, u0 := lazy.CacheLen(dev), lazy.Counter("UncachedCompile")
	if _, err := f(x); err == nil {
		t.Fatal("no error")
	}
	if n1, u1 := lazy.CacheLen(dev), lazy.Counter("UncachedCompile"); n1 != n0 || u1 != u0 {
		t.Errorf("a failed trace changed the compile cache from %d to %d entries (UncachedCompile %d -> %d)", n0, n1, u0, u1)
	}
}

// Putting an argument's device data into a tensor the function made
// (Restore of its State, TakeData, SetData of a buffer) records no op: the
// trace would read that tensor as a capture, frozen at the first call's
// data. It is a graph break, so every call sees its own argument (found by
// the differential tester).
func TestDeviceDataIntoLocalBreaks(t *testing.T) {
	fns := map[string]func(a, b *lazy.Tensor) *lazy.Tensor{
		"Restore":  func(a, b *lazy.Tensor) *lazy.Tensor { l := a.Add(b); l.Restore(a.State()); return l.Add(b) },
		"TakeData": func(a, b *lazy.Tensor) *lazy.Tensor { l := a.Add(b); l.TakeData(a); return l.Add(b) },
		"SetData": func(a, b *lazy.Tensor) *lazy.Tensor {
			l := a.Add(b)
			l.SetData(lazy.FromSlice([]float32{7, 8}).Buffer())
			return l.Add(a)
		},
	}
	for name, fn := range fns {
		f := jit.Compile(fn)
		for i := 0; i < 3; i++ {
			a1, b1 := lazy.FromSlice([]float32{1, float32(i)}), lazy.FromSlice([]float32{2, 3})
			a2, b2 := lazy.FromSlice([]float32{1, float32(i)}), lazy.FromSlice([]float32{2, 3})
			if p, c := readValues(fn(a1, b1)), readValues(f(a2, b2)); p != c {
				t.Errorf("%s call %d: plain %s, compiled %s", name, i, p, c)
			}
		}
		if s := jit.StatsOf(f); s.GraphBreaks != 1 || s.Replays != 0 {
			t.Errorf("%s: stats %s, want one graph break and no replays", name, s)
		}
	}
}

// Tensors the function made stay its own when they are emptied: two of
// them swapped through Release and Restore compile (Restore into a
// released tensor was a graph break).
func TestSwapOfLocalsCompiles(t *testing.T) {
	f := jit.Compile(func(a, b *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
		l, m := a.Add(b), a.Sub(b)
		sl, sm := l.Release(), m.Release()
		l.Restore(sm)
		m.Restore(sl)
		return l, m
	})
	for i := 0; i < 3; i++ {
		l, m := f(lazy.FromSlice([]float32{float32(i)}), lazy.FromSlice([]float32{1}))
		if got, want := readValues(l)+" "+readValues(m), fmt.Sprint([]float32{float32(i - 1)}, []float32{float32(i + 1)}); got != want {
			t.Errorf("call %d: swapped %s, want %s", i, got, want)
		}
	}
	if s := jit.StatsOf(f); s.GraphBreaks != 0 || s.Traces != 1 || s.Replays != 3 {
		t.Errorf("stats %s, want one trace, no graph break, every call a replay", s)
	}
}

type twoParams struct{ A, B *lazy.Tensor }

// A signature traced before another call made more captured tensors
// known as written (the guard marks arguments that are such tensors) is
// still found when the same call comes again: the pattern of an optimizer
// step whose parameters get gradients on some calls only (found by the
// differential tester).
func TestSameSignatureAfterMoreWrittenCaptures(t *testing.T) {
	a, b := lazy.FromSlice([]float32{1}), lazy.FromSlice([]float32{10})
	f := jit.Compile(func(m *twoParams, useB bool) {
		m.A.Assign(m.A.Add(a))
		if useB {
			m.B.Assign(m.B.Add(b))
		}
	})
	m := &twoParams{a, b}
	for _, useB := range []bool{false, true, false, true, false} {
		f(m, useB)
	}
	if got := readValues(a) + readValues(b); got != "[32][40]" {
		t.Errorf("a, b = %s, want [32][40]", got)
	}
	if s := jit.StatsOf(f); s.Traces != 2 || s.Replays != 5 {
		t.Errorf("stats %s, want two traces (one per value of useB) and every call a replay", s)
	}
}

// A host op's operands are computed inside the trace (a cut before the op)
// and its results are device data: values of the graph all the same, which
// the trace maps back to their IR. Putting them into a tensor the function
// made compiles, as before device data into such tensors became a graph
// break; each call gets its own values and tensors.
func TestTraceComputedDataIntoLocalCompiles(t *testing.T) {
	fns := map[string]func(a *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor){
		"Restore of an operand's snapshot": func(a *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
			l := a.Add(a)
			n := l.NonZero()
			s := l.State()
			l.Assign(l.Add(a))
			d := l.Neg()
			l.Restore(s)
			return d.Add(n.Sum().Cast(lazy.F32)), l
		},
		"Restore of a result": func(a *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
			n := a.NonZero()
			l := n.AddScalar(1)
			l.Restore(n.State())
			return l.AddScalar(10), l
		},
		"TakeData of a result": func(a *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
			n := a.NonZero()
			l := n.AddScalar(1)
			l.TakeData(n)
			return l.AddScalar(10), l
		},
	}
	for name, fn := range fns {
		f := jit.Compile(fn)
		var prev *lazy.Tensor
		for i := 0; i < 3; i++ {
			d, l := f(lazy.FromSlice([]float32{1, 0, float32(i + 1)}))
			pd, pl := fn(lazy.FromSlice([]float32{1, 0, float32(i + 1)}))
			if c, p := readValues(d)+readValues(l), readValues(pd)+readValues(pl); c != p {
				t.Errorf("%s, call %d: compiled %s, plain %s", name, i, c, p)
			}
			if l == prev {
				t.Errorf("%s, call %d: the same tensor as the call before", name, i)
			}
			prev = l
		}
		if s := jit.StatsOf(f); s.GraphBreaks != 0 || s.Traces != 1 || s.Replays != 3 {
			t.Errorf("%s: stats %s, want one trace, no graph break, every call a replay", name, s)
		}
	}
}
