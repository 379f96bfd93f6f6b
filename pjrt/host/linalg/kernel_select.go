package linalg

// Machine-specific kernels register themselves here (see kernel_amd64.go),
// best first, only when the CPU and OS support them.
var (
	asmKernelsF32 []*microKernel[float32]
	asmKernelsF64 []*microKernel[float64]
)

// kernelsF32 lists every usable f32 micro-kernel, best first; the last is
// the portable one.
func kernelsF32() []*microKernel[float32] {
	return append(append([]*microKernel[float32](nil), asmKernelsF32...), goKernelF32)
}

func kernelsF64() []*microKernel[float64] {
	return append(append([]*microKernel[float64](nil), asmKernelsF64...), goKernelF64)
}

// bestF32 and bestF64 are the kernels dot_general and convolution use.
func bestF32() *microKernel[float32] {
	if len(asmKernelsF32) > 0 {
		return asmKernelsF32[0]
	}
	return goKernelF32
}

func bestF64() *microKernel[float64] {
	if len(asmKernelsF64) > 0 {
		return asmKernelsF64[0]
	}
	return goKernelF64
}

// interleave16F32, when set, packs sixteen rows of a source (stride ld)
// into the first sixteen lanes of a 32-wide panel for 16*blocks steps:
// dst[p*32+r] = src[r*ld+p] (a vector transpose; see interleave).
var interleave16F32 func(dst, src []float32, ld, blocks int)
