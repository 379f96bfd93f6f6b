package chlo

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/elementwise"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The CHLO element-wise ops are rows of package elementwise (Row, MathRow):
// they compute every element in float64 (complex128) and round once to the
// element type: for f16/bf16/f32 that is within half a ULP of the exact
// value whenever the float64 kernel is accurate, and the f64 kernels of
// this package are written for a few ULP at most.

// specialCost is the rough per-element cost of a special function relative
// to an f32 add (kernel.Elementwise.Cost).
const specialCost = 64

// realFn and complexFn are element kernels.
type (
	realFn    = func(float64) float64
	complexFn = func(complex128) complex128
)

// unaryEntry declares a float/complex op; f or g may be nil when the op has
// no real or complex form.
func unaryEntry(name string, f realFn, g complexFn) kernel.Entry {
	var fdt func(hlo.DType) realFn
	if f != nil {
		fdt = elementwise.Same(f)
	}
	return unaryTypedEntry(name, fdt, sameComplex(g))
}

// sameComplex uses one complex kernel for both complex types.
func sameComplex(g complexFn) func(hlo.DType) complexFn {
	if g == nil {
		return nil
	}
	return elementwise.Same(g)
}

// unaryTypedEntry is unaryEntry with kernels chosen per element type.
func unaryTypedEntry(name string, fdt func(hlo.DType) realFn, gdt func(hlo.DType) complexFn) kernel.Entry {
	return elementwise.MathRow(name, specialCost, elementwise.Math{Real: fdt, Complex: gdt})
}

// scalarIndex maps a tile index to src's element: a one-element source of a
// larger destination is a scalar operand (kernel.TileFn).
func scalarIndex(dst, src *hlo.Literal) func(int) int {
	if src.NumElements() == 1 && dst.NumElements() > 1 {
		return func(int) int { return 0 }
	}
	return func(i int) int { return i }
}
