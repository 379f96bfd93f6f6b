package elementwise

import (
	"math/bits"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Bitwise ops: and, or, xor, not, shifts, popcnt, count_leading_zeros.
// Shift amounts are read as unsigned: an amount of the bit width or more
// (including any negative one) shifts everything out, leaving 0, or the
// sign bit's fill for shift_right_arithmetic, as the reference's APInt.

func init() {
	kernel.Register(
		binaryOp("and", costCheap, fixed2(&andFns)),
		binaryOp("or", costCheap, fixed2(&orFns)),
		binaryOp("xor", costCheap, fixed2(&xorFns)),
		unaryOp("not", costCheap, fixed1(&notFns)),
		binaryOp("shift_left", costCheap, shiftFns(shlK[int8], shlK[int16], shlK[int32], shlK[int64], shlK[uint8], shlK[uint16], shlK[uint32], shlK[uint64])),
		binaryOp("shift_right_logical", costCheap, shiftFns(shrlK[int8], shrlK[int16], shrlK[int32], shrlK[int64], shrlK[uint8], shrlK[uint16], shrlK[uint32], shrlK[uint64])),
		binaryOp("shift_right_arithmetic", costCheap, shiftFns(shraK[int8], shraK[int16], shraK[int32], shraK[int64], shraK[uint8], shraK[uint16], shraK[uint32], shraK[uint64])),
		unaryOp("popcnt", costCheap, countFns(popK[int8], popK[int16], popK[int32], popK[int64], popK[uint8], popK[uint16], popK[uint32], popK[uint64])),
		unaryOp("count_leading_zeros", costCheap, countFns(clzK[int8], clzK[int16], clzK[int32], clzK[int64], clzK[uint8], clzK[uint16], clzK[uint32], clzK[uint64])),
	)
}

func andK[T anyInt](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] & b[i]
	}
}

func orK[T anyInt](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] | b[i]
	}
}

func xorK[T anyInt](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] ^ b[i]
	}
}

func xorB(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func notK[T anyInt](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = ^a[i]
	}
}

func notB(d, a []bool) {
	a = a[:len(d)]
	for i := range d {
		d[i] = !a[i]
	}
}

var andFns, orFns, xorFns fns2
var notFns fns1

func init() {
	ints2(&andFns, andK[int8], andK[int16], andK[int32], andK[int64], andK[uint8], andK[uint16], andK[uint32], andK[uint64])
	andFns.b = andB
	ints2(&orFns, orK[int8], orK[int16], orK[int32], orK[int64], orK[uint8], orK[uint16], orK[uint32], orK[uint64])
	orFns.b = orB
	ints2(&xorFns, xorK[int8], xorK[int16], xorK[int32], xorK[int64], xorK[uint8], xorK[uint16], xorK[uint32], xorK[uint64])
	xorFns.b = xorB
	ints1(&notFns, notK[int8], notK[int16], notK[int32], notK[int64], notK[uint8], notK[uint16], notK[uint32], notK[uint64])
	notFns.b = notB
}

// Width-dependent kernels take the element type's bit width w (2 or 4 for
// the sub-byte types stored in a byte; those are stored canonically:
// sign-extended or zero-extended).

// mask is the low w bits.
func mask(w uint) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func shlK[T anyInt](w uint) func(d, a, b []T) {
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			if n := uint64(b[i]) & mask(w); n < uint64(w) {
				d[i] = a[i] << n
			} else {
				d[i] = 0
			}
		}
	}
}

func shrlK[T anyInt](w uint) func(d, a, b []T) {
	m := mask(w)
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			if n := uint64(b[i]) & m; n < uint64(w) {
				d[i] = T((uint64(a[i]) & m) >> n)
			} else {
				d[i] = 0
			}
		}
	}
}

// shraK sign-extends from bit w-1 (so unsigned types shift in their top
// bit too) and shifts by at most w-1.
func shraK[T anyInt](w uint) func(d, a, b []T) {
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			n := uint64(b[i]) & mask(w)
			if n >= uint64(w) {
				n = uint64(w) - 1
			}
			v := int64(uint64(a[i])<<(64-w)) >> (64 - w)
			d[i] = T(v >> n)
		}
	}
}

func popK[T anyInt](w uint) func(d, a []T) {
	m := mask(w)
	return func(d, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = T(bits.OnesCount64(uint64(a[i]) & m))
		}
	}
}

func clzK[T anyInt](w uint) func(d, a []T) {
	m := mask(w)
	return func(d, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = T(bits.LeadingZeros64(uint64(a[i])&m) - (64 - int(w)))
		}
	}
}

// shiftFns builds the integer kernels of a shift for each element type.
func shiftFns(i8 func(uint) func(d, a, b []int8), i16 func(uint) func(d, a, b []int16), i32 func(uint) func(d, a, b []int32), i64 func(uint) func(d, a, b []int64),
	u8 func(uint) func(d, a, b []uint8), u16 func(uint) func(d, a, b []uint16), u32 func(uint) func(d, a, b []uint32), u64 func(uint) func(d, a, b []uint64)) func(hlo.DType) *fns2 {
	return func(dt hlo.DType) *fns2 {
		w := uint(dt.Bits())
		f := &fns2{}
		if dt.IsInt() {
			ints2(f, i8(w), i16(w), i32(w), i64(w), u8(w), u16(w), u32(w), u64(w))
		}
		return f
	}
}

func countFns(i8 func(uint) func(d, a []int8), i16 func(uint) func(d, a []int16), i32 func(uint) func(d, a []int32), i64 func(uint) func(d, a []int64),
	u8 func(uint) func(d, a []uint8), u16 func(uint) func(d, a []uint16), u32 func(uint) func(d, a []uint32), u64 func(uint) func(d, a []uint64)) func(hlo.DType) *fns1 {
	return func(dt hlo.DType) *fns1 {
		w := uint(dt.Bits())
		f := &fns1{}
		if dt.IsInt() {
			ints1(f, i8(w), i16(w), i32(w), i64(w), u8(w), u16(w), u32(w), u64(w))
		}
		return f
	}
}
