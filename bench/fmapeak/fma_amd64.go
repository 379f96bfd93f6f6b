//go:build amd64

package fmapeak

// Implemented in fma_amd64.s.

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv0() (eax, edx uint32)
func fmaAVX2(iters int)
func fmaAVX512(iters int)

// kernels lists the loops the CPU and OS support.
func kernels() []kernel {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return nil
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return nil
	}
	xcr0, _ := xgetbv0()
	if xcr0&0x6 != 0x6 {
		return nil
	}
	_, ebx7, _, _ := cpuid(7, 0)
	var ks []kernel
	if ebx7&(1<<16) != 0 && xcr0&0xe0 == 0xe0 {
		ks = append(ks, kernel{"avx512", 16, fmaAVX512})
	}
	if ebx7&(1<<5) != 0 {
		ks = append(ks, kernel{"avx2", 8, fmaAVX2})
	}
	return ks
}
