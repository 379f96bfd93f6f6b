package slab

import (
	"slices"
	"unsafe"
)

// Slab hands out zeroed cells of T. Chunks grow from a few cells (a small
// graph wastes little) to 32 KiB, the largest size class of small objects
// (a chunk of that size wastes less than one cell). A chunk stays alive
// while any of its cells is reachable, so a Slab suits records that share
// a lifetime. The zero Slab is ready to use; it is not safe for
// concurrent use.
type Slab[T any] struct {
	buf  []T
	next int // the next chunk's length
}

// chunkBytes is the largest chunk.
const chunkBytes = 32 << 10

// Get returns a zeroed cell.
func (s *Slab[T]) Get() *T {
	if len(s.buf) == 0 {
		var zero T
		s.next = min(max(2*s.next, 4), max(chunkBytes/int(unsafe.Sizeof(zero)), 1))
		s.buf = make([]T, s.next)
	}
	c := &s.buf[0]
	s.buf = s.buf[1:]
	return c
}

// Append is append(s, v) that doubles a full slice's capacity. Go's
// append grows a slice past 256 elements by about a quarter at a time, so
// a list of n records built by append alone allocates about 5n slots in
// all, against about 2n here: it suits the lists of a first call's walks
// (post-orders, stacks, touched entries) that reach tens of thousands of
// records.
func Append[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, len(s)+1)
	}
	return append(s, v)
}
