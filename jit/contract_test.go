package jit_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// Tests of the promise jit(f) ≡ f: each case compares a compiled function
// with the plain one on the same inputs.

func TestAliasedArgumentsAreGuarded(t *testing.T) {
	plain := func(a, b *lazy.Tensor) *lazy.Tensor {
		a.Assign(a.AddScalar(1))
		return b.MulScalar(10)
	}
	for _, aliasedFirst := range []bool{false, true} {
		f := jit.Compile(plain)
		x, y := lazy.FromSlice([]float32{1}), lazy.FromSlice([]float32{2})
		call := func(aliased bool) float32 {
			if aliased {
				return f(x, x).Float32s()[0]
			}
			return f(x, y).Float32s()[0]
		}
		want := func(aliased bool) float32 {
			before := x.Float32s()[0]
			if aliased {
				return (before + 1) * 10
			}
			return y.Float32s()[0] * 10
		}
		order := []bool{false, true, false, true}
		if aliasedFirst {
			order = []bool{true, false, true, false}
		}
		for i, al := range order {
			w := want(al)
			if got := call(al); got != w {
				t.Errorf("aliasedFirst=%v call %d (aliased=%v): got %v, want %v", aliasedFirst, i, al, got, w)
			}
		}
		if s := jit.StatsOf(f); s.Traces != 2 {
			t.Errorf("aliasedFirst=%v: %s, want 2 traces (one per aliasing)", aliasedFirst, s)
		}
		if ex := jit.Explain(f); !strings.Contains(ex, "arg 0 and arg 1 are the same tensor") {
			t.Errorf("Explain does not name the aliasing:\n%s", ex)
		}
	}
}

func TestArgumentAliasingACapture(t *testing.T) {
	w := lazy.FromSlice([]float32{5})
	plain := func(a *lazy.Tensor) *lazy.Tensor {
		w.Assign(w.AddScalar(1))
		return a.MulScalar(10)
	}
	f := jit.Compile(plain)
	x := lazy.FromSlice([]float32{2})
	if got := f(x).Float32s()[0]; got != 20 {
		t.Fatalf("f(x) = %v, want 20", got)
	}
	// Called with the captured tensor itself: the plain function reads it
	// after its own update.
	before := w.Float32s()[0]
	if got := f(w).Float32s()[0]; got != (before+1)*10 {
		t.Errorf("f(w) = %v, want %v", got, (before+1)*10)
	}
	if got := f(x).Float32s()[0]; got != 20 {
		t.Errorf("f(x) after f(w) = %v, want 20", got)
	}
}

func TestReturnedInputKeepsIdentity(t *testing.T) {
	f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor {
		a.Assign(a.AddScalar(1))
		return a
	})
	g := jit.Compile(func(a, b *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
		b.Assign(b.Add(a))
		return b, a
	})
	x := lazy.FromSlice([]float32{1, 2})
	y := lazy.FromSlice([]float32{10, 20})
	for i := 0; i < 3; i++ {
		if r := f(x); r != x {
			t.Fatalf("call %d: f(x) returned another tensor than x", i)
		}
		r1, r2 := g(x, y)
		if r1 != y || r2 != x {
			t.Fatalf("call %d: g(x, y) returned other tensors than (y, x)", i)
		}
	}
	if got := x.Float32s(); got[0] != 4 || got[1] != 5 {
		t.Errorf("x = %v, want [4 5]", got)
	}
	if got := y.Float32s(); got[0] != 10+2+3+4 || got[1] != 20+3+4+5 {
		t.Errorf("y = %v", got)
	}
	// A captured tensor that is mutated and returned is returned as itself.
	w := lazy.FromSlice([]float32{0})
	h := jit.Compile(func(d *lazy.Tensor) *lazy.Tensor { w.Assign(w.Add(d)); return w })
	d := lazy.FromSlice([]float32{1})
	for i := 0; i < 3; i++ {
		if r := h(d); r != w {
			t.Fatalf("call %d: h returned another tensor than the captured w", i)
		}
	}
	if got := w.Float32s()[0]; got != 3 {
		t.Errorf("w = %v, want 3", got)
	}
}

func TestConcurrentMutationsAreLinearizable(t *testing.T) {
	w := lazy.FromSlice([]float32{0})
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		w.Assign(w.Add(x))
		return w.MulScalar(1)
	})
	one := lazy.FromSlice([]float32{1})
	f(one) // trace
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				f(one)
			}
		}()
	}
	wg.Wait()
	if got := w.Float32s()[0]; got != 201 {
		t.Errorf("w = %v after 201 calls, want 201 (lost updates)", got)
	}
}

