package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
)

// TestFirstCallReplays must run first: the first call of the generated
// wrapper in the process replays the embedded trace (no trace), and its
// result is the one jit.Compile computes by tracing.
func TestFirstCallReplays(t *testing.T) {
	p := newParams(3)
	x := images(Batch)
	got := PredictAOT(x, p.W1, p.B1, p.W2, p.B2).Float32s()
	if s := jit.StatsOf(PredictAOT); s.Calls != 1 || s.Traces != 0 || s.Replays != 1 || s.Compiles != 1 {
		t.Fatalf("first call: %s; want calls=1 traces=0 compiles=1 replays=1", s)
	}
	compiled := jit.Compile(Predict)
	want := compiled(x, p.W1, p.B1, p.W2, p.B2).Float32s()
	if s := jit.StatsOf(compiled); s.Traces != 1 {
		t.Errorf("jit.Compile: %s", s)
	}
	if !slices.Equal(got, want) {
		t.Errorf("PredictAOT and jit.Compile(Predict) differ:\n%v\n%v", got[:10], want[:10])
	}
	eager := Predict(x, p.W1, p.B1, p.W2, p.B2).Float32s()
	for i := range eager {
		if d := got[i] - eager[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("element %d: aot %g, lazy %g", i, got[i], eager[i])
		}
	}
}

// TestModelStructReplays: the wrapper of a function taking a model struct
// replays its embedded trace on another model of the same structure, with
// the results of the function itself.
func TestModelStructReplays(t *testing.T) {
	lazy.ManualSeed(8)
	m := newClassifier()
	x := images(Batch)
	before := jit.StatsOf(ClassifyAOT)
	got := ClassifyAOT(m, x).Int64s()
	if s := jit.StatsOf(ClassifyAOT); s.Replays != before.Replays+1 || s.Traces != before.Traces {
		t.Errorf("ClassifyAOT: %s (before %s); want one more replay and no trace", s, before)
	}
	if want := Classify(m, x).Int64s(); !slices.Equal(got, want) {
		t.Errorf("ClassifyAOT %v, Classify %v", got, want)
	}
}

// Other batch sizes go through jit.Compile of Predict (one trace), and the
// traced shape keeps replaying.
func TestOtherShapesTrace(t *testing.T) {
	p := newParams(4)
	before := jit.StatsOf(PredictAOT)
	small := images(3)
	got := PredictAOT(small, p.W1, p.B1, p.W2, p.B2).Float32s()
	want := Predict(small, p.W1, p.B1, p.W2, p.B2).Float32s()
	if len(got) != 30 {
		t.Fatalf("%d results", len(got))
	}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("element %d: aot %g, lazy %g", i, got[i], want[i])
		}
	}
	PredictAOT(images(Batch), p.W1, p.B1, p.W2, p.B2)
	s := jit.StatsOf(PredictAOT)
	if s.Traces-before.Traces != 1 || s.Replays-before.Replays != 2 || s.Calls-before.Calls != 2 {
		t.Errorf("before %s, after %s: want one more trace, two more replays", before, s)
	}
	if !strings.Contains(jit.Explain(PredictAOT), "ahead-of-time trace") {
		t.Errorf("Explain: %s", jit.Explain(PredictAOT))
	}
}

