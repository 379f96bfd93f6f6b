package jit_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

func vals(t *lazy.Tensor) []float32 { return t.Float32s() }

// freshDevice makes a new embedded device (with an empty compile cache) the
// default for the rest of the test, so compile counts do not depend on what
// ran before (go test -count=N).
func freshDevice(t *testing.T) {
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(lazy.DevicesOf(host.NewClient(1))[0])
	t.Cleanup(func() { lazy.SetDefaultDevice(old) })
}

func TestAccumulateInPlace(t *testing.T) {
	acc := lazy.FromSlice([]float32{0, 0})
	inc := lazy.FromSlice([]float32{1, 2})
	f := jit.Compile(func(a, b *lazy.Tensor) { a.Assign(a.Add(b)) })
	for i := 1; i <= 10; i++ {
		f(acc, inc)
		got := vals(acc)
		if got[0] != float32(i) || got[1] != float32(2*i) {
			t.Fatalf("call %d: acc = %v, want [%d %d]", i, got, i, 2*i)
		}
	}
	if s := jit.StatsOf(f); s.Traces != 1 || s.Replays != 10 || s.Compiles != 1 {
		t.Errorf("stats %s", s)
	}
}

func TestRandomDiffersPerCallWithoutTransfers(t *testing.T) {
	lazy.ManualSeed(42)
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Add(lazy.RandUniform(lazy.F32, 0, 1, 4)) })
	x := lazy.Zeros(lazy.F32, 4)
	lazy.Sync(x)
	f(x) // trace + compile
	var outs []*lazy.Tensor
	jittest.ExpectCounters(t, map[string]int64{lazy.MetricTransferFromDevice: 0, lazy.MetricUncachedCompile: 0, lazy.MetricExecuteCount: 5}, func() {
		for i := 0; i < 5; i++ {
			outs = append(outs, f(x))
		}
	})
	seen := map[string]bool{}
	for _, o := range outs {
		v := fmt.Sprint(vals(o))
		if seen[v] {
			t.Errorf("random values repeat across calls: %s", v)
		}
		seen[v] = true
		for _, e := range vals(o) {
			if e < 0 || e >= 1 {
				t.Errorf("value %v outside [0,1)", e)
			}
		}
	}
}

func TestGuardsAndRecompiles(t *testing.T) {
	freshDevice(t)
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(2).AddScalar(1) })
	a := lazy.FromSlice([]float32{1, 2, 3})
	b := lazy.FromSlice([]float32{1, 2, 3, 4})
	jittest.ExpectStats(t, f, jit.Stats{Calls: 1, Traces: 1, Compiles: 1, Replays: 1}, func() { f(a) })
	jittest.ExpectNoRecompile(t, f, func() {
		for i := 0; i < 3; i++ {
			f(a)
		}
	})
	jittest.ExpectCompiles(t, 1, func() { f(b) })
	jittest.ExpectStats(t, f, jit.Stats{Calls: 1, Replays: 1}, func() { f(a) })
	if got := vals(f(b)); got[3] != 9 {
		t.Errorf("f(b) = %v", got)
	}
	ex := jit.Explain(f)
	if !strings.Contains(ex, "arg 0: f32[3]@cpu:0 -> f32[4]@cpu:0") {
		t.Errorf("Explain does not name the changed argument:\n%s", ex)
	}
}

func TestNoInputs(t *testing.T) {
	f := jit.Compile(func() *lazy.Tensor { return lazy.Arange(lazy.F32, 0, 4, 1).MulScalar(3) })
	for i := 0; i < 2; i++ {
		if got := vals(f()); fmt.Sprint(got) != "[0 3 6 9]" {
			t.Fatalf("got %v", got)
		}
	}
	if s := jit.StatsOf(f); s.Traces != 1 || s.Replays != 2 {
		t.Errorf("stats %s", s)
	}
}

func TestPassThroughAndDuplicateOutputs(t *testing.T) {
	f := jit.Compile(func(x, y *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor, *lazy.Tensor, *lazy.Tensor, int) {
		z := x.Add(y)
		return x, z, z, nil, 7
	})
	x := lazy.FromSlice([]float32{1, 2})
	y := lazy.FromSlice([]float32{3, 4})
	for i := 0; i < 2; i++ {
		a, b, c, d, n := f(x, y)
		if a != x {
			t.Errorf("call %d: input returned unchanged is a different tensor", i)
		}
		if b != c {
			t.Errorf("call %d: the same tensor returned twice became two tensors", i)
		}
		if d != nil || n != 7 {
			t.Errorf("call %d: nil/plain outputs = %v, %d", i, d, n)
		}
		if got := vals(b); got[0] != 4 || got[1] != 6 {
			t.Errorf("call %d: sum = %v", i, got)
		}
	}
}

