//go:build amd64 && !purego

package kernel

// Implemented in cpu_amd64.s.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv0() (eax, edx uint32)

func detectCPU() (c CPUFeatures) {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return c
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(osxsave|avx) != osxsave|avx {
		return c
	}
	xcr0, _ := xgetbv0()
	if xcr0&0x6 != 0x6 { // XMM and YMM state
		return c
	}
	_, ebx7, _, _ := cpuid(7, 0)
	c.AVX2 = ebx7&(1<<5) != 0
	c.FMA = ecx1&fma != 0
	// ZMM needs opmask, ZMM_Hi256 and Hi16_ZMM state as well.
	c.AVX512F = c.AVX2 && ebx7&(1<<16) != 0 && xcr0&0xe0 == 0xe0
	return c
}
