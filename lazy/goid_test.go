package lazy

import (
	"sync"
	"testing"
)

// goid is stable within a goroutine and differs between live goroutines.
func TestGoid(t *testing.T) {
	me := goid()
	if goid() != me {
		t.Fatal("goid changed within one goroutine")
	}
	const n = 16
	ids := make([]uint64, n)
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(1)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = goid()
			ready.Done()
			done.Wait() // all alive at once
		}()
	}
	ready.Wait()
	done.Done()
	wg.Wait()
	seen := map[uint64]bool{me: true}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("two live goroutines share id %d", id)
		}
		seen[id] = true
	}
}

func BenchmarkGoid(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = goid()
	}
}
