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

func TestAppendDoubles(t *testing.T) {
	var s []int32
	grows := 0
	for i := 0; i < 100000; i++ {
		c := cap(s)
		s = Append(s, int32(i))
		if cap(s) != c {
			grows++
			if c > 0 && cap(s) < 2*c {
				t.Fatalf("capacity %d grew to %d, want at least %d", c, cap(s), 2*c)
			}
		}
		if s[i] != int32(i) || len(s) != i+1 {
			t.Fatalf("element %d: %d (len %d)", i, s[i], len(s))
		}
	}
	if grows > 18 {
		t.Errorf("%d growths for 100000 elements, want about log2 of it", grows)
	}
}
