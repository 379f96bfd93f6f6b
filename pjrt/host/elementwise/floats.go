package elementwise

import (
	"math"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// chunkLen is the number of elements decoded to float64 at a time.
const chunkLen = 256

type f64Scratch struct {
	bufs [4][chunkLen]float64
	in   [3][]float64
}

type c128Scratch struct {
	bufs [4][chunkLen]complex128
	in   [3][]complex128
}

var (
	f64Pool  = sync.Pool{New: func() any { return new(f64Scratch) }}
	c128Pool = sync.Pool{New: func() any { return new(c128Scratch) }}
)

// viaF64 runs f on float64 copies of nin operands of float type dt and
// rounds the results back to dt once.
func viaF64(dt hlo.DType, nin int, f func(d []float64, s [][]float64)) kernel.TileFn {
	dec, enc := floatDecoder(dt), floatEncoder(dt)
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		sc := f64Pool.Get().(*f64Scratch)
		for s := lo; s < hi; s += chunkLen {
			n := min(chunkLen, hi-s)
			for k := 0; k < nin; k++ {
				sc.in[k] = sc.bufs[k+1][:n]
				dec(sc.in[k], srcs[k], s)
			}
			d := sc.bufs[0][:n]
			f(d, sc.in[:nin])
			enc(dst, s, d)
		}
		f64Pool.Put(sc)
	}
}

// viaC128 runs f on complex128 copies of nin complex64 operands.
func viaC128(nin int, f func(d []complex128, s [][]complex128)) kernel.TileFn {
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		sc := c128Pool.Get().(*c128Scratch)
		for s := lo; s < hi; s += chunkLen {
			n := min(chunkLen, hi-s)
			for k := 0; k < nin; k++ {
				b := sc.bufs[k+1][:n]
				for i, v := range view[complex64](srcs[k], s, s+n) {
					b[i] = complex128(v)
				}
				sc.in[k] = b
			}
			d := sc.bufs[0][:n]
			f(d, sc.in[:nin])
			o := view[complex64](dst, s, s+n)
			for i, v := range d {
				o[i] = complex64(v)
			}
		}
		c128Pool.Put(sc)
	}
}

// decoder writes len(d) elements of src starting at element off to d as
// float64 (exactly: every float type of StableHLO fits in float64).
type decoder func(d []float64, src *hlo.Literal, off int)

// encoder rounds s to dt (to nearest, ties to even) into dst starting at
// element off.
type encoder func(dst *hlo.Literal, off int, s []float64)

var byteFloatTables sync.Map // hlo.DType → *[256]float64

// byteFloatTable returns the decoded value of every bit pattern of a
// one-byte float type.
func byteFloatTable(dt hlo.DType) *[256]float64 {
	if t, ok := byteFloatTables.Load(dt); ok {
		return t.(*[256]float64)
	}
	t := new([256]float64)
	mask := uint64(1)<<dt.Bits() - 1
	for i := range t {
		t[i] = hlo.FloatBitsToFloat64(dt, uint64(i)&mask)
	}
	byteFloatTables.Store(dt, t)
	return t
}

func floatDecoder(dt hlo.DType) decoder {
	switch dt {
	case hlo.F32:
		return func(d []float64, src *hlo.Literal, off int) {
			for i, v := range view[float32](src, off, off+len(d)) {
				d[i] = float64(v)
			}
		}
	case hlo.F64:
		return func(d []float64, src *hlo.Literal, off int) { copy(d, view[float64](src, off, off+len(d))) }
	case hlo.F16:
		return func(d []float64, src *hlo.Literal, off int) {
			for i, v := range view[uint16](src, off, off+len(d)) {
				d[i] = float64(hlo.F16ToF32(v))
			}
		}
	case hlo.BF16:
		return func(d []float64, src *hlo.Literal, off int) {
			for i, v := range view[uint16](src, off, off+len(d)) {
				d[i] = float64(hlo.BF16ToF32(v))
			}
		}
	case hlo.TF32:
		return func(d []float64, src *hlo.Literal, off int) {
			for i, v := range view[uint32](src, off, off+len(d)) {
				d[i] = hlo.FloatBitsToFloat64(hlo.TF32, uint64(v)&(1<<19-1))
			}
		}
	}
	if dt.IsFloat() && dt.Size() == 1 {
		t := byteFloatTable(dt)
		return func(d []float64, src *hlo.Literal, off int) {
			for i, v := range view[uint8](src, off, off+len(d)) {
				d[i] = t[v]
			}
		}
	}
	panic("elementwise: no float decoder for " + dt.String())
}

func floatEncoder(dt hlo.DType) encoder {
	switch dt {
	case hlo.F32:
		return func(dst *hlo.Literal, off int, s []float64) {
			o := view[float32](dst, off, off+len(s))
			for i, v := range s {
				o[i] = float32(v)
			}
		}
	case hlo.F64:
		return func(dst *hlo.Literal, off int, s []float64) { copy(view[float64](dst, off, off+len(s)), s) }
	case hlo.F16:
		return func(dst *hlo.Literal, off int, s []float64) {
			o := view[uint16](dst, off, off+len(s))
			for i, v := range s {
				o[i] = f64ToF16(v)
			}
		}
	case hlo.BF16:
		return func(dst *hlo.Literal, off int, s []float64) {
			o := view[uint16](dst, off, off+len(s))
			for i, v := range s {
				o[i] = f64ToBF16(v)
			}
		}
	case hlo.TF32:
		return func(dst *hlo.Literal, off int, s []float64) {
			o := view[uint32](dst, off, off+len(s))
			for i, v := range s {
				o[i] = uint32(hlo.Float64ToFloatBits(hlo.TF32, v))
			}
		}
	}
	if dt.IsFloat() && dt.Size() == 1 {
		return func(dst *hlo.Literal, off int, s []float64) {
			o := view[uint8](dst, off, off+len(s))
			for i, v := range s {
				o[i] = uint8(hlo.Float64ToFloatBits(dt, v))
			}
		}
	}
	panic("elementwise: no float encoder for " + dt.String())
}

// f64ToF32Odd rounds v to float32 with round-to-odd: truncate, and set the
// lowest bit when inexact. Rounding that result to nearest-even at 2 or more
// bits less precision (f16, bf16) equals rounding v directly, which plain
// float32(v) followed by a second rounding would not guarantee.
func f64ToF32Odd(v float64) float32 {
	f := float32(v)
	if float64(f) == v || v != v {
		return f
	}
	b := math.Float32bits(f)
	if math.Abs(float64(f)) > math.Abs(v) {
		b-- // f was rounded away from zero: step back toward zero
	}
	return math.Float32frombits(b | 1)
}

func f64ToF16(v float64) uint16  { return hlo.F32ToF16(f64ToF32Odd(v)) }
func f64ToBF16(v float64) uint16 { return hlo.F32ToBF16(f64ToF32Odd(v)) }