func TestCapturedWeightsSeenByReplay(t *testing.T) {
	w := lazy.FromSlice([]float32{1, 1})
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Mul(w) })
	x := lazy.FromSlice([]float32{2, 3})
	if got := vals(f(x)); got[0] != 2 || got[1] != 3 {
		t.Fatalf("got %v", got)
	}
	w.Assign(w.MulScalar(10)) // pending update, seen at the next call
	if got := vals(f(x)); got[0] != 20 || got[1] != 30 {
		t.Fatalf("after update got %v", got)
	}
	w.Assign(lazy.FromSlice([]float32{-1, 5}))
	lazy.Sync(w)
	if got := vals(f(x)); got[0] != -2 || got[1] != 15 {
		t.Fatalf("after second update got %v", got)
	}
	if s := jit.StatsOf(f); s.Traces != 1 {
		t.Errorf("stats %s", s)
	}
}

func TestStructAndStaticArgs(t *testing.T) {
	type layer struct {
		W, B  *lazy.Tensor
		Scale float64
		Acts  []*lazy.Tensor
	}
	f := jit.Compile(func(l layer, x *lazy.Tensor, relu bool) *lazy.Tensor {
		y := x.MatMul(l.W).Add(l.B).MulScalar(l.Scale)
		for _, a := range l.Acts {
			y = y.Add(a)
		}
		if relu {
			y = y.ReLU()
		}
		return y
	})
	l := layer{W: lazy.FromSlice([]float32{1, 0, 0, 1}, 2, 2), B: lazy.FromSlice([]float32{-5, 0}), Scale: 2,
		Acts: []*lazy.Tensor{lazy.FromSlice([]float32{1, 1})}}
	x := lazy.FromSlice([]float32{1, 2}, 1, 2)
	if got := vals(f(l, x, true)); fmt.Sprint(got) != "[0 5]" {
		t.Errorf("relu: %v", got)
	}
	if got := vals(f(l, x, false)); fmt.Sprint(got) != "[-7 5]" {
		t.Errorf("no relu: %v", got)
	}
	l.Scale = 1
	if got := vals(f(l, x, false)); fmt.Sprint(got) != "[-3 3]" {
		t.Errorf("scale 1: %v", got)
	}
	if s := jit.StatsOf(f); s.Traces != 3 || s.Recompiles != 2 {
		t.Errorf("stats %s", s)
	}
	if ex := jit.Explain(f); !strings.Contains(ex, "arg 0.Scale: 2 -> 1") {
		t.Errorf("Explain:\n%s", ex)
	}
}

func TestShapeErrorLeavesEverythingIntact(t *testing.T) {
	lazy.ManualSeed(7)
	dev := lazy.DefaultDevice()
	x := lazy.FromSlice([]float32{1, 2, 3})
	y := lazy.FromSlice([]float32{1, 2})
	f := jit.Compile(func(a, b *lazy.Tensor) (*lazy.Tensor, error) {
		a.Assign(a.AddScalar(100))
		_ = lazy.RandN(lazy.F32, 3)
		return a.Add(b), nil // shapes [3] and [2] do not broadcast
	})
	rngBefore := dev.RNGState().State()
	xBefore := x.State()
	snap := lazy.CounterSnapshot()
	_, err := f(x, y)
	if err == nil {
		t.Fatal("no error for mismatched shapes")
	}
	var le *lazy.Error
	if !errors.As(err, &le) || !strings.Contains(le.Site, "jit_test.go:") || !strings.Contains(err.Error(), "f32[3], f32[2]") {
		t.Errorf("error does not name op, shapes and call site: %v", err)
	}
	if !x.State().SameData(xBefore) || fmt.Sprint(vals(x)) != "[1 2 3]" {
		t.Errorf("input changed: %v", vals(x))
	}
	if !dev.RNGState().State().SameData(rngBefore) {
		t.Errorf("RNG state changed")
	}
	after := lazy.CounterSnapshot()
	for k, v := range after {
		if k != lazy.MetricTransferFromDevice && k != lazy.MetricGraphCutPrefix+"Float32s" && v != snap[k] {
			t.Errorf("counter %s changed: %d -> %d", k, snap[k], v)
		}
	}
	if s := jit.StatsOf(f); s.Traces != 0 || s.Compiles != 0 {
		t.Errorf("stats %s", s)
	}
}

