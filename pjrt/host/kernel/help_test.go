package kernel

import (
	"sync/atomic"
	"testing"
	"time"
)

// Every piece of work claimed through Help runs exactly once, whoever
// runs it, over many calls reusing the pooled state.
func TestHelpSharesWork(t *testing.T) {
	for round := 0; round < 200; round++ {
		const n = 64
		var next atomic.Int64
		var hits [n]atomic.Int32
		Help(Workers(), func() {
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				hits[i].Add(1)
				if i%8 == 0 {
					time.Sleep(time.Microsecond)
				}
			}
		})
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("round %d: piece %d ran %d times", round, i, h)
			}
		}
	}
}

// A worker that gets to an offer after the caller's call returned does not
// call fn: the caller does not wait for it, and it touches nothing of a
// later call.
func TestHelpLateWorkerDoesNothing(t *testing.T) {
	if Workers() < 2 {
		t.Skip("needs a pool worker")
	}
	release := make(chan struct{})
	var busy atomic.Int32
	for i := 0; i < Workers()-1; i++ {
		tasks <- task{fn: func(int, int) { busy.Add(1); <-release }}
	}
	for busy.Load() < int32(Workers()-1) {
		time.Sleep(100 * time.Microsecond)
	}
	var calls, late atomic.Int32
	var returned atomic.Bool
	start := time.Now()
	Help(Workers(), func() {
		calls.Add(1)
		if returned.Load() {
			late.Add(1)
		}
	})
	returned.Store(true)
	if d := time.Since(start); d > time.Second {
		t.Errorf("Help waited %v for busy workers", d)
	}
	close(release)
	for len(tasks) > 0 {
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(5 * time.Millisecond)
	if c, l := calls.Load(), late.Load(); c != 1 || l != 0 {
		t.Errorf("fn called %d times (%d after Help returned), want once, by the caller", c, l)
	}
}

// A panic in fn, the caller's or a helper's, is re-raised by Help after
// every started call returned, and the pool keeps working.
func TestHelpPanics(t *testing.T) {
	for _, who := range []string{"one", "every"} {
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("%s: recovered %v, want boom", who, r)
				}
			}()
			var first atomic.Bool
			Help(Workers(), func() {
				if who == "every" || first.CompareAndSwap(false, true) {
					panic("boom")
				}
			})
			t.Errorf("%s: Help returned without panicking", who)
		}()
	}
	var n atomic.Int32
	Help(Workers(), func() { n.Add(1) })
	if n.Load() < 1 {
		t.Error("Help after a panic did not run fn")
	}
}
