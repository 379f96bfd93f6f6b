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
	got := p.Get(hlo.I32, []int64{2, 2}) // same byte size, new header
	if got == nil || &got.Data[0] != &a.Data[0] || got.DType != hlo.I32 || len(got.Dims) != 2 {
		t.Errorf("same size, other type: got %v", got)
	}
	p.Put(a)
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
