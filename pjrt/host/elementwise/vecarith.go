package elementwise

import "unsafe"

// vecOp names the float binary ops with vector forms (vecarith_amd64.s).
type vecOp int

const (
	vecAdd vecOp = iota
	vecSub
	vecMul
	vecDiv
	vecMax
	vecMin
)

// vecISA is a vector instruction set the assembly is written for.
type vecISA int

const (
	isaAVX2 vecISA = iota
	isaAVX512
)

// vec2 returns k with the whole register-width groups of every slice done
// by op's vector form on the best instruction set the CPU has; the Go loop
// k does the rest (and all of it without the assembly). The vector forms
// compute the same bits as the loops (TestVecArithMatchesGo).
func vec2[T float32 | float64](op vecOp, k func(d, a, b []T)) func(d, a, b []T) {
	if len(vecISAs) == 0 {
		return k
	}
	return vec2ISA(op, k, vecISAs[0])
}

// vec2ISA is vec2 on a given instruction set (one of vecISAs).
func vec2ISA[T float32 | float64](op vecOp, k func(d, a, b []T), isa vecISA) func(d, a, b []T) {
	f, w := vecBinaryISA[T](op, isa)
	if f == nil {
		return k
	}
	var z T
	per := w / int(unsafe.Sizeof(z))
	return func(d, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		n := len(d) - len(d)%per
		if n > 0 {
			f(&d[0], &a[0], &b[0], n*int(unsafe.Sizeof(z)))
		}
		if n < len(d) {
			k(d[n:], a[n:], b[n:])
		}
	}
}
