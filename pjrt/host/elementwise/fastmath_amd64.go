//go:build amd64 && !purego

package elementwise

import (
	"math"
	"unsafe"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Implemented in fastmath_amd64.s; n is a positive multiple of 4.

//go:noescape
func exp32AVX2(d, a *float32, n int)

//go:noescape
func tanh32AVX2(d, a *float32, n int)

//go:noescape
func logistic32AVX2(d, a *float32, n int)

// Implemented in fastmath512_amd64.s; n is a positive multiple of 8 (log
// AVX2: of 4).

//go:noescape
func exp32AVX512(d, a *float32, n int)

//go:noescape
func tanh32AVX512(d, a *float32, n int)

//go:noescape
func logistic32AVX512(d, a *float32, n int)

//go:noescape
func log32AVX512(d, a *float32, n int)

//go:noescape
func log32AVX2(d, a *float32, n int)

//go:noescape
func erf32AVX512(d, a *float32, n int)

//go:noescape
func erf32AVX2(d, a *float32, n int)

// fastConsts are the assembly's constants, made from the same Go constants
// as the loops in fastmath.go so that both compute the same bits.
var fastConsts = [35]uint64{
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
	expTableSize - 1,
	0xffffffff,
	^uint64(1<<(20-expTableBits) - 1023 - 1), // 1023 - 2^20/expTableSize as two's complement
	sqrtHalfBits,
	0x3ff0000000000000 - sqrtHalfBits,
	mantMask,
	math.Float64bits(2.0 / 3),
	math.Float64bits(2.0 / 5),
	math.Float64bits(2.0 / 7),
	math.Float64bits(2.0 / 9),
	math.Float64bits(2.0 / 11),
	math.Float64bits(2.0 / 13),
	math.Float64bits(2.0 / 15),
	math.Float64bits(math.Ln2),
	math.Float64bits(math.MaxFloat32),
	0x4330000000000000, // 2^52
	math.Float64bits(1<<52 + 1023),
	math.Float64bits(math.Inf(-1)),
	math.Float64bits(math.NaN()),
	math.Float64bits(2.5),
	math.Float64bits(4),
}

// haveVec says the CPU and OS support AVX2 (ymm state saved by the OS).
var haveVec = kernel.CPU.AVX2

// fastVecs holds the vector forms per instruction set: exp, tanh,
// logistic, log; lanes is the group size (the slices' lengths must be
// multiples of it).
var fastVecs = map[vecISA]struct {
	exp, tanh, logistic, log, erf func(d, a *float32, n int)
	lanes                         int
}{
	isaAVX2:   {exp32AVX2, tanh32AVX2, logistic32AVX2, log32AVX2, erf32AVX2, 4},
	isaAVX512: {exp32AVX512, tanh32AVX512, logistic32AVX512, log32AVX512, erf32AVX512, 8},
}

// fastVec returns the vector form of the named function on isa, which
// takes slices of a multiple of the returned lane count.
func fastVec(name string, isa vecISA) (func(d, a []float32), int) {
	v := fastVecs[isa]
	f := map[string]func(d, a *float32, n int){"exp": v.exp, "tanh": v.tanh, "logistic": v.logistic, "log": v.log, "erf": v.erf}[name]
	return func(d, a []float32) {
		if len(d) > 0 {
			f(unsafe.SliceData(d), unsafe.SliceData(a[:len(d)]), len(d))
		}
	}, v.lanes
}

var (
	bestISA = func() vecISA {
		if haveAVX512 {
			return isaAVX512
		}
		return isaAVX2
	}()
	exp32Vec, vecLanes = fastVec("exp", bestISA)
	tanh32Vec, _       = fastVec("tanh", bestISA)
	logistic32Vec, _   = fastVec("logistic", bestISA)
	log32Vec, _        = fastVec("log", bestISA)
	erf32Vec, _        = fastVec("erf", bestISA)
)
