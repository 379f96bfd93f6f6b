//go:build amd64 && !purego

package linalg

import "unsafe"

// Implemented in conv_small_amd64.s.

//go:noescape
func convTaps8x3AVX512(taps int, off *int32, w, in *float32, st *tapStrip, out *float32, ostride, no int, bias, relu *float32)

//go:noescape
func convWgrad2x9AVX512(acc *float32, nimg, oh, nxv int, mask uint64, gr *float32, gN, gH, gO int, in *float32, inN, inRow, dyRow int)

//go:noescape
func convWgrad2x9R2AVX512(acc *float32, nimg, pairs, nxv int, mask uint64, gr *float32, gN, gH, gO int, in *float32, inN, inRow, dyRow int)

//go:noescape
func padPlaneAVX512(dst, src *float32, n, h, w, lH, wp, first int, mask uint64)

func init() {
	if _, avx512 := cpuFeatures(); !avx512 {
		return
	}
	tapsKernel = func(taps int, off []int32, w, in []float32, strips []tapStrip, out []float32, ostride, no int, bias, relu []float32) {
		lo, hi := tapRange(taps, off, w)
		var bp, rp *float32
		if bias != nil {
			bp = &bias[:8][0]
		}
		if relu != nil {
			if len(relu) != len(out) {
				panic("linalg: taps kernel called with a short ReLU result")
			}
			rp = unsafe.SliceData(relu)
		}
		for i := range strips {
			st := &strips[i]
			checkStrip(taps, lo, hi, in, st, out, ostride, no)
			convTaps8x3AVX512(taps, unsafe.SliceData(off), unsafe.SliceData(w), unsafe.SliceData(in), st, unsafe.SliceData(out), ostride, no, bp, rp)
		}
	}
	padPlaneKernel = func(dst, src []float32, h, w, lH, wp, first int) {
		if h < 0 || w < 0 || lH < 0 || first < 0 || h > 0 && (first+(h-1)*wp+w > len(dst) || (h-1)*lH+w > len(src)) {
			panic("linalg: pad kernel called with short buffers")
		}
		if h == 0 || w == 0 {
			clear(dst)
			return
		}
		padPlaneAVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(dst), h, w, lH, wp, first, 1<<(w%16)-1)
	}
	wgradKernel = func(acc []float32, nimg, oh, nxv int, mask uint64, g []float32, gN, gH, gO int, in []float32, inN, inRow, dyRow int) {
		checkWgrad(acc, nimg, oh, nxv, mask, g, gN, gH, gO, in, inN, inRow, dyRow)
		if nimg == 0 || oh == 0 {
			return
		}
		if inRow == dyRow && oh >= 2 {
			// Row pairs share two of their four input rows.
			convWgrad2x9R2AVX512(unsafe.SliceData(acc), nimg, oh/2, nxv, mask, unsafe.SliceData(g), gN, gH, gO, unsafe.SliceData(in), inN, inRow, dyRow)
			if oh%2 == 0 {
				return
			}
			g, in = g[(oh-1)*gH:], in[(oh-1)*inRow:]
			oh = 1
		}
		convWgrad2x9AVX512(unsafe.SliceData(acc), nimg, oh, nxv, mask, unsafe.SliceData(g), gN, gH, gO, unsafe.SliceData(in), inN, inRow, dyRow)
	}
}
