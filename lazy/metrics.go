package lazy

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Metric names (DESIGN.md §3). Counters count events; timers accumulate
// durations and samples.
const (
	MetricUncachedCompile    = "UncachedCompile"
	MetricCachedCompile      = "CachedCompile"
	MetricExecuteCount       = "ExecuteCount"
	MetricCompileTime        = "CompileTime"
	MetricExecuteTime        = "ExecuteTime"
	MetricTransferToDevice   = "TransferToDevice"
	MetricTransferFromDevice = "TransferFromDevice"
	MetricJITTrace           = "JitTrace"
	MetricJITReplay          = "JitReplay"
	MetricJITRecompile       = "JitRecompile"
	MetricJITGraphBreak      = "JitGraphBreak"
	MetricPersistentCacheHit = "PersistentCacheHit"
	MetricDonatedBuffers     = "DonatedBuffers"
	// Prefixes of per-op and per-reason counters.
	MetricHostFallbackPrefix = "HostFallback."
	MetricGraphCutPrefix     = "GraphCut."
)

type counter struct{ v atomic.Int64 }

type timer struct {
	n     *atomic.Int64 // samples: its own, or a counter's (countingTimer)
	total atomic.Int64  // ns
}

var (
	metricsMu sync.RWMutex
	counters  = map[string]*counter{}
	timers    = map[string]*timer{}
)

func getCounter(name string) *counter {
	metricsMu.RLock()
	c := counters[name]
	metricsMu.RUnlock()
	if c != nil {
		return c
	}
	metricsMu.Lock()
	defer metricsMu.Unlock()
	if c = counters[name]; c == nil {
		c = &counter{}
		counters[name] = c
	}
	return c
}

func getTimer(name string) *timer {
	metricsMu.RLock()
	t := timers[name]
	metricsMu.RUnlock()
	if t != nil {
		return t
	}
	metricsMu.Lock()
	defer metricsMu.Unlock()
	if t = timers[name]; t == nil {
		t = &timer{n: new(atomic.Int64)}
		timers[name] = t
	}
	return t
}

// countingTimer returns the named timer whose sample count is c: a timed
// event counts in both with one atomic add (ExecuteCount is ExecuteTime's
// samples). Only the timer may count c then.
func countingTimer(name string, c *counter) *timer {
	t := getTimer(name)
	t.n = &c.v
	return t
}

// Fixed counters, resolved once so the hot paths do no map lookups.
var (
	cUncached   = getCounter(MetricUncachedCompile)
	cCached     = getCounter(MetricCachedCompile)
	cExecute    = getCounter(MetricExecuteCount)
	cToDevice   = getCounter(MetricTransferToDevice)
	cFromDevice = getCounter(MetricTransferFromDevice)
	cPersistHit = getCounter(MetricPersistentCacheHit)
	cDonated    = getCounter(MetricDonatedBuffers)
	tCompile    = getTimer(MetricCompileTime)
	tExecute    = countingTimer(MetricExecuteTime, cExecute)
)

// AddCounter adds delta to the named counter (used by jit for the Jit*
// counters).
func AddCounter(name string, delta int64) { getCounter(name).add(delta) }

// Counter returns the value of a counter (0 if it never counted).
func Counter(name string) int64 {
	metricsMu.RLock()
	c := counters[name]
	metricsMu.RUnlock()
	if c == nil {
		return 0
	}
	return c.v.Load()
}

// TimerData returns a timer's sample count and total duration.
func TimerData(name string) (n int64, total time.Duration) {
	metricsMu.RLock()
	t := timers[name]
	metricsMu.RUnlock()
	if t == nil {
		return 0, 0
	}
	return t.n.Load(), time.Duration(t.total.Load())
}

func (t *timer) since(start time.Time) {
	t.addIn(currentScope(), 1, int64(time.Since(start)))
}

// sinceNano records a duration measured with nanotime.
func (t *timer) sinceNano(start int64) {
	d := nanotime() - start
	if !scopes.any() {
		t.n.Add(1)
		t.total.Add(d)
		return
	}
	t.addIn(currentScope(), 1, d)
}

// Snapshot is a copy of every counter.
type Snapshot map[string]int64

// CounterSnapshot returns all counters (to compare them before and after
// some work; work that may be dropped counts into a scope instead, see
// BeginCountScope).
func CounterSnapshot() Snapshot {
	metricsMu.RLock()
	defer metricsMu.RUnlock()
	s := make(Snapshot, len(counters))
	for k, c := range counters {
		s[k] = c.v.Load()
	}
	return s
}

// ResetMetrics zeroes every counter and timer.
func ResetMetrics() {
	metricsMu.RLock()
	defer metricsMu.RUnlock()
	for _, c := range counters {
		c.v.Store(0)
	}
	for _, t := range timers {
		t.n.Store(0)
		t.total.Store(0)
	}
}

// MetricsReport prints every non-zero counter and timer, sorted by name.
func MetricsReport() string {
	metricsMu.RLock()
	defer metricsMu.RUnlock()
	var b strings.Builder
	names := make([]string, 0, len(counters))
	for k, c := range counters {
		if c.v.Load() != 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	b.WriteString("Counters:\n")
	for _, k := range names {
		fmt.Fprintf(&b, "  %-28s %d\n", k, counters[k].v.Load())
	}
	names = names[:0]
	for k, t := range timers {
		if t.n.Load() != 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	b.WriteString("Timers:\n")
	for _, k := range names {
		t := timers[k]
		n, tot := t.n.Load(), time.Duration(t.total.Load())
		fmt.Fprintf(&b, "  %-28s samples=%d total=%v mean=%v\n", k, n, tot, tot/time.Duration(n))
	}
	return b.String()
}

// CounterRef is a resolved counter, for paths that count on every call.
type CounterRef struct{ c *counter }

// CounterFor resolves the counter called name once.
func CounterFor(name string) CounterRef { return CounterRef{getCounter(name)} }

// Add adds delta, into the calling goroutine's counting scope if it has
// one, as AddCounter does.
func (r CounterRef) Add(delta int64) { r.c.add(delta) }
