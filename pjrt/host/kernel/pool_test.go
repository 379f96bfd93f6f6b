package kernel

import (
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