func TestConcurrentCallsCompileOnce(t *testing.T) {
	freshDevice(t)
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(3).Sub(x) })
	x := lazy.FromSlice([]float32{1, 2, 3, 4})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	jittest.ExpectCompiles(t, 1, func() {
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 1000; i++ {
					y := f(x)
					if i%250 == 0 {
						if got := vals(y); got[3] != 8 {
							errs <- fmt.Errorf("got %v", got)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	})
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := jit.StatsOf(f); s.Traces != 1 || s.Compiles != 1 || s.Calls != 8000 || s.Replays != 8000 {
		t.Errorf("stats %s", s)
	}
}

func TestGraphBreak(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		if x.Sum().Item() > 0 { // a read: graph break
			return x.MulScalar(2)
		}
		return x.Neg()
	})
	x := lazy.FromSlice([]float32{1, 2})
	n := lazy.FromSlice([]float32{-1, -2})
	for i := 0; i < 2; i++ {
		if got := vals(f(x)); fmt.Sprint(got) != "[2 4]" {
			t.Errorf("got %v", got)
		}
	}
	if got := vals(f(n)); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("negative branch got %v", got)
	}
	s := jit.StatsOf(f)
	if s.GraphBreaks != 1 || s.Replays != 0 {
		t.Errorf("stats %s", s)
	}
	if ex := jit.Explain(f); !strings.Contains(ex, "graph break: Item at jit/jit_test.go:") {
		t.Errorf("Explain:\n%s", ex)
	}
	g := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) {
		_ = x.Sum().Item()
		return x, nil
	}, jit.FullGraph())
	if _, err := g(x); err == nil || !strings.Contains(err.Error(), "graph break") {
		t.Errorf("FullGraph: err = %v", err)
	}
}

func TestRecompileLimit(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) }, jit.WithRecompileLimit(2))
	for n := 1; n <= 4; n++ {
		y := f(lazy.Zeros(lazy.F32, int64(n)))
		if got := vals(y); len(got) != n || got[0] != 1 {
			t.Errorf("n=%d got %v", n, got)
		}
	}
	if s := jit.StatsOf(f); s.Traces != 2 {
		t.Errorf("stats %s", s)
	}
	g := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) { return x, nil }, jit.WithRecompileLimit(1), jit.FullGraph())
	g(lazy.Zeros(lazy.F32, 1))
	if _, err := g(lazy.Zeros(lazy.F32, 2)); err == nil || !strings.Contains(err.Error(), "recompile limit") {
		t.Errorf("FullGraph limit: %v", err)
	}
}

func TestInlineNestedCompiled(t *testing.T) {
	freshDevice(t)
	inner := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(2) })
	outer := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return inner(x).AddScalar(1) })
	x := lazy.FromSlice([]float32{1, 2})
	jittest.ExpectCompiles(t, 1, func() {
		if got := vals(outer(x)); fmt.Sprint(got) != "[3 5]" {
			t.Errorf("got %v", got)
		}
	})
	if s := jit.StatsOf(inner); s.Traces != 0 || s.Replays != 0 || s.Calls != 1 {
		t.Errorf("inner stats %s", s)
	}
}

func TestUnsupportedSignature(t *testing.T) {
	if _, err := jit.CompileE(func(m map[string]*lazy.Tensor) *lazy.Tensor { return nil }); err == nil {
		t.Error("map argument accepted")
	}
	if _, err := jit.CompileE(42); err == nil {
		t.Error("non-function accepted")
	}
}

func TestGradInsideCompiled(t *testing.T) {
	w := lazy.FromSlice([]float32{1, 2, 3})
	step := jit.Compile(func(x *lazy.Tensor, lr float64) *lazy.Tensor {
		loss := x.Mul(w).Sum().Square()
		g := lazy.Grad(loss, w)[0]
		w.Assign(w.Sub(g.MulScalar(lr)))
		return loss
	})
	x := lazy.FromSlice([]float32{1, 1, 1})
	prev := float32(1e9)
	for i := 0; i < 5; i++ {
		l := step(x, 0.01).Float32s()[0]
		if l >= prev {
			t.Errorf("loss did not fall: %v -> %v", prev, l)
		}
		prev = l
	}
}

