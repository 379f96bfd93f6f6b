package kernel

import (
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

func TestPoolRecycles(t *testing.T) {
	var p Pool
	if p.Get(hlo.F32, []int64{4}) != nil {
		t.Fatal("empty pool returned storage")
	}
	a := hlo.NewLiteral(hlo.F32, 4)
	p.Put(a)
	if got := p.Get(hlo.F32, []int64{4}); got != a {
		t.Errorf("same type and shape: got %p, want the literal itself %p", got, a)
	}
	if p.Get(hlo.F32, []int64{4}) != nil {
		t.Error("storage handed out twice")
	}
	p.Put(a)
	if got := p.Get(hlo.I32, []int64{2, 2}); got != nil {
		t.Errorf("small storage of another type: got %v, want none (it keeps its type)", got)
	}
	big := hlo.NewLiteral(hlo.F32, 2048)
	p.Put(big)
	got := p.Get(hlo.I32, []int64{2, 1024}) // same byte size, new header
	if got == nil || got == big || &got.Data[0] != &big.Data[0] || got.DType != hlo.I32 || len(got.Dims) != 2 || big.DType != hlo.F32 {
		t.Errorf("same size, other type: got %v", got)
	}
	if p.Get(hlo.F64, []int64{4}) != nil {
		t.Error("storage of another size returned")
	}
	x := &Ctx{Pool: &p}
	z := x.NewLiteral(hlo.F32, []int64{4})
	if &z.Data[0] != &a.Data[0] {
		t.Error("NewLiteral did not reuse pooled storage")
	}
	for _, v := range z.F32() {
		if v != 0 {
			t.Fatal("NewLiteral storage not zeroed")
		}
	}
	var nilPool *Pool
	nilPool.Put(a) // no-op
	if (&Ctx{}).NewLiteralUninit(hlo.F32, []int64{3}).NumElements() != 3 {
		t.Error("allocation without a pool failed")
	}
}

func TestForkDropsPool(t *testing.T) {
	x := &Ctx{Pool: &Pool{}, Frame: make([]Value, 2)}
	if y := x.Fork(); y.Pool != nil {
		t.Error("a forked context shares the pool of its parent goroutine")
	}
}

func TestSmallLiteralLayout(t *testing.T) {
	var s smallLit
	if off, size := unsafe.Offsetof(s.data), unsafe.Sizeof(s); off%16 != 0 || size%16 != 0 {
		t.Errorf("smallLit data at offset %d of %d: want both multiples of 16", off, size)
	}
	for i := 0; i < 100; i++ {
		l := NewLiteral(hlo.F32, []int64{2, 2})
		if uintptr(unsafe.Pointer(&l.Data[0]))%16 != 0 || l.NumElements() != 4 || len(l.Dims) != 2 {
			t.Fatalf("small literal %v at %p: not 16-byte aligned or wrong shape", l.Dims, &l.Data[0])
		}
	}
	if n := testing.AllocsPerRun(10, func() { NewLiteral(hlo.F32, []int64{3}) }); n != 1 {
		t.Errorf("a small literal takes %.0f allocations, want 1", n)
	}
}

// NewLiteral (one allocation for small payloads) makes what hlo.NewLiteral
// makes, for every rank and size around the small-payload bound.
func TestNewLiteralMatchesHLO(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	types := []hlo.DType{hlo.F32, hlo.F64, hlo.BF16, hlo.I8, hlo.Bool, hlo.C128, hlo.I4}
	for it := 0; it < 2000; it++ {
		dims := make([]int64, r.Intn(6))
		for i := range dims {
			dims[i] = int64(r.Intn(40))
			if r.Intn(3) > 0 {
				dims[i] = int64(r.Intn(4))
			}
		}
		dt := types[r.Intn(len(types))]
		got, want := NewLiteral(dt, dims), hlo.NewLiteral(dt, dims...)
		if got.DType != want.DType || !slices.Equal(got.Dims, want.Dims) || len(got.Data) != len(want.Data) || cap(got.Dims) != len(got.Dims) {
			t.Fatalf("NewLiteral(%s, %v) = %s with %d bytes, want %s with %d", dt, dims, got.ShapeString(), len(got.Data), want.ShapeString(), len(want.Data))
		}
		for _, b := range got.Data {
			if b != 0 {
				t.Fatalf("NewLiteral(%s, %v) not zeroed", dt, dims)
			}
		}
	}
}

// A header the pool made for storage asked for as another type is private
// to the execution: when it comes back it takes the next type in place.
// Once the execution settles (its results left), it is public and keeps
// its type; so is any header the pool did not make.
func TestPoolPrivateHeaders(t *testing.T) {
	var p Pool
	donated := hlo.NewLiteral(hlo.F32, 8, 1024) // 32 KiB, a caller's header
	p.Put(donated)
	a := p.Get(hlo.I32, []int64{1024, 8})
	if a == nil || a == donated || donated.DType != hlo.F32 || !slices.Equal(donated.Dims, []int64{8, 1024}) {
		t.Fatalf("a public header was retyped or not replaced: got %v, donated %v", a, donated)
	}
	p.Put(a)
	var b *hlo.Literal
	if n := testing.AllocsPerRun(1, func() {
		b = p.Get(hlo.F32, []int64{4, 2048})
		p.Put(b)
	}); n != 0 || b != a || b.DType != hlo.F32 || !slices.Equal(b.Dims, []int64{4, 2048}) {
		t.Errorf("a private header coming back: %.0f allocations, got %p %v, want %p in place", n, b, b, a)
	}
	b = p.Get(hlo.I8, []int64{32768})
	p.Settle() // b left with the results: the caller sees its header
	p.Put(b)   // and donates it back
	c := p.Get(hlo.I32, []int64{8192})
	if c == nil || c == b || b.DType != hlo.I8 || !slices.Equal(b.Dims, []int64{32768}) {
		t.Errorf("a settled header was retyped: got %p, it is %v", c, b)
	}
}

// Random executions over a pool: values are got, put back, or escape as
// results (the caller keeps their headers, which may come back donated),
// and every execution settles. No header the caller has seen ever changes
// type or shape, and no storage is handed out twice.
func TestPoolHeadersNeverChangeUnderTheCaller(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	types := [][]int64{{16}, {4, 4}, {64}, {8, 8}, {2048}, {32, 64}, {4096}}
	dts := []hlo.DType{hlo.F32, hlo.I32, hlo.I8, hlo.Bool}
	type seen struct {
		l    *hlo.Literal
		dt   hlo.DType
		dims []int64
	}
	var p Pool
	var caller []*hlo.Literal // the caller's literals
	var saw []seen            // every header the caller saw, as it saw it
	for exec := 0; exec < 2000; exec++ {
		var live []*hlo.Literal
		// Donate some of the caller's literals.
		for i := 0; i < len(caller) && i < 3; i++ {
			if r.Intn(2) == 0 {
				k := r.Intn(len(caller))
				p.Put(caller[k])
				caller[k] = caller[len(caller)-1]
				caller = caller[:len(caller)-1]
			}
		}
		for op := 0; op < 12; op++ {
			switch {
			case r.Intn(3) > 0 || len(live) == 0:
				dt, dims := dts[r.Intn(len(dts))], types[r.Intn(len(types))]
				l := p.Get(dt, dims)
				if l == nil {
					l = NewLiteral(dt, dims)
				}
				if l.DType != dt || !slices.Equal(l.Dims, dims) {
					t.Fatalf("Get(%s, %v) = %s", dt, dims, l.ShapeString())
				}
				for _, o := range live {
					if len(o.Data) > 0 && &o.Data[0] == &l.Data[0] {
						t.Fatalf("storage of a live value handed out again")
					}
				}
				live = append(live, l)
			default:
				k := r.Intn(len(live))
				l := live[k]
				live[k] = live[len(live)-1]
				live = live[:len(live)-1]
				if r.Intn(4) == 0 {
					caller = append(caller, l)
					saw = append(saw, seen{l, l.DType, slices.Clone(l.Dims)})
				} else {
					p.Put(l)
				}
			}
		}
		for _, l := range live { // results
			caller = append(caller, l)
			saw = append(saw, seen{l, l.DType, slices.Clone(l.Dims)})
		}
		p.Settle()
		for _, c := range saw {
			if c.l.DType != c.dt || !slices.Equal(c.l.Dims, c.dims) {
				t.Fatalf("execution %d: a header the caller saw changed from %s%v to %s", exec, c.dt, c.dims, c.l.ShapeString())
			}
		}
		if len(caller) > 64 {
			caller = caller[len(caller)-64:]
		}
		if len(saw) > 512 {
			saw = saw[len(saw)-512:]
		}
	}
}