// TestPersistentCache: a program's first call compiles the embedded graph
// under the hash the generator recorded, so with
// XLAJIT_PERSISTENT_CACHE_PATH set the next program start loads it from
// disk instead of compiling.
func TestPersistentCache(t *testing.T) {
	if os.Getenv("AOT_HELPER") != "" {
		t.Skip("helper process")
	}
	dir := t.TempDir()
	run := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFirstCall$", "-test.v")
		cmd.Env = append(os.Environ(), "AOT_HELPER=1", "XLAJIT_PERSISTENT_CACHE_PATH="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	if out := run(); !strings.Contains(out, "uncached=1 persistent=0 traces=0") {
		t.Fatalf("first process:\n%s", out)
	}
	gen, err := os.ReadFile("zz_xlajit_model.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Name: +"Predict",[^}]*?Hash: +"([0-9a-f]+)"`).FindSubmatch(gen)
	if m == nil {
		t.Fatal("no hash for Predict in zz_xlajit_model.go")
	}
	if _, err := os.Stat(filepath.Join(dir, string(m[1])+".mlir")); err != nil {
		t.Errorf("no persistent cache entry under the generated hash: %v", err)
	}
	if out := run(); !strings.Contains(out, "uncached=0 persistent=1 traces=0") {
		t.Fatalf("second process:\n%s", out)
	}
}

// TestHelperFirstCall is the process TestPersistentCache starts.
func TestHelperFirstCall(t *testing.T) {
	if os.Getenv("AOT_HELPER") == "" {
		t.Skip("run by TestPersistentCache")
	}
	p, x := newParams(1), images(Batch)
	lazy.ResetMetrics()
	PredictAOT(x, p.W1, p.B1, p.W2, p.B2)
	fmt.Printf("uncached=%d persistent=%d traces=%d\n", lazy.Counter(lazy.MetricUncachedCompile),
		lazy.Counter(lazy.MetricPersistentCacheHit), jit.StatsOf(PredictAOT).Traces)
}

// Inside another traced function the wrapper is inlined into that trace.
func TestInsideJit(t *testing.T) {
	p := newParams(6)
	x := images(Batch)
	outer := jit.Compile(func(x, w1, b1, w2, b2 *lazy.Tensor) *lazy.Tensor {
		return PredictAOT(x, w1, b1, w2, b2).MulScalar(2)
	})
	got := outer(x, p.W1, p.B1, p.W2, p.B2).Float32s()
	want := Predict(x, p.W1, p.B1, p.W2, p.B2).MulScalar(2).Float32s()
	for i := range want {
		if d := got[i] - want[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("element %d: %g, want %g", i, got[i], want[i])
		}
	}
	if s := jit.StatsOf(outer); s.Traces != 1 || s.Compiles != 1 {
		t.Errorf("outer: %s", s)
	}
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "predicted classes") || !strings.Contains(out.String(), "PredictAOT: calls=") {
		t.Errorf("output:\n%s", out.String())
	}
}

// BenchmarkPredict compares the generated wrapper with jit.Compile of the
// same function on the traced shapes (both replay the same executable).
func BenchmarkPredict(b *testing.B) {
	p := newParams(5)
	x := images(Batch)
	b.Run("aot", func(b *testing.B) {
		PredictAOT(x, p.W1, p.B1, p.W2, p.B2)
		b.ReportAllocs()
		for b.Loop() {
			PredictAOT(x, p.W1, p.B1, p.W2, p.B2)
		}
	})
	b.Run("jit", func(b *testing.B) {
		f := jit.Compile(Predict)
		f(x, p.W1, p.B1, p.W2, p.B2)
		b.ReportAllocs()
		for b.Loop() {
			f(x, p.W1, p.B1, p.W2, p.B2)
		}
	})
}

// BenchmarkDispatch is the same comparison on a one-element function,
// where the call overhead dominates.
func BenchmarkDispatch(b *testing.B) {
	x := lazy.FromSlice([]float32{1}, 1)
	b.Run("aot", func(b *testing.B) {
		TinyAOT(x)
		b.ReportAllocs()
		for b.Loop() {
			TinyAOT(x)
		}
	})
	b.Run("jit", func(b *testing.B) {
		f := jit.Compile(Tiny)
		f(x)
		b.ReportAllocs()
		for b.Loop() {
			f(x)
		}
	})
}

// The generated wrappers match the functions' current bodies (a stale
// go generate fails here).
func TestAOTUpToDate(t *testing.T) { jittest.CheckAOT(t) }
