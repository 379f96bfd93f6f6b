package jit_test

import (
	"sync"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
)

// TestFailedTraceKeepsConcurrentCounts: a trace that fails drops what it
// counted (the host op it ran, the transfers that took), while replays of
// another function on other goroutines, made during that trace, keep every
// count: afterwards each counter has moved by exactly the replays' counts.
func TestFailedTraceKeepsConcurrentCounts(t *testing.T) {
	freshDevice(t)
	x := lazy.FromSlice([]float32{1, 0, 3})
	lazy.Sync(x)
	f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return a.MulScalar(2).Exp() })
	f(x)
	one := jittest.Delta(func() { f(x) })
	if one[lazy.MetricJITReplay] != 1 || one[lazy.MetricExecuteCount] != 1 {
		t.Fatalf("one replay counted %v", one)
	}

	inTrace, release := make(chan struct{}), make(chan struct{})
	bad := jit.Compile(func(a *lazy.Tensor) (*lazy.Tensor, error) {
		nz := a.NonZero() // a host op: runs during the trace and counts
		close(inTrace)
		<-release
		a.Add(lazy.FromSlice([]float32{1, 2})) // shapes differ: the trace fails
		return nz, nil
	})
	const workers, calls = 4, 25
	var failed error
	d := jittest.Delta(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, failed = bad(x)
		}()
		<-inTrace
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range calls {
					f(x)
				}
			}()
		}
		wg.Wait()
		close(release)
		<-done
	})
	if failed == nil {
		t.Fatal("the failing trace returned no error")
	}
	for k := range merge(d, one) {
		if want := one[k] * workers * calls; d[k] != want {
			t.Errorf("counter %s moved by %d, want %d (%d replays of %d each)", k, d[k], want, workers*calls, one[k])
		}
	}
	if s := jit.StatsOf(bad); s.Traces != 0 || s.HostFallbacks != 0 {
		t.Errorf("failed function's stats %s", s)
	}
}

func merge(a, b map[string]int64) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// A replay made inside a counting scope that is dropped leaves every
// counter as it was, JitReplay included, and one in a kept scope counts
// like one outside any.
func TestReplayCountsIntoTheCallersScope(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2})
	lazy.Sync(x)
	f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return a.AddScalar(1) })
	f(x)
	for _, keep := range []bool{false, true} {
		d := jittest.Delta(func() {
			end := lazy.BeginCountScope()
			f(x)
			end(keep)
		})
		if keep && (d[lazy.MetricJITReplay] != 1 || d[lazy.MetricExecuteCount] != 1) {
			t.Errorf("a replay in a kept scope counted %v", d)
		}
		if !keep {
			for k, v := range d {
				if v != 0 {
					t.Errorf("a replay in a dropped scope moved %s by %d", k, v)
				}
			}
		}
	}
}
