package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// freshDevice makes a new embedded device the default for the test: its
// compile cache is empty, so uncached-compile counts do not depend on what
// ran before in this process (other tests, -count=N).
func freshDevice(t *testing.T) {
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(lazy.DevicesOf(host.NewClient(1))[0])
	t.Cleanup(func() { lazy.SetDefaultDevice(old) })
}

// TestPhasesWithJittest runs each phase of the demo under the jittest
// assertion that states what it must do.
func TestPhasesWithJittest(t *testing.T) {
	freshDevice(t)
	d, err := newDemo(config{Batch: 3, In: 5, Units: 2, Steady: 5, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	one := jit.Stats{Calls: 1, Traces: 1, Compiles: 1, Replays: 1}
	jittest.ExpectCompiles(t, 1, func() {
		jittest.ExpectStats(t, d.layer, one, d.first)
	})
	jittest.ExpectNoRecompile(t, d.layer, d.steady)
	jittest.ExpectStats(t, d.layer, jit.Stats{Calls: 5, Replays: 5}, d.steady)
	jittest.ExpectExecutions(t, 5, d.steady)

	recompile := jit.Stats{Calls: 1, Traces: 1, Compiles: 1, Replays: 1, Recompiles: 1}
	jittest.ExpectCompiles(t, 1, func() { jittest.ExpectStats(t, d.layer, recompile, d.staticChange) })
	jittest.ExpectCompiles(t, 1, func() { jittest.ExpectStats(t, d.layer, recompile, d.shapeChange) })
	jittest.ExpectNoRecompile(t, d.layer, d.firstAgain)
	jittest.ExpectNoRecompile(t, d.layer, d.shapeChange) // every traced signature replays

	// The graph break: counted once (the signature is then run lazily),
	// no trace, no replay; every call cuts at Item.
	jittest.ExpectCounters(t, map[string]int64{lazy.MetricJITGraphBreak: 1, lazy.MetricJITTrace: 0, lazy.MetricGraphCutPrefix + "Item": 3}, func() {
		jittest.ExpectStats(t, d.clip, jit.Stats{Calls: 3, GraphBreaks: 1}, d.graphBreak)
	})
	jittest.ExpectStats(t, d.clip, jit.Stats{Calls: 3}, d.graphBreak)
	// Its fix compiles once and replays without a cut.
	jittest.ExpectCounters(t, map[string]int64{lazy.MetricUncachedCompile: 1, lazy.MetricGraphCutPrefix + "Item": 0}, func() {
		jittest.ExpectStats(t, d.clipFix, jit.Stats{Calls: 3, Traces: 1, Compiles: 1, Replays: 3}, d.noGraphBreak)
	})

	// Both clip functions agree.
	for i, v := range d.vecs {
		a, b := d.clip(v, 4).Float32s(), d.clipFix(v, 4).Float32s()
		for k := range a {
			if diff := a[k] - b[k]; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("vector %d: clipByNorm %v, clipByNormTensor %v", i, a, b)
			}
		}
	}
}

// TestRun checks the printed phases and the Explain text of run.
func TestRun(t *testing.T) {
	freshDevice(t)
	var out bytes.Buffer
	res, err := run(config{Batch: 4, In: 8, Units: 3, Steady: 10, Seed: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	want := []struct {
		name    string
		stats   jit.Stats
		traced  int64 // JitTrace change
		uncache int64 // UncachedCompile change (-1: not checked)
	}{
		{"first call", jit.Stats{Calls: 1, Traces: 1, Compiles: 1, Replays: 1}, 1, 1},
		{"10 more calls", jit.Stats{Calls: 11, Traces: 1, Compiles: 1, Replays: 11}, 0, 0},
		{"act relu -> tanh", jit.Stats{Calls: 12, Traces: 2, Compiles: 2, Replays: 12, Recompiles: 1}, 1, 1},
		{"batch doubled", jit.Stats{Calls: 13, Traces: 3, Compiles: 3, Replays: 13, Recompiles: 2}, 1, 1},
		{"first signature", jit.Stats{Calls: 15, Traces: 3, Compiles: 3, Replays: 15, Recompiles: 2}, 0, 0},
		{"Item() inside", jit.Stats{Calls: 3, GraphBreaks: 1}, 0, -1},
		{"Where instead", jit.Stats{Calls: 3, Traces: 1, Compiles: 1, Replays: 3}, 1, 1},
	}
	if len(res.Phases) != len(want) {
		t.Fatalf("%d phases, want %d", len(res.Phases), len(want))
	}
	for i, w := range want {
		p := res.Phases[i]
		if p.Name != w.name || p.Stats != w.stats || p.Counters[lazy.MetricJITTrace] != w.traced ||
			(w.uncache >= 0 && p.Counters[lazy.MetricUncachedCompile] != w.uncache) {
			t.Errorf("phase %d: %q %s %v\nwant %q %s, JitTrace +%d, UncachedCompile +%d", i, p.Name, p.Stats, p.Counters, w.name, w.stats, w.traced, w.uncache)
		}
	}
	for _, s := range []string{
		"layer: calls=15 traces=3 compiles=3 replays=15 recompiles=2",
		`trace: arg 0=f32[4,8]@cpu:0, arg 1=f32[8,3]@cpu:0, arg 2=f32[3]@cpu:0, arg 3="relu"`,
		`recompile 1: arg 3: "relu" -> "tanh"`,
		"recompile 2: arg 0: f32[4,8]@cpu:0 -> f32[8,8]@cpu:0",
	} {
		if !strings.Contains(res.LayerExplain, s) {
			t.Errorf("layer Explain lacks %q:\n%s", s, res.LayerExplain)
		}
	}
	if !strings.Contains(res.ClipExplain, "graph break: Item at stats/main.go:") {
		t.Errorf("clipByNorm Explain does not name the Item call site:\n%s", res.ClipExplain)
	}
	if strings.Contains(res.ClipFixExplain, "graph break") {
		t.Errorf("clipByNormTensor breaks the graph:\n%s", res.ClipFixExplain)
	}
	if !strings.Contains(res.MetricsText, lazy.MetricJITGraphBreak) || !strings.Contains(out.String(), res.LayerExplain) {
		t.Errorf("output lacks the metrics report or Explain:\n%s", out.String())
	}
}

// TestBadSizes: negative sizes and counts are errors naming them, not a
// panic of the tensor constructors.
func TestBadSizes(t *testing.T) {
	for _, cfg := range []config{{Batch: -1, In: 8, Units: 3, Steady: 1}, {Batch: 4, In: -1, Units: 3, Steady: 1}, {Batch: 4, In: 8, Units: 3, Steady: -1}} {
		cfg.Out = &bytes.Buffer{}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%+v: panic %v", cfg, p)
				}
			}()
			if _, err := run(cfg); err == nil || !strings.Contains(err.Error(), "-batch") {
				t.Errorf("%+v: err = %v", cfg, err)
			}
		}()
	}
}