func TestConcurrentReplaysAfterEviction(t *testing.T) {
	freshDevice(t)
	dev := lazy.DefaultDevice()
	lazy.SetCacheSize(dev, 1)
	t.Cleanup(func() { lazy.SetCacheSize(dev, lazy.DefaultCacheSize) })
	acc := lazy.FromSlice([]float32{0, 0})
	f := jit.Compile(func(a, b *lazy.Tensor) { a.Assign(a.Add(b)) })
	g := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return a.MulScalar(3).Sum(0) })
	one := lazy.FromSlice([]float32{1, 1})
	var wg sync.WaitGroup
	for k := 0; k < 4; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				f(acc, one)
				g(one) // evicts f's executable (cache size 1)
			}
		}()
	}
	wg.Wait()
	if got := acc.Float32s(); got[0] != 80 || got[1] != 80 {
		t.Errorf("acc = %v, want [80 80]", got)
	}
}

func TestTracesOfDifferentFunctionsDoNotBlock(t *testing.T) {
	inner := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) })
	outer := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		done := make(chan *lazy.Tensor)
		go func() { done <- inner(lazy.FromSlice([]float32{1})) }() // first call: a trace on another goroutine
		select {
		case r := <-done:
			_ = r
		case <-time.After(20 * time.Second):
			panic("deadlock: the other goroutine's trace waited for this one")
		}
		return x.MulScalar(2)
	})
	if got := outer(lazy.FromSlice([]float32{3})).Float32s()[0]; got != 6 {
		t.Errorf("outer = %v", got)
	}
	if s := jit.StatsOf(inner); s.Traces != 1 {
		t.Errorf("inner: %s", s)
	}
}

type node struct {
	W    *lazy.Tensor
	Next *node
}

func TestCyclicArgumentIsAnError(t *testing.T) {
	f, err := jit.CompileE(func(n *node) (*lazy.Tensor, error) { return n.W.AddScalar(1), nil })
	if err != nil {
		t.Fatal(err)
	}
	n := &node{W: lazy.FromSlice([]float32{1})}
	n.Next = &node{W: n.W, Next: n}
	_, err = f(n)
	var je *jit.Error
	if !errors.As(err, &je) || !strings.Contains(err.Error(), "cycle") || !strings.Contains(err.Error(), "arg 0.Next.Next") {
		t.Fatalf("err = %v, want a *jit.Error naming the cycle at arg 0.Next.Next", err)
	}
}

func TestReplaysDonateMutatedInputs(t *testing.T) {
	w := lazy.FromSlice(make([]float32, 1024))
	m := lazy.FromSlice(make([]float32, 1024))
	step := jit.Compile(func(g *lazy.Tensor) *lazy.Tensor {
		m.Assign(m.MulScalar(0.9).Add(g))
		w.Assign(w.Sub(m.MulScalar(0.1)))
		return w.Sum()
	})
	g := lazy.FromSlice(make([]float32, 1024))
	step(g)
	for i := 0; i < 5; i++ {
		before := lazy.Counter(lazy.MetricDonatedBuffers)
		step(g)
		if d := lazy.Counter(lazy.MetricDonatedBuffers) - before; d < 2 {
			t.Errorf("step %d donated %d buffers, want 2 (w and m)", i+2, d)
		}
	}
}

func TestPendingInputsSyncInOneGraph(t *testing.T) {
	f := jit.Compile(func(a, b *lazy.Tensor) *lazy.Tensor { return a.Add(b) })
	x := lazy.FromSlice([]float32{1, 2})
	f(x, x.MulScalar(2)) // trace
	before := lazy.Counter(lazy.MetricExecuteCount)
	f(x.AddScalar(1), x.AddScalar(2))
	if d := lazy.Counter(lazy.MetricExecuteCount) - before; d != 2 {
		t.Errorf("%d executions, want 2 (one sync graph for both pending inputs, one replay)", d)
	}
}

