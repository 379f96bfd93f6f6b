//go:build amd64 && !purego

package linalg

import "unsafe"

// Implemented in kernel_amd64.s.

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv0() (eax, edx uint32)

//go:noescape
func sgemm6x16AVX2(k int, a, b, c *float32, ldc, store int)

//go:noescape
func dgemm6x8AVX2(k int, a, b, c *float64, ldc, store int)

//go:noescape
func sgemm12x32AVX512(k int, a, b, c *float32, ldc, store int)

//go:noescape
func dgemm12x16AVX512(k int, a, b, c *float64, ldc, store int)

//go:noescape
func sgemm4x32AVX512(k int, a, b, c *float32, ldc, store, lda int)

//go:noescape
func sgemm12x32AVX512A(k int, a, b, c *float32, ldc, store, lda int)

//go:noescape
func interleave16AVX512(dst, src *float32, ld, blocks int)

// cpuFeatures reports AVX2+FMA and AVX-512F support, each only when the OS
// also saves the matching register state (XCR0), as the CPU manuals
// require before using them.
func cpuFeatures() (avx2, avx512 bool) {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false, false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false, false
	}
	xcr0, _ := xgetbv0()
	if xcr0&0x6 != 0x6 { // XMM and YMM state
		return false, false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	avx2 = ebx7&(1<<5) != 0
	// ZMM needs opmask, ZMM_Hi256 and Hi16_ZMM state as well.
	avx512 = avx2 && ebx7&(1<<16) != 0 && xcr0&0xe0 == 0xe0
	return avx2, avx512
}

func init() {
	avx2, avx512 := cpuFeatures()
	if avx512 {
		interleave16F32 = func(dst, src []float32, ld, blocks int) {
			if blocks <= 0 {
				return
			}
			if len(dst) < (16*blocks-1)*32+16 || len(src) < 15*ld+16*blocks {
				panic("linalg: interleave16 called with short buffers")
			}
			interleave16AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), ld, blocks)
		}
		asmKernelsF32 = append(asmKernelsF32, &microKernel[float32]{name: "avx512-12x32", mr: 12, nr: 32, fn: func(k int, a, b, c []float32, ldc int, store bool) {
			checkTile(k, len(a), len(b), len(c), 12, 32, ldc)
			sgemm12x32AVX512(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store))
		}, fnA: func(k int, a, b, c []float32, ldc, lda int, store bool) {
			if k <= 0 || lda < k || len(a) < 11*lda+k || len(b) < k*32 || len(c) < 11*ldc+32 || ldc < 32 {
				panic("linalg: micro-kernel called with short buffers")
			}
			sgemm12x32AVX512A(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store), lda)
		}, edgeRows: 4, edge: func(k int, a, b, c []float32, ldc, lda int, store bool) {
			if k < 0 || len(a) < (k-1)*lda+4 || len(b) < k*32 || len(c) < 3*ldc+32 || ldc < 32 || lda < 4 {
				panic("linalg: edge micro-kernel called with short buffers")
			}
			if k > 0 {
				sgemm4x32AVX512(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store), lda)
			} else if store {
				for r := 0; r < 4; r++ {
					clear(c[r*ldc : r*ldc+32])
				}
			}
		}})
		asmKernelsF64 = append(asmKernelsF64, &microKernel[float64]{name: "avx512-12x16", mr: 12, nr: 16, fn: func(k int, a, b, c []float64, ldc int, store bool) {
			checkTile(k, len(a), len(b), len(c), 12, 16, ldc)
			dgemm12x16AVX512(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store))
		}})
	}
	if avx2 {
		asmKernelsF32 = append(asmKernelsF32, &microKernel[float32]{name: "avx2-6x16", mr: 6, nr: 16, fn: func(k int, a, b, c []float32, ldc int, store bool) {
			checkTile(k, len(a), len(b), len(c), 6, 16, ldc)
			sgemm6x16AVX2(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store))
		}})
		asmKernelsF64 = append(asmKernelsF64, &microKernel[float64]{name: "avx2-6x8", mr: 6, nr: 8, fn: func(k int, a, b, c []float64, ldc int, store bool) {
			checkTile(k, len(a), len(b), len(c), 6, 8, ldc)
			dgemm6x8AVX2(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store))
		}})
	}
}

// checkTile keeps the assembly memory-safe: the panels must hold k steps
// and c a full mr x nr tile.
func checkTile(k, na, nb, nc, mr, nr, ldc int) {
	if k < 0 || na < k*mr || nb < k*nr || nc < (mr-1)*ldc+nr || ldc < nr {
		panic("linalg: micro-kernel called with short buffers")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
