//go:build amd64

package fmapeak

import hostkernel "github.com/xlajit/xlajit/pjrt/host/kernel"

// Implemented in fma_amd64.s.

func fmaAVX2(iters int)
func fmaAVX512(iters int)

// kernels lists the loops the CPU and OS support (the embedded device's
// own detection, kernel.CPU; both loops need FMA).
func kernels() []kernel {
	c := hostkernel.CPU
	if !c.FMA {
		return nil
	}
	var ks []kernel
	if c.AVX512F {
		ks = append(ks, kernel{"avx512", 16, fmaAVX512})
	}
	if c.AVX2 {
		ks = append(ks, kernel{"avx2", 8, fmaAVX2})
	}
	return ks
}