func TestHostFuncFeedingHostOps(t *testing.T) {
	double := func(in []*lazy.Literal) ([]*lazy.Literal, error) {
		out := in[0].Clone()
		for i, v := range out.F32() {
			out.F32()[i] = 2 * v
		}
		return []*lazy.Literal{out}, nil
	}
	plain := func(x *lazy.Tensor) *lazy.Tensor {
		d := lazy.HostFunc("contract_double", double, x.Shape())(x)[0]
		return d.MaskedSelect(d.GtScalar(3)).Sum()
	}
	f := jit.Compile(plain)
	for _, in := range [][]float32{{1, 2, 3}, {1, 2, 3}, {5, 0, 4}} {
		x := lazy.FromSlice(in)
		want := plain(x).Float32s()[0]
		var got float32
		if err := lazy.Try(func() { got = f(x).Float32s()[0] }); err != nil {
			t.Fatalf("f(%v): %v", in, err)
		}
		if got != want {
			t.Errorf("f(%v) = %v, want %v", in, got, want)
		}
	}
	if s := jit.StatsOf(f); s.GraphBreaks != 0 || s.Traces != 1 || s.HostFallbacks == 0 {
		t.Errorf("stats %s: want one trace, no graph break, host fallbacks on replay", s)
	}
}

func TestDumpsCoverJitWork(t *testing.T) {
	if os.Getenv("XLAJIT_CONTRACT_DUMP_CHILD") == "1" {
		f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(3).AddScalar(1) })
		x := lazy.FromSlice([]float32{1, 2})
		f(x)
		f(x)
		return
	}
	dir := t.TempDir()
	save := filepath.Join(dir, "save.txt")
	dump := filepath.Join(dir, "dump")
	out, err := runChild(t, "TestDumpsCoverJitWork", "XLAJIT_CONTRACT_DUMP_CHILD=1", "XLAJIT_DEBUG=3",
		"XLAJIT_SAVE_TENSORS_FILE="+save, "XLAJIT_DUMP_DIR="+dump)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	b, err := os.ReadFile(save)
	if err != nil {
		t.Fatalf("no XLAJIT_SAVE_TENSORS_FILE: %v", err)
	}
	if n := strings.Count(string(b), "Graph Hash:"); n < 2 {
		t.Errorf("XLAJIT_SAVE_TENSORS_FILE has %d graphs, want the replays too:\n%s", n, b)
	}
	ents, _ := os.ReadDir(dump)
	var mlir int
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".mlir") {
			mlir++
		}
	}
	if mlir == 0 {
		t.Errorf("XLAJIT_DUMP_DIR has no .mlir for the jit graph: %v", ents)
	}
	if !strings.Contains(out, "compile") || !strings.Contains(out, "replay") {
		t.Errorf("XLAJIT_DEBUG=3 output names no compile and replay:\n%s", out)
	}
}

func TestDebugLevelOneLinePerCompile(t *testing.T) {
	if os.Getenv("XLAJIT_CONTRACT_DUMP_CHILD") == "1" {
		f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(5).AddScalar(2) })
		x := lazy.FromSlice([]float32{1, 2, 3})
		f(x)
		f(x)
		f(lazy.FromSlice([]float32{1}))
		return
	}
	out, err := runChild(t, "TestDebugLevelOneLinePerCompile", "XLAJIT_CONTRACT_DUMP_CHILD=1", "XLAJIT_DEBUG=1")
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var compiles int
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "xlajit: compile") {
			compiles++
		}
	}
	if compiles < 2 {
		t.Errorf("XLAJIT_DEBUG=1 printed %d compile lines, want one per compile (2 traces):\n%s", compiles, out)
	}
}

func runChild(t *testing.T, test string, env ...string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), "XLAJIT_QUIET=1"), env...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

func TestHostFuncNamesAreUnique(t *testing.T) {
	id := func(in []*lazy.Literal) ([]*lazy.Literal, error) { return in, nil }
	neg := func(in []*lazy.Literal) ([]*lazy.Literal, error) { return in, nil }
	x := lazy.FromSlice([]float32{1})
	lazy.HostFunc("contract_unique", id, x.Shape())
	lazy.HostFunc("contract_unique", id, x.Shape()) // the same function: fine
	err := lazy.Try(func() { lazy.HostFunc("contract_unique", neg, x.Shape()) })
	if err == nil || !strings.Contains(err.Error(), "contract_unique") {
		t.Errorf("re-registering a HostFunc name with another function: err = %v", err)
	}
}

