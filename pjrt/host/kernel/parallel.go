package kernel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// batch is one ParallelFor call's shared state. Batches are reused: the
// last chunk to finish sends on done (buffered), and nothing touches a
// batch after its count reaches zero but the caller, who takes the send and
// puts the batch back.
type batch struct {
	left  atomic.Int32
	done  chan struct{}
	panic atomic.Pointer[any] // the first panic of a chunk, re-raised by the caller
}

var batches = sync.Pool{New: func() any { return &batch{done: make(chan struct{}, 1)} }}

// recordPanic keeps r as the batch's panic unless one is kept already
// (boxed here, so that calls that do not panic allocate nothing).
func (b *batch) recordPanic(r any) {
	p := new(any)
	*p = r
	b.panic.CompareAndSwap(nil, p)
}

// task is a ParallelFor chunk, or with no batch a Help offer (which
// accounts for itself).
type task struct {
	fn     func(lo, hi int)
	lo, hi int
	b      *batch
}

func (t task) run() {
	if t.b == nil {
		t.fn(t.lo, t.hi)
		return
	}
	defer t.finish()
	t.fn(t.lo, t.hi)
}

func (t task) finish() {
	if r := recover(); r != nil {
		t.b.recordPanic(r)
	}
	if t.b.left.Add(-1) == 0 {
		t.b.done <- struct{}{}
	}
}

var (
	poolOnce sync.Once
	tasks    chan task
	workers  int
)

func startPool() {
	workers = runtime.GOMAXPROCS(0)
	tasks = make(chan task, 64*workers)
	for i := 0; i < workers-1; i++ {
		go worker()
	}
}

// spinFor is how long a worker polls for the next chunk after it finishes
// one, and a caller for its other chunks, before blocking. A blocked
// thread takes long to wake: on a virtual machine whose idle CPU halts,
// around 100 microseconds (measured on the 2-vCPU machines this runs on),
// as long as a whole chunk of a small product, during which the other
// thread runs alone or waits. Parallel loops come in bursts (the steps of
// one execution), so threads that stay awake briefly join the next one at
// once; the cost is at most spinFor of polling after a burst.
const spinFor = 100 * time.Microsecond

func worker() {
	for t := range tasks {
		t.run()
		for start, i := time.Now(), 0; time.Since(start) < spinFor || time.Now().UnixNano() < spinUntil.Load(); i++ {
			select {
			case t, ok := <-tasks:
				if !ok {
					return
				}
				t.run()
				start = time.Now()
			default:
				// Idle: now and then let other goroutines have the
				// thread. Between the bursts of a loop of executions
				// both threads are busy, and without this the
				// goroutines Go itself runs (finalizers that recycle
				// dropped results, cleanups, the collector's workers)
				// wait for a preemption; every time would contend for
				// the scheduler's lock.
				if i%16 == 15 {
					runtime.Gosched()
				} else {
					spinPause()
				}
			}
		}
	}
}

// spinUntil is the UnixNano time until which idle workers keep polling
// (Prewake).
var spinUntil atomic.Int64

// Prewake wakes the pool's parked workers and keeps them polling for the
// next d: a caller about to run parallel work after a long serial stretch
// (a compile, which the first execution of its program follows) calls it
// that far ahead, so that the workers' wake-up (around 100 µs on a virtual
// machine whose idle CPU halts, see spinFor) overlaps the stretch instead
// of delaying the first parallel loop. Polling workers yield their thread
// to any other goroutine (worker), so the cost is an otherwise idle core
// polling for at most d.
func Prewake(d time.Duration) {
	poolOnce.Do(startPool)
	if workers < 2 {
		return
	}
	until := time.Now().Add(d).UnixNano()
	if old := spinUntil.Load(); old >= until || !spinUntil.CompareAndSwap(old, until) {
		return
	}
	for i := 0; i < workers-1; i++ {
		select {
		case tasks <- task{fn: func(int, int) {}}:
		default: // queue full: workers are awake
			return
		}
	}
}

// spinPause waits a little without giving up the thread.
func spinPause() {
	for i := 0; i < 30; i++ {
		spinSink.Add(0)
	}
}

var spinSink atomic.Int32

// Workers is the number of goroutines ParallelFor uses.
func Workers() int {
	poolOnce.Do(startPool)
	return workers
}

// ParallelFor runs fn over [0, n) split into contiguous chunks on the
// persistent worker pool, and returns when all are done. Chunks are at least
// grain long; small n runs inline on the caller's goroutine. Nested calls are
// safe: a waiting caller runs queued chunks itself.
func ParallelFor(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	poolOnce.Do(startPool)
	if grain < 1 {
		grain = 1
	}
	chunks := n / grain
	if chunks > workers {
		chunks = workers
	}
	if chunks <= 1 {
		fn(0, n)
		return
	}
	step := (n + chunks - 1) / chunks
	b := batches.Get().(*batch)
	b.left.Store(int32((n - step + step - 1) / step))
	for lo := step; lo < n; lo += step {
		hi := min(lo+step, n)
		t := task{fn, lo, hi, b}
		select {
		case tasks <- t:
		default:
			t.run() // queue full: run inline
		}
	}
	runFirst(b, fn, step)
	// Wait for the other chunks, running queued ones meanwhile; polling
	// first (see spinFor), blocking after.
	for start := time.Now(); time.Since(start) < spinFor; {
		select {
		case <-b.done:
			b.finish()
			return
		case t := <-tasks:
			t.run()
			start = time.Now()
		default:
			spinPause()
		}
	}
	for {
		select {
		case <-b.done:
			b.finish()
			return
		case t := <-tasks:
			t.run()
		}
	}
}

// runFirst runs the caller's chunk [0, step): a panic in it waits for the
// other chunks, then is re-raised like a worker's.
func runFirst(b *batch, fn func(lo, hi int), step int) {
	defer func() {
		if r := recover(); r != nil {
			b.recordPanic(r)
		}
	}()
	fn(0, step)
}

// finish puts the batch back and re-raises the first panic of its chunks.
func (b *batch) finish() {
	p := b.panic.Swap(nil)
	batches.Put(b)
	if p != nil {
		panic(*p)
	}
}

// Strides returns row-major element strides for dims.
func Strides(dims []int64) []int64 {
	s := make([]int64, len(dims))
	acc := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= dims[i]
	}
	return s
}
