package host

import (
	"sync"
	"sync/atomic"
)

// freeList keeps a few reusable objects (run states, frames, fused-step
// states) of one compiled program. Unlike a sync.Pool it is not emptied by
// the garbage collector: an execution's storage, recycled through its run
// state, must survive to the next execution for a steady-state replay to
// allocate nothing. It holds at most freeListMax objects (the executions
// one program runs at once); more are dropped.
//
// The most recently put object waits in a slot taken and filled with one
// atomic operation, so the usual case (one goroutine replaying a program)
// takes no lock; the others wait in a list behind a mutex.
type freeList[T any] struct {
	slot  atomic.Pointer[T]
	mu    sync.Mutex
	items []*T
}

const freeListMax = 4

// get returns a kept object, or nil.
func (f *freeList[T]) get() *T {
	if x := f.slot.Swap(nil); x != nil {
		return x
	}
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
	if f.slot.CompareAndSwap(nil, x) {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.items) < freeListMax-1 {
		f.items = append(f.items, x)
		return true
	}
	return false
}