func TestHostFuncResultsChecked(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2, 3})
	cases := map[string]lazy.HostFn{
		"contract_nil": func(in []*lazy.Literal) ([]*lazy.Literal, error) { return []*lazy.Literal{nil}, nil },
		"contract_short": func(in []*lazy.Literal) ([]*lazy.Literal, error) {
			return []*lazy.Literal{hlo.NewLiteral(lazy.F32, 2)}, nil
		},
		"contract_count": func(in []*lazy.Literal) ([]*lazy.Literal, error) { return nil, nil },
		"contract_data": func(in []*lazy.Literal) ([]*lazy.Literal, error) {
			return []*lazy.Literal{{DType: lazy.F32, Dims: []int64{3}, Data: make([]byte, 4)}}, nil
		},
		"contract_dtype": func(in []*lazy.Literal) ([]*lazy.Literal, error) {
			return []*lazy.Literal{hlo.NewLiteral(lazy.I32, 3)}, nil
		},
	}
	for name, fn := range cases {
		for _, mode := range []string{"lazy", "jit"} {
			h := lazy.HostFunc(name, fn, x.Shape())
			var err error
			if mode == "lazy" {
				err = lazy.Try(func() { h(x)[0].Float32s() })
			} else {
				f, _ := jit.CompileE(func(x *lazy.Tensor) (*lazy.Tensor, error) { return h(x)[0].AddScalar(1), nil })
				err = lazy.Try(func() {
					r, e := f(x)
					if e != nil {
						panic(e)
					}
					r.Float32s()
				})
			}
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s (%s): err = %v, want an error naming the host function", name, mode, err)
			}
		}
	}
}

func TestRecompileHints(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor, lr float64) *lazy.Tensor { return x.MulScalar(lr) })
	x := lazy.FromSlice([]float32{1, 2})
	f(x, 0.1)
	f(x, 0.05)
	if ex := jit.Explain(f); !strings.Contains(ex, "arg 1: 0.1 -> 0.05") || !strings.Contains(ex, "pass a value that changes between calls") {
		t.Errorf("a changed float argument does not suggest a tensor:\n%s", ex)
	}
	g := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Sum(1) })
	for _, n := range []int64{8, 7, 5, 3} {
		g(lazy.Zeros(lazy.F32, n, 4))
	}
	if ex := jit.Explain(g); !strings.Contains(ex, "pad batches") {
		t.Errorf("a leading dimension that keeps changing does not suggest padding:\n%s", ex)
	}
}

type linear struct{ W *lazy.Tensor }

func TestReplacedTensorFieldWarns(t *testing.T) {
	step := func(m *linear, g *lazy.Tensor) *lazy.Tensor {
		m.W = m.W.Sub(g) // should be m.W.Assign(m.W.Sub(g))
		return m.W.Sum()
	}
	m := &linear{W: lazy.FromSlice([]float32{1, 2})}
	g := lazy.FromSlice([]float32{1, 1})
	f := jit.Compile(step)
	f(m, g)
	if ex := jit.Explain(f); !strings.Contains(ex, "arg 0.W") || !strings.Contains(ex, "Assign") {
		t.Errorf("Explain does not warn about the replaced field:\n%s", ex)
	}
	strict, _ := jit.CompileE(func(m *linear, g *lazy.Tensor) (*lazy.Tensor, error) { return step(m, g), nil }, jit.FullGraph())
	m2 := &linear{W: lazy.FromSlice([]float32{1, 2})}
	w := m2.W
	if _, err := strict(m2, g); err == nil || !strings.Contains(err.Error(), "arg 0.W") {
		t.Errorf("FullGraph: err = %v, want an error naming arg 0.W", err)
	}
	if m2.W != w || w.Float32s()[0] != 1 {
		t.Errorf("a failed trace left the field replaced or the tensor changed")
	}
}

// The first call passes the captured tensor itself: the trace still tells
// the closure's reads from the argument's, and a later call with another
// tensor is right.
func TestCapturedTensorPassedFirst(t *testing.T) {
	w := lazy.FromSlice([]float32{5})
	f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor {
		w.Assign(w.AddScalar(1))
		return a.MulScalar(10)
	})
	if got := f(w).Float32s()[0]; got != 60 {
		t.Fatalf("f(w) = %v, want 60 (w is 6 when read)", got)
	}
	x := lazy.FromSlice([]float32{2})
	if got := f(x).Float32s()[0]; got != 20 {
		t.Errorf("f(x) after f(w) = %v, want 20", got)
	}
	if got := w.Float32s()[0]; got != 7 {
		t.Errorf("w = %v, want 7", got)
	}
	before := w.Float32s()[0]
	if got := f(w).Float32s()[0]; got != (before+1)*10 {
		t.Errorf("f(w) again = %v, want %v", got, (before+1)*10)
	}
	// A pure function reads the same values either way.
	c := lazy.FromSlice([]float32{30})
	g := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return c.Rsqrt().Add(a) })
	g(c)
	if got := g(lazy.FromSlice([]float32{4})).Float32s()[0]; got < 4.18 || got > 4.19 {
		t.Errorf("g(4) = %v, want 4.1826", got)
	}
}
