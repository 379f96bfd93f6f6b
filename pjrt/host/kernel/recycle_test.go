package kernel

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

// recycleDims is a shape of recycled storage (64 KiB of f32).
var recycleDims = []int64{128, 128}

// freeCount is the number of free buffers of n bytes.
func freeCount(n int) int {
	size := (n + recycleGrain - 1) / recycleGrain * recycleGrain
	recycler.Lock()
	defer recycler.Unlock()
	if c := recycler.classes[size]; c != nil {
		return len(c.free)
	}
	return 0
}

// collectUntil runs collections until cond holds, failing the test after
// a few seconds. Finalizers and cleanups run on their own goroutine after
// a collection, so each collection is followed by a while of polling
// before the next (a free buffer that goes unused through two
// collections is given back to Go).
func collectUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after collections", what)
		}
		runtime.GC()
		for wait := time.Now().Add(100 * time.Millisecond); !cond() && time.Now().Before(wait); {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

func dataRange(b []byte) (lo, hi uintptr) {
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return lo, lo + uintptr(cap(b))
}

// A dropped result's storage comes back for the next result of its size,
// unzeroed: the test fails if storage is not recycled at all.
func TestRecycleReusesDroppedStorage(t *testing.T) {
	var x *Ctx
	n := 128 * 128 * 4
	l := x.NewLiteralUninit(hlo.F32, recycleDims)
	lo, _ := dataRange(l.Data)
	for i := range l.Data {
		l.Data[i] = 7
	}
	l = nil
	collectUntil(t, "free buffer", func() bool { return freeCount(n) > 0 })
	before := recycler.reused.Load()
	got := x.NewLiteralUninit(hlo.F32, recycleDims)
	if recycler.reused.Load() != before+1 {
		t.Fatal("allocation with a free buffer did not reuse it")
	}
	if g, _ := dataRange(got.Data); g != lo || got.Data[0] != 7 {
		t.Fatalf("reused storage at %#x (first byte %d), want the dropped one at %#x (7)", g, got.Data[0], lo)
	}
	if len(got.Data) != n || cap(got.Data) != n || got.NumElements() != 128*128 {
		t.Fatalf("reused literal holds %d bytes (cap %d), want %d", len(got.Data), cap(got.Data), n)
	}
	// The zeroing form clears what it reuses.
	got = nil
	collectUntil(t, "free buffer", func() bool { return freeCount(n) > 0 })
	z := x.NewLiteral(hlo.F32, recycleDims)
	for i, v := range z.Data {
		if v != 0 {
			t.Fatalf("NewLiteral byte %d = %d, want 0", i, v)
		}
	}
}

// Storage anything still references (the literal, a slice of its data, a
// view over it) is never handed out again, however many results are
// dropped and collected meanwhile.
func TestRecycleNeverReusesReferencedStorage(t *testing.T) {
	var x *Ctx
	n := 128 * 128 * 4
	kept := x.NewLiteralUninit(hlo.F32, recycleDims)
	sub := x.NewLiteralUninit(hlo.F32, recycleDims).Data[1000:2000] // header dropped
	viewed := x.View(hlo.F32, []int64{128 * 128}, x.NewLiteralUninit(hlo.F32, recycleDims).Data)
	for _, b := range [][]byte{kept.Data, sub, viewed.Data} {
		for i := range b {
			b[i] = 0x5a
		}
	}
	var ranges [][2]uintptr
	for _, b := range [][]byte{kept.Data, sub, viewed.Data} {
		lo, hi := dataRange(b)
		ranges = append(ranges, [2]uintptr{lo, hi})
	}
	reused := recycler.reused.Load()
	for round := 0; round < 20; round++ {
		var live []*hlo.Literal
		for i := 0; i < 8; i++ {
			l := x.NewLiteralUninit(hlo.F32, recycleDims)
			lo, hi := dataRange(l.Data)
			for _, r := range ranges {
				if lo < r[1] && r[0] < hi {
					t.Fatalf("round %d: new storage [%#x, %#x) overlaps referenced storage [%#x, %#x)", round, lo, hi, r[0], r[1])
				}
			}
			for j := range l.Data {
				l.Data[j] = 0xff
			}
			live = append(live, l)
		}
		live = nil
		// One collection at a time until the dropped storage is free:
		// a second with no allocation between would give it back to Go
		// (it went unused through a whole cycle).
		collectUntil(t, "free buffer", func() bool { return freeCount(n) > 0 })
	}
	if recycler.reused.Load() == reused {
		t.Fatal("no storage was recycled: the test proves nothing")
	}
	for k, b := range [][]byte{kept.Data, sub, viewed.Data} {
		for i, v := range b {
			if v != 0x5a {
				t.Fatalf("referenced storage %d byte %d = %#x, want 0x5a", k, i, v)
			}
		}
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(viewed)
}

// The recycled bytes stay within RecycleBudget, and free storage nobody
// asks for goes back to Go over collections.
func TestRecycleBudgetAndRelease(t *testing.T) {
	old := RecycleBudget
	defer func() { RecycleBudget = old }()
	var x *Ctx
	n := 256 << 10
	dims := []int64{int64(n / 4)}
	// Let storage of earlier tests go.
	collectUntil(t, "release of earlier storage", func() bool {
		recycler.Lock()
		defer recycler.Unlock()
		return recycler.bytes == 0
	})
	RecycleBudget = 3 * int64(n)
	var live []*hlo.Literal
	for i := 0; i < 10; i++ {
		live = append(live, x.NewLiteralUninit(hlo.F32, dims))
		recycler.Lock()
		b := recycler.bytes
		recycler.Unlock()
		if b > RecycleBudget {
			t.Fatalf("after %d allocations recycled bytes %d > budget %d", i+1, b, RecycleBudget)
		}
	}
	live = nil
	collectUntil(t, "free buffers", func() bool { return freeCount(n) == 3 })
	// Nobody allocates this size any more: recycleIdle and two
	// collections later its free buffers are Go's.
	collectUntil(t, "release of unused storage", func() bool {
		recycler.Lock()
		defer recycler.Unlock()
		return recycler.bytes == 0 && len(recycler.classes) == 0
	})
	runtime.KeepAlive(live)
}

// Small storage is not recycled.
func TestRecycleSmallIsPlain(t *testing.T) {
	var x *Ctx
	before := recycler.reused.Load()
	for i := 0; i < 4; i++ {
		_ = x.NewLiteralUninit(hlo.F32, []int64{16, 16})
		runtime.GC()
	}
	if recycler.reused.Load() != before {
		t.Fatal("small storage was recycled")
	}
}

// forcedCollections is the number of collections runtime.GC started.
func forcedCollections() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A loop that drops its results starts collections itself, at most one
// per recycleCollectBytes handed out, so that the dropped storage comes
// back before fresh storage is needed; Go's pacer alone would start one
// only after as many bytes again were allocated fresh. Over a small heap
// the collection runs in the allocating goroutine, when a size's free
// list is dry (done before the allocation returns); over a heap with more
// to scan it runs in the background, started while free buffers remain.
func TestRecycleStartsCollections(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inline bool
		// ballast is a live heap large enough that Go's pacer starts no
		// collection during the loop: any collection is the recycler's.
		ballast func() any
	}{
		{"inline", true, func() any { return make([]byte, 256<<20) }},
		{"background", false, func() any {
			// Pointers to scan: more than collectInlineScan.
			p := make([]*int, 4*collectInlineScan/8)
			for i := range p {
				p[i] = new(int)
			}
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x *Ctx
			ballast := tc.ballast()
			runtime.GC()
			noteScannable()
			if collectInline() != tc.inline {
				t.Fatalf("collections inline = %v over %d scannable bytes, want %v", !tc.inline, scannable.Load(), tc.inline)
			}
			dims := []int64{1 << 18} // 1 MiB
			const mib = 6 * recycleCollectBytes >> 20
			before, reused := forcedCollections(), recycler.reused.Load()
			for range mib {
				l := x.NewLiteralUninit(hlo.F32, dims)
				clear(l.Data)
			}
			if tc.inline {
				got := forcedCollections() - before
				if got == 0 || got > mib/(recycleCollectBytes>>20) {
					t.Fatalf("%d collections ran while %d MiB were handed out, want 1 to %d", got, mib, mib/(recycleCollectBytes>>20))
				}
				if r := recycler.reused.Load() - reused; r < mib/2 {
					t.Fatalf("%d of %d results reused dropped storage, want at least half", r, mib)
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for forcedCollections() == before {
				if time.Now().After(deadline) {
					t.Fatalf("no collection started after %d MiB of recycled results were handed out", mib)
				}
				time.Sleep(time.Millisecond)
			}
			runtime.KeepAlive(ballast)
		})
	}
	runtime.GC()
	noteScannable()
}

// Goroutines allocating, keeping and dropping recycled storage at once,
// while the recycler starts collections inline and in the background,
// never see storage one of them still holds handed to another: each fills
// what it keeps with its own pattern and checks it after every round.
func TestRecycleConcurrent(t *testing.T) {
	var x *Ctx
	const workers, rounds, keep = 4, 40, 3
	sizes := [][]int64{{1 << 16}, {1 << 18}, {3 << 16}} // 256 KiB, 1 MiB, 768 KiB
	errs := make(chan error, workers)
	reused := recycler.reused.Load()
	for w := range workers {
		go func() {
			pattern := byte(0x11 * (w + 1))
			var kept []*hlo.Literal
			for r := range rounds {
				l := x.NewLiteralUninit(hlo.F32, sizes[(w+r)%len(sizes)])
				for i := range l.Data {
					l.Data[i] = pattern
				}
				kept = append(kept, l)
				if len(kept) > keep {
					kept = kept[1:]
				}
				for k, l := range kept {
					for i, v := range l.Data {
						if v != pattern {
							errs <- fmt.Errorf("worker %d round %d: kept literal %d byte %d = %#x, want %#x", w, r, k, i, v, pattern)
							return
						}
					}
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if recycler.reused.Load() == reused {
		t.Fatal("no storage was recycled: the test proves nothing")
	}
}
