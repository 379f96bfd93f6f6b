package kernel

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

// Recycled storage. A result an execution returns belongs to its caller,
// who usually drops it (a loop that computes and reads a product): the
// next result of the same size is then a fresh allocation, which Go zeroes
// (a page fault per page when its pages went back to the OS) and whose
// garbage brings the next collection closer. Storage of recycleMin bytes
// or more (Ctx.NewLiteralUninit, and Ctx.NewLiteral cleared) comes from
// here instead: each such buffer carries a finalizer, which Go runs only
// once nothing at all references the buffer (no literal, no view of it, no
// slice a caller kept, no derived copy's source), and which puts the
// buffer on a free list by size; the next allocation of that size takes
// it, unzeroed. A buffer's address is never a key anywhere it could be
// mistaken for another (derived data and storage accounts key literals by
// weak pointers), so reuse is as safe as Go reusing the memory itself.
//
// Memory bound: the bytes of recycled buffers (in use, with a finalizer,
// or free) never exceed RecycleBudget; past it, storage is allocated
// plainly and Go frees it. Free buffers go back to Go over collections:
// at each one, each size drops as many free buffers as it never needed
// since the previous one (its low-water mark), less as many as it handed
// out (the next interval needs as many spare again: background
// collections start while free buffers remain); a size nobody asked for since
// the previous collection keeps its buffers until it has been unused for
// recycleIdle (collections can come faster than executions), so storage
// of a size nobody asks for any more is Go's again after recycleIdle and
// two collections.

// recycleMin is the smallest storage that is recycled: Go's large-object
// size, from which an allocation costs a span of its own, zeroed page by
// page.
const recycleMin = 32 << 10

// recycleGrain is what sizes are rounded up to (Go's page): storage of
// shapes a few elements apart shares a size.
const recycleGrain = 8 << 10

// RecycleBudget is the most bytes of recycled storage, in use or free.
var RecycleBudget int64 = 64 << 20

// recycleIdle is how long a size goes unused before a collection gives
// its free buffers back to Go.
const recycleIdle = time.Second

// recycleCollectBytes is how many bytes of recycled storage are handed
// out between two collections the recycler starts (see awaitFree and collecting).
const recycleCollectBytes = 16 << 20

type recycleClass struct {
	n    int           // bytes, a multiple of recycleGrain
	free []*complex128 // free buffers (their first word)
	low  int           // the fewest free buffers since the last collection
	// takes counts the buffers handed out since the last collection;
	// used is when one was last handed out.
	takes int
	used  time.Time
	// armed counts this size's buffers with a finalizer (in use).
	armed int
	fin   func(*complex128)
}

var recycler = recyclerState{classes: map[int]*recycleClass{}}

type recyclerState struct {
	sync.Mutex
	classes map[int]*recycleClass
	bytes   int64 // in use with a finalizer, or free
	ticking bool
	// taken is the bytes handed out since the last collection.
	taken int64
	// reused counts allocations served from a free list (tests).
	reused atomic.Int64
}

// recycledBytes returns n bytes (n >= recycleMin) of storage aligned to
// at least 16 bytes: a recycled buffer (contents unspecified), or fresh
// zeroed storage (fresh set).
func recycledBytes(n int) (b []byte, fresh bool) {
	size := (n + recycleGrain - 1) / recycleGrain * recycleGrain
	r := &recycler
	r.Lock()
	c := r.class(size)
	if len(c.free) == 0 && c.armed > 0 {
		c = r.awaitFree(size)
	}
	var p *complex128
	switch k := len(c.free); {
	case k > 0:
		p = c.free[k-1]
		c.free[k-1] = nil
		c.free = c.free[:k-1]
		c.low = min(c.low, k-1)
		r.reused.Add(1)
	case r.bytes+int64(size) <= RecycleBudget || r.evict(int64(size)):
		r.bytes += int64(size)
		fresh = true
		if !r.ticking {
			r.ticking = true
			noteScannable()
			armTick()
		}
	default:
		r.Unlock()
		return hlo.AlignedBytes(n), true
	}
	c.armed++
	c.takes++
	c.used = time.Now()
	r.taken += int64(size)
	collect := !collectInline() && int64(len(c.free)*size) < r.taken &&
		r.taken >= recycleCollectBytes && collecting.CompareAndSwap(false, true)
	if collect {
		r.taken = 0
	}
	r.Unlock()
	if collect {
		go func() {
			runtime.GC()
			collecting.Store(false)
		}()
	}
	if fresh {
		p = &make([]complex128, size/16)[0]
	}
	runtime.SetFinalizer(p, c.fin)
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), size)[:n:n], fresh
}

