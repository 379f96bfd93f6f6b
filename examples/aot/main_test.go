package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
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
