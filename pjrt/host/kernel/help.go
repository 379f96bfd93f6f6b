package kernel

import (
	"sync"
	"sync/atomic"
	"time"
)

// Help runs fn on the calling goroutine and offers it to up to helpers
// pool workers, each of which calls fn too if it gets to it before the
// caller's call has returned. fn shares out its work itself (each call
// claims pieces until none is left, then returns), so the caller never
// waits for a worker that has not started: a worker that the OS wakes
// late finds the offer withdrawn and does nothing, where a ParallelFor
// chunk handed to it would hold up the caller until it ran. Help returns
// when every call of fn that started has returned, and re-raises the first
// panic of one.
func Help(helpers int, fn func()) {
	poolOnce.Do(startPool)
	helpers = min(helpers, workers-1)
	if helpers <= 0 {
		fn()
		return
	}
	h := helps.Get().(*help)
	h.fn = fn
	gen := h.open()
	for i := 0; i < helpers; i++ {
		select {
		case tasks <- task{fn: h.helpFn, lo: int(gen)}:
		default: // queue full: the caller's share grows
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				h.recordPanic(r)
			}
		}()
		fn()
	}()
	h.closeAndWait()
	h.fn = nil
	p := h.panic.Swap(nil)
	helps.Put(h)
	if p != nil {
		panic(*p)
	}
}

// help is one Help call's shared state. Its state word holds a generation
// (the high 32 bits: offers of earlier calls that reuse this help carry an
// older one), a closed bit (the caller's call returned: no one may start),
// a waiting bit (the caller blocks on done) and the number of helpers
// inside fn.
type help struct {
	state  atomic.Uint64
	fn     func()
	helpFn func(lo, hi int)
	done   chan struct{}
	panic  atomic.Pointer[any]
}

const (
	helpClosed  = 1 << 31
	helpWaiting = 1 << 30
	helpActive  = 1<<30 - 1
)

var helps = sync.Pool{New: func() any {
	h := &help{done: make(chan struct{}, 1)}
	h.helpFn = h.run
	return h
}}

// open starts a new generation, open and with no helper inside, and
// returns it.
func (h *help) open() uint32 {
	gen := uint32(h.state.Load()>>32) + 1
	h.state.Store(uint64(gen) << 32)
	return gen
}

// run is a worker's side of an offer made in generation lo: join unless
// the offer is withdrawn or stale, call fn, leave.
func (h *help) run(lo, _ int) {
	gen := uint32(lo)
	for {
		s := h.state.Load()
		if uint32(s>>32) != gen || s&helpClosed != 0 {
			return
		}
		if h.state.CompareAndSwap(s, s+1) {
			break
		}
	}
	defer h.leave()
	h.fn()
}

// leave ends a helper's call of fn, waking the caller if it was the last
// one the caller waits for.
func (h *help) leave() {
	if r := recover(); r != nil {
		h.recordPanic(r)
	}
	s := h.state.Add(^uint64(0)) // minus one
	if s&helpActive == 0 && s&helpWaiting != 0 {
		h.done <- struct{}{}
	}
}

func (h *help) recordPanic(r any) {
	p := new(any)
	*p = r
	h.panic.CompareAndSwap(nil, p)
}

// closeAndWait withdraws the offer and waits for the helpers inside fn:
// polling first (they are finishing their last claims), blocking after.
func (h *help) closeAndWait() {
	s := h.state.Or(helpClosed) | helpClosed
	for start := time.Now(); s&helpActive != 0; s = h.state.Load() {
		if time.Since(start) >= spinFor {
			if h.state.CompareAndSwap(s, s|helpWaiting) {
				<-h.done
				return
			}
			continue
		}
		spinPause()
	}
}
