package hlo

import "unsafe"

// slab hands out zeroed cells of T cut from chunks, so that a builder
// making thousands of ops pays one allocation per chunk rather than one
// per op. Chunks grow from a few cells (a small module wastes little) to
// 32 KiB, the largest size class of small objects (a chunk of that size
// wastes less than one cell). A chunk stays alive while any of its cells
// is reachable; a builder's cells belong to one module, which lives and
// dies as a whole.
type slab[T any] struct {
	buf  []T
	next int // the next chunk's length
}

// slabBytes is the largest chunk.
const slabBytes = 32 << 10

func (s *slab[T]) get() *T {
	if len(s.buf) == 0 {
		var zero T
		s.next = min(max(2*s.next, 4), max(slabBytes/int(unsafe.Sizeof(zero)), 1))
		s.buf = make([]T, s.next)
	}
	c := &s.buf[0]
	s.buf = s.buf[1:]
	return c
}
