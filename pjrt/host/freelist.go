package host

import "sync"

// freeList keeps a few reusable objects (run states, frames, fused-step
// states) of one compiled program. Unlike a sync.Pool it is not emptied by
// the garbage collector: an execution's storage, recycled through its run
// state, must survive to the next execution for a steady-state replay to
// allocate nothing. It holds at most freeListMax objects (the executions
// one program runs at once); more are dropped.
type freeList[T any] struct {
	mu    sync.Mutex
	items []*T
}

const freeListMax = 4

// get returns a kept object, or nil.
func (f *freeList[T]) get() *T {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.items)
	if n == 0 {
		return nil
	}
	x := f.items[n-1]
	f.items[n-1] = nil
	f.items = f.items[:n-1]
	return x
}

// put keeps x for a later get, unless freeListMax are kept already; it
// reports whether x was kept.
func (f *freeList[T]) put(x *T) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.items) < freeListMax {
		f.items = append(f.items, x)
		return true
	}
	return false
}
