//go:build amd64 && !purego

package elementwise

import "github.com/xlajit/xlajit/pjrt/host/kernel"

// Implemented in vecarith_amd64.s: func(d, a, b *T, bytes int), bytes a
// positive multiple of the register width.

//go:noescape
func addF32AVX512(d, a, b *float32, bytes int)

//go:noescape
func subF32AVX512(d, a, b *float32, bytes int)

//go:noescape
func mulF32AVX512(d, a, b *float32, bytes int)

//go:noescape
func divF32AVX512(d, a, b *float32, bytes int)

//go:noescape
func maxF32AVX512(d, a, b *float32, bytes int)

//go:noescape
func minF32AVX512(d, a, b *float32, bytes int)

//go:noescape
func addF64AVX512(d, a, b *float64, bytes int)

//go:noescape
func subF64AVX512(d, a, b *float64, bytes int)

//go:noescape
func mulF64AVX512(d, a, b *float64, bytes int)

//go:noescape
func divF64AVX512(d, a, b *float64, bytes int)

//go:noescape
func maxF64AVX512(d, a, b *float64, bytes int)

//go:noescape
func minF64AVX512(d, a, b *float64, bytes int)

//go:noescape
func addF32AVX2(d, a, b *float32, bytes int)

//go:noescape
func subF32AVX2(d, a, b *float32, bytes int)

//go:noescape
func mulF32AVX2(d, a, b *float32, bytes int)

//go:noescape
func divF32AVX2(d, a, b *float32, bytes int)

//go:noescape
func maxF32AVX2(d, a, b *float32, bytes int)

//go:noescape
func minF32AVX2(d, a, b *float32, bytes int)

//go:noescape
func addF64AVX2(d, a, b *float64, bytes int)

//go:noescape
func subF64AVX2(d, a, b *float64, bytes int)

//go:noescape
func mulF64AVX2(d, a, b *float64, bytes int)

//go:noescape
func divF64AVX2(d, a, b *float64, bytes int)

//go:noescape
func maxF64AVX2(d, a, b *float64, bytes int)

//go:noescape
func minF64AVX2(d, a, b *float64, bytes int)

// haveAVX512 says the CPU and OS support AVX-512F (zmm and opmask state
// saved by the OS).
var haveAVX512 = kernel.CPU.AVX512F

// vecISAs lists the vector instruction sets the CPU supports, best first.
var vecISAs = func() []vecISA {
	var l []vecISA
	if haveAVX512 {
		l = append(l, isaAVX512)
	}
	if haveVec {
		l = append(l, isaAVX2)
	}
	return l
}()

// vecBinaryISA returns the vector form of a binary op for T on isa and
// the width in bytes of its groups.
func vecBinaryISA[T float32 | float64](op vecOp, isa vecISA) (func(d, a, b *T, bytes int), int) {
	var z T
	_, f32 := any(z).(float32)
	var f any
	w := 32
	switch {
	case isa == isaAVX512 && f32:
		f, w = [...]func(d, a, b *float32, bytes int){addF32AVX512, subF32AVX512, mulF32AVX512, divF32AVX512, maxF32AVX512, minF32AVX512}[op], 64
	case isa == isaAVX512:
		f, w = [...]func(d, a, b *float64, bytes int){addF64AVX512, subF64AVX512, mulF64AVX512, divF64AVX512, maxF64AVX512, minF64AVX512}[op], 64
	case f32:
		f = [...]func(d, a, b *float32, bytes int){addF32AVX2, subF32AVX2, mulF32AVX2, divF32AVX2, maxF32AVX2, minF32AVX2}[op]
	default:
		f = [...]func(d, a, b *float64, bytes int){addF64AVX2, subF64AVX2, mulF64AVX2, divF64AVX2, maxF64AVX2, minF64AVX2}[op]
	}
	return f.(func(d, a, b *T, bytes int)), w
}