// class returns the recycle class of size bytes, made if absent (the
// caller holds the lock).
func (r *recyclerState) class(size int) *recycleClass {
	c := r.classes[size]
	if c == nil {
		c = &recycleClass{n: size}
		c.fin = c.collected
		r.classes[size] = c
	}
	return c
}

// collected is the finalizer of a buffer of c's size: nothing references
// it any more, so it is free.
func (c *recycleClass) collected(p *complex128) {
	r := &recycler
	r.Lock()
	c.armed--
	c.free = append(c.free, p)
	r.Unlock()
}

// evict gives free buffers of other sizes back to Go until n more bytes
// fit in RecycleBudget, and reports whether they do. Free buffers are a
// cache; the budget is for storage in use first.
func (r *recyclerState) evict(n int64) bool {
	for _, c := range r.classes {
		for len(c.free) > 0 && r.bytes+n > RecycleBudget {
			k := len(c.free) - 1
			c.free[k] = nil
			c.free = c.free[:k]
			c.low = min(c.low, k)
			r.bytes -= int64(c.n)
		}
	}
	return r.bytes+n <= RecycleBudget
}

// awaitFree is called, with the lock held, when the free list of size is
// empty while buffers of that size are out; it returns the size's class,
// the lock held. A finalizer may be waiting for a thread to give a buffer
// back: it lets it run once before fresh storage is allocated. Where
// collections run inline (collectInline), a dry list starts one here
// first, at most one per recycleCollectBytes handed out, and then lets the
// finalizers it queued run. Collections may have ticked meanwhile and
// dropped the size: it is looked up again.
func (r *recyclerState) awaitFree(size int) *recycleClass {
	yields := 1
	if r.taken >= recycleCollectBytes &&
		collectInline() && collecting.CompareAndSwap(false, true) {
		r.taken = 0
		r.Unlock()
		runtime.GC()
		collecting.Store(false)
		r.Lock()
		yields = collectYields
	}
	for i := 0; ; i++ {
		r.Unlock()
		runtime.Gosched()
		r.Lock()
		c := r.class(size)
		if len(c.free) > 0 || c.armed == 0 || i+1 == yields {
			return c
		}
	}
}

// collectYields is how many times awaitFree yields to the finalizers of
// the collection it ran before it gives up on them.
const collectYields = 4

// collecting is set while a collection the recycler started runs.
var collecting atomic.Bool

// Dropped results are only found by a collection, and Go's pacer would
// start the next one late: the free buffers count as live heap, so as many
// bytes again are allocated fresh (zeroed, often page-faulted) before it
// runs. The recycler starts collections itself, at most one per
// recycleCollectBytes handed out, in one of two ways:
//
//   - While the heap a collection scans is small (collectInline), the
//     allocation that finds its size's free list dry runs one, in its own
//     goroutine, before the work the storage is
//     for (awaitFree). A collection running beside that work would stop it
//     twice (each stop-the-world signals every running thread, and threads
//     in assembly kernels stop only once they return to Go) and take a
//     share of its CPUs; run before it, with the other threads idle, it is
//     over in about half a millisecond on two cores. Waiting until the
//     list is dry lets each collection find all it can. (Waiting also for
//     RecycleBudget to fill, to collect less often, made short loops
//     slower: filling it costs fresh, page-faulted storage.)
//   - A larger heap is collected in the background, where its marking
//     overlaps the work instead of delaying it, and it is started early:
//     when a size's free buffers are fewer than the bytes handed out since
//     the last collection, so that it finds the dropped ones before the
//     list runs dry.

