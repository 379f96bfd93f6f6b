package jittest

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// Delta returns how much each counter changed while fn ran.
func Delta(fn func()) map[string]int64 {
	before := lazy.CounterSnapshot()
	fn()
	after := lazy.CounterSnapshot()
	d := map[string]int64{}
	for k, v := range after {
		if v != before[k] {
			d[k] = v - before[k]
		}
	}
	return d
}

// ExpectCounters fails t unless each named counter changed by exactly the
// given amount while fn ran (other counters are not checked).
func ExpectCounters(t testing.TB, want map[string]int64, fn func()) {
	t.Helper()
	d := Delta(fn)
	var bad []string
	for k, v := range want {
		if d[k] != v {
			bad = append(bad, k+": got "+strconv.FormatInt(d[k], 10)+", want "+strconv.FormatInt(v, 10))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Errorf("counter changes differ:\n  %s\nall changes: %v", strings.Join(bad, "\n  "), d)
	}
}

// ExpectCompiles fails t unless fn causes exactly n uncached compiles.
func ExpectCompiles(t testing.TB, n int64, fn func()) {
	t.Helper()
	ExpectCounters(t, map[string]int64{lazy.MetricUncachedCompile: n}, fn)
}

// ExpectExecutions fails t unless fn executes exactly n compiled graphs.
func ExpectExecutions(t testing.TB, n int64, fn func()) {
	t.Helper()
	ExpectCounters(t, map[string]int64{lazy.MetricExecuteCount: n}, fn)
}

// ExpectNoRecompile fails t if calling body traces or compiles the
// compiled function f again.
func ExpectNoRecompile[F any](t testing.TB, f F, body func()) {
	t.Helper()
	before := jit.StatsOf(f)
	d := Delta(body)
	after := jit.StatsOf(f)
	if after.Traces != before.Traces || after.Compiles != before.Compiles || d[lazy.MetricUncachedCompile] != 0 {
		t.Errorf("unexpected recompile: traces %d -> %d, compiles %d -> %d, UncachedCompile +%d\n%s",
			before.Traces, after.Traces, before.Compiles, after.Compiles, d[lazy.MetricUncachedCompile], jit.Explain(f))
	}
}

// ExpectStats fails t unless the compiled function's stats changed by want
// while body ran (fields left zero in want must not change either).
func ExpectStats[F any](t testing.TB, f F, want jit.Stats, body func()) {
	t.Helper()
	before := jit.StatsOf(f)
	body()
	after := jit.StatsOf(f)
	got := jit.Stats{
		Calls: after.Calls - before.Calls, Traces: after.Traces - before.Traces, Compiles: after.Compiles - before.Compiles,
		Replays: after.Replays - before.Replays, Recompiles: after.Recompiles - before.Recompiles,
		GraphBreaks: after.GraphBreaks - before.GraphBreaks, HostFallbacks: after.HostFallbacks - before.HostFallbacks,
	}
	if got != want {
		t.Errorf("stats changed by\n  %s\nwant\n  %s\n%s", got, want, jit.Explain(f))
	}
}
