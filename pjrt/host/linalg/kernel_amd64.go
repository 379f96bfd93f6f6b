//go:build amd64 && !purego

package linalg

import (
	"unsafe"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Implemented in kernel_amd64.s.

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
func sgemm12x16AVX512(k int, a, b, c *float32, ldc, store int)

//go:noescape
func sgemm12x16AVX512A(k int, a, b, c *float32, ldc, store, lda int)

//go:noescape
func interleave16AVX512(dst, src *float32, ld, blocks int)

// cpuFeatures reports AVX2+FMA and AVX-512F+FMA support (kernel.CPU).
func cpuFeatures() (avx2, avx512 bool) {
	c := kernel.CPU
	return c.AVX2 && c.FMA, c.AVX512F && c.FMA
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
		wide := &microKernel[float32]{name: "avx512-12x32", mr: 12, nr: 32, kc: wideKC, fn: func(k int, a, b, c []float32, ldc int, store bool) {
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
		}}
		wide.narrow = &microKernel[float32]{name: "avx512-12x16", mr: 12, nr: 16, kc: wideKC, fn: func(k int, a, b, c []float32, ldc int, store bool) {
			checkTile(k, len(a), len(b), len(c), 12, 16, ldc)
			sgemm12x16AVX512(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store))
		}, fnA: func(k int, a, b, c []float32, ldc, lda int, store bool) {
			if k <= 0 || lda < k || len(a) < 11*lda+k || len(b) < k*16 || len(c) < 11*ldc+16 || ldc < 16 {
				panic("linalg: micro-kernel called with short buffers")
			}
			sgemm12x16AVX512A(k, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2i(store), lda)
		}}
		asmKernelsF32 = append(asmKernelsF32, wide, wide.narrow)
		asmKernelsF64 = append(asmKernelsF64, &microKernel[float64]{name: "avx512-12x16", mr: 12, nr: 16, kc: wideKC, fn: func(k int, a, b, c []float64, ldc int, store bool) {
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