// collectInlineScan is the most scannable memory (heap, stacks, globals,
// as the last collection found them) for which collections run inline.
const collectInlineScan = 2 << 20

// scannable is the scannable memory the last collection found (see
// noteScannable).
var scannable atomic.Uint64

// collectInline reports whether collections the recycler starts run in
// the allocating goroutine.
func collectInline() bool { return scannable.Load() <= collectInlineScan }

// scanSamples are the runtime metrics noteScannable reads (the caller
// holds the recycler's lock).
var scanSamples = []metrics.Sample{
	{Name: "/gc/scan/heap:bytes"},
	{Name: "/gc/scan/stack:bytes"},
	{Name: "/gc/scan/globals:bytes"},
}

// noteScannable records the memory the last collection scanned.
func noteScannable() {
	metrics.Read(scanSamples)
	var n uint64
	for _, s := range scanSamples {
		if s.Value.Kind() == metrics.KindUint64 {
			n += s.Value.Uint64()
		}
	}
	scannable.Store(n)
}

// gcTick is an object whose cleanup marks a collection and makes the next
// one (at least 16 bytes: not batched with other tiny objects).
type gcTick struct{ _ [2]uintptr }

func armTick() { runtime.AddCleanup(new(gcTick), recycleTick, 0) }

// recycleTick runs after each collection: every size gives back the free
// buffers it did not need since the previous one, and the tick stops
// while nothing is recycled.
func recycleTick(int) {
	r := &recycler
	r.Lock()
	defer r.Unlock()
	r.taken = 0
	noteScannable()
	for size, c := range r.classes {
		drop := max(min(c.low, len(c.free))-c.takes, 0)
		if c.takes == 0 && time.Since(c.used) < recycleIdle {
			drop = 0 // collections came faster than executions
		}
		c.takes = 0
		for i := len(c.free) - drop; i < len(c.free); i++ {
			c.free[i] = nil
		}
		c.free = c.free[:len(c.free)-drop]
		r.bytes -= int64(drop) * int64(c.n)
		c.low = len(c.free)
		if c.armed == 0 && len(c.free) == 0 {
			delete(r.classes, size)
		}
	}
	if len(r.classes) == 0 {
		r.ticking = false
		return
	}
	armTick()
}

// newLiteralUninit is newLiteral with unspecified contents: storage of
// recycleMin bytes or more is recycled.
func newLiteralUninit(dt hlo.DType, dims []int64, lender *Pool) *hlo.Literal {
	n, ok := recycledSize(dt, dims)
	if !ok {
		return newLiteral(dt, dims, lender)
	}
	b, _ := recycledBytes(n)
	return literalOver(dt, dims, b, lender)
}

// newLiteralZero is newLiteral with recycled storage (cleared unless
// fresh) from recycleMin bytes.
func newLiteralZero(dt hlo.DType, dims []int64, lender *Pool) *hlo.Literal {
	n, ok := recycledSize(dt, dims)
	if !ok {
		return newLiteral(dt, dims, lender)
	}
	b, fresh := recycledBytes(n)
	if !fresh {
		clear(b)
	}
	return literalOver(dt, dims, b, lender)
}

// recycledSize is the byte size of a dt[dims] literal whose storage is
// recycled: at least recycleMin, in a viewHeader (headedSize).
func recycledSize(dt hlo.DType, dims []int64) (int, bool) {
	n, ok := headedSize(dt, dims)
	return n, ok && n >= recycleMin
}

// literalOver returns a literal dt[dims] over b in a new viewHeader, lent
// to the pooled execution it is made for, if any (see newLarge).
func literalOver(dt hlo.DType, dims []int64, b []byte, lender *Pool) *hlo.Literal {
	h := &viewHeader{}
	if lender != nil {
		lender.lend(h)
	}
	return h.set(dt, dims, b)
}
