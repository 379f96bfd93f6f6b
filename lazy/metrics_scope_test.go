package lazy

import (
	"sync"
	"testing"
	"time"
)

// TestCountScope: counts made in a scope reach the counters only when it
// is kept (through the enclosing scope when nested); counts of other
// goroutines made meanwhile always reach them.
func TestCountScope(t *testing.T) {
	const name = "test.CountScope"
	base := Counter(name)
	n0, _ := TimerData(MetricCompileTime)
	other := func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); AddCounter(name, 100) }()
		wg.Wait()
	}

	end := BeginCountScope()
	AddCounter(name, 1)
	tCompile.since(time.Now())
	other()
	inner := BeginCountScope()
	AddCounter(name, 10)
	inner(true) // into the outer scope
	inner = BeginCountScope()
	AddCounter(name, 1000)
	inner(false)
	if got := Counter(name) - base; got != 100 {
		t.Fatalf("inside the scope the counter moved by %d, want 100 (other goroutine only)", got)
	}
	end(false)
	if got := Counter(name) - base; got != 100 {
		t.Fatalf("after a dropped scope the counter moved by %d, want 100", got)
	}
	if n, _ := TimerData(MetricCompileTime); n != n0 {
		t.Errorf("a dropped scope's timer sample reached the timer (%d -> %d)", n0, n)
	}

	end = BeginCountScope()
	AddCounter(name, 1)
	inner = BeginCountScope()
	AddCounter(name, 10)
	tCompile.since(time.Now())
	inner(true)
	other()
	end(true)
	if got := Counter(name) - base; got != 211 {
		t.Errorf("after kept scopes the counter moved by %d, want 211", got)
	}
	if n, _ := TimerData(MetricCompileTime); n != n0+1 {
		t.Errorf("a kept scope's timer sample: %d samples, want %d", n, n0+1)
	}
	if currentScope() != nil {
		t.Errorf("a scope is left after every scope ended")
	}
}
