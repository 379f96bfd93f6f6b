package slab

import (
	"testing"
	"unsafe"
)

// Cells are zeroed and distinct, chunks grow to 32 KiB and no further,
// and a chunk is one allocation for many cells.
func TestSlab(t *testing.T) {
	type cell struct{ a, b int64 }
	var s Slab[cell]
	seen := map[*cell]bool{}
	for i := 0; i < 10000; i++ {
		c := s.Get()
		if *c != (cell{}) {
			t.Fatalf("cell %d not zeroed: %+v", i, *c)
		}
		if seen[c] {
			t.Fatalf("cell %d handed out twice", i)
		}
		seen[c] = true
		c.a, c.b = int64(i), -1
	}
	if max := 32 << 10 / int(unsafe.Sizeof(cell{})); s.next != max {
		t.Errorf("chunk length %d after 10000 cells, want %d", s.next, max)
	}
	if n := testing.AllocsPerRun(100, func() { s.Get() }); n > 0.05 {
		t.Errorf("%.2f allocations per cell, want one per chunk", n)
	}
	type big struct{ x [64 << 10]byte }
	var b Slab[big]
	if b.Get() == b.Get() {
		t.Error("cells larger than a chunk share storage")
	}
}