// Concurrent replays of a random function draw distinct numbers, race-free.
func TestConcurrentRandomReplays(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Add(lazy.RandUniform(lazy.F32, 0, 1, 2)) })
	x := lazy.Zeros(lazy.F32, 2)
	f(x)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				v := fmt.Sprint(vals(f(x)))
				mu.Lock()
				if seen[v] {
					t.Errorf("repeated draw %s", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// Results may be slices, structs and pointers of tensors mixed with plain
// values; methods values compile like functions.
func TestStructuredResults(t *testing.T) {
	type out struct {
		Sum   *lazy.Tensor
		Parts []*lazy.Tensor
		Note  string
	}
	f := jit.Compile(func(xs []*lazy.Tensor) (*out, []*lazy.Tensor, error) {
		s := lazy.Zeros(lazy.F32, 2)
		for _, x := range xs {
			s = s.Add(x)
		}
		return &out{Sum: s, Parts: []*lazy.Tensor{xs[0].Neg(), s.MulScalar(2)}, Note: "ok"}, xs, nil
	})
	a, b := lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{3, 4})
	for i := 0; i < 2; i++ {
		o, same, err := f([]*lazy.Tensor{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(vals(o.Sum)) != "[4 6]" || fmt.Sprint(vals(o.Parts[0])) != "[-1 -2]" || fmt.Sprint(vals(o.Parts[1])) != "[8 12]" || o.Note != "ok" {
			t.Errorf("call %d: %v %v %v %q", i, vals(o.Sum), vals(o.Parts[0]), vals(o.Parts[1]), o.Note)
		}
		if len(same) != 2 || same[0] != a || same[1] != b {
			t.Errorf("call %d: inputs returned unchanged are not the inputs", i)
		}
	}
	if s := jit.StatsOf(f); s.Traces != 1 || s.Replays != 2 {
		t.Errorf("stats %s", s)
	}
	m := &scaler{k: lazy.FromSlice([]float32{10, 100})}
	g := jit.Compile(m.apply)
	if got := vals(g(a)); fmt.Sprint(got) != "[10 200]" {
		t.Errorf("method value: %v", got)
	}
}

type scaler struct{ k *lazy.Tensor }

func (s *scaler) apply(x *lazy.Tensor) *lazy.Tensor { return x.Mul(s.k) }

// TestReplayAfterEviction: a replay whose executable the compile cache
// dropped compiles it again (one UncachedCompile) and keeps replaying,
// through a fast wrapper and through the reflective path.
func TestReplayAfterEviction(t *testing.T) {
	freshDevice(t)
	dev := lazy.DefaultDevice()
	t.Cleanup(func() { lazy.SetCacheSize(dev, 2048) })
	x := lazy.FromSlice([]float32{1, 2})
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(3) })
	g := jit.Compile(func(x, y *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) { return x.AddScalar(1), y })
	f(x)
	g(x, x)
	lazy.SetCacheSize(dev, 1) // keeps g's executable, drops f's
	before := lazy.Counter(lazy.MetricUncachedCompile)
	for i := 0; i < 3; i++ {
		if got := vals(f(x)); got[0] != 3 || got[1] != 6 {
			t.Fatalf("call %d after eviction: %v, want [3 6]", i, got)
		}
	}
	if n := lazy.Counter(lazy.MetricUncachedCompile) - before; n != 1 {
		t.Errorf("%d uncached compiles after the eviction, want 1", n)
	}
	lazy.SetCacheSize(dev, 1) // now drops g's
	if a, b := g(x, x); vals(a)[1] != 3 || b != x {
		t.Errorf("g after eviction: %v, %p (want [2 3], the input)", vals(a), b)
	}
	if s := jit.StatsOf(f); s.Calls != 4 || s.Replays != 4 || s.Traces != 1 {
		t.Errorf("stats of f %s, want 4 calls, 4 replays (the first call runs the compiled program too), 1 trace", s)
	}
}

// TestReplayParameterOrder: a program whose parameters are captures
// and some of the arguments, in another order, replays with each call's
// arguments and the captures' current values.
func TestReplayParameterOrder(t *testing.T) {
	w := lazy.FromSlice([]float32{1, 2})
	b := lazy.FromSlice([]float32{10, 20})
	f := jit.Compile(func(unused, x, y *lazy.Tensor) *lazy.Tensor { return b.Add(y.Mul(w)).Sub(x) })
	z := lazy.FromSlice([]float32{0, 0})
	for i := 0; i < 4; i++ {
		x := lazy.FromSlice([]float32{float32(i), 1})
		y := lazy.FromSlice([]float32{3, float32(i)})
		got := vals(f(z, x, y))
		want0, want1 := 10+3*vals(w)[0]-float32(i), 20+float32(i)*vals(w)[1]-1
		if got[0] != want0 || got[1] != want1 {
			t.Fatalf("call %d: %v, want [%v %v]", i, got, want0, want1)
		}
		w.Assign(w.AddScalar(1))
	}
	if s := jit.StatsOf(f); s.Traces != 1 || s.Replays != 4 || s.Calls != 4 {
		t.Errorf("stats %s, want 1 trace, 4 calls and replays", s)
	}
}
