//go:build amd64 && !purego

package elementwise

import (
	"math"
	"unsafe"
)

// Implemented in fastmath_amd64.s; n is a positive multiple of 4.

//go:noescape
func exp32AVX2(d, a *float32, n int)

//go:noescape
func tanh32AVX2(d, a *float32, n int)

//go:noescape
func logistic32AVX2(d, a *float32, n int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv0() (eax, edx uint32)

// fastConsts are the assembly's constants, made from the same Go constants
// as the loops in fastmath.go so that both compute the same bits.
var fastConsts = [17]uint64{
	0x7fffffffffffffff,
	0x8000000000000000,
	math.Float64bits(invLn2N),
	math.Float64bits(roundMagic + 1<<20),
	math.Float64bits(ln2N),
	math.Float64bits(1),
	math.Float64bits(1.0 / 2),
	math.Float64bits(1.0 / 6),
	math.Float64bits(1.0 / 24),
	math.Float64bits(1.0 / 120),
	math.Float64bits(2),
	math.Float64bits(20),
	math.Float64bits(200),
	math.Float64bits(-200),
	31,
	0xffffffff,
	^uint64(1<<15 - 1023 - 1), // 1023 - 2^15 as two's complement
}

// haveVec says the CPU and OS support AVX2 (ymm state saved by the OS).
var haveVec = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&(osxsave|avx) != osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&0x6 != 0x6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}()

func exp32Vec(d, a []float32) {
	exp32AVX2(unsafe.SliceData(d), unsafe.SliceData(a[:len(d)]), len(d))
}

func tanh32Vec(d, a []float32) {
	tanh32AVX2(unsafe.SliceData(d), unsafe.SliceData(a[:len(d)]), len(d))
}

func logistic32Vec(d, a []float32) {
	logistic32AVX2(unsafe.SliceData(d), unsafe.SliceData(a[:len(d)]), len(d))
}
