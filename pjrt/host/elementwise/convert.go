package elementwise

import (
	"math"
	"math/bits"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// convert, as the reference interpreter defines what the spec leaves TBD:
// integers wrap (sign- or zero-extend, then truncate); integers and floats
// round to nearest even into floats; floats truncate toward zero into
// integers, NaN giving 0 and out-of-range values saturating; bool is 0/1,
// and anything non-zero (NaN included) converts to true; complex sources
// drop the imaginary part, complex results get a zero one.

func init() {
	kernel.Register(ew("convert", costCheap, prepConvert))
}

func prepConvert(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("expected 1 operand, got %d", len(c.In))
	}
	from, err := operandDType(c, 0)
	if err != nil {
		return nil, err
	}
	to, err := resultDType(c)
	if err != nil {
		return nil, err
	}
	if f := convertTile(from, to); f != nil {
		return f, nil
	}
	return nil, c.Errorf("conversion from %s to %s is not supported", from, to)
}

// convertTile returns the tile function converting from → to.
func convertTile(from, to hlo.DType) kernel.TileFn {
	if !from.Valid() || !to.Valid() {
		return nil
	}
	if from == to {
		s := from.Size()
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			copy(dst.Data[lo*s:hi*s], srcs[0].Data[lo*s:hi*s])
		}
	}
	if native(from) && native(to) {
		switch from {
		case hlo.I8:
			return cvtFromInt[int8](to)
		case hlo.I16:
			return cvtFromInt[int16](to)
		case hlo.I32:
			return cvtFromInt[int32](to)
		case hlo.I64:
			return cvtFromInt[int64](to)
		case hlo.U8:
			return cvtFromInt[uint8](to)
		case hlo.U16:
			return cvtFromInt[uint16](to)
		case hlo.U32:
			return cvtFromInt[uint32](to)
		case hlo.U64:
			return cvtFromInt[uint64](to)
		case hlo.F32:
			return cvtFromFloat[float32](to)
		case hlo.F64:
			return cvtFromFloat[float64](to)
		}
	}
	return generalConvert(from, to)
}

// native types convert with Go conversions (plus saturation from floats).
func native(dt hlo.DType) bool {
	switch dt {
	case hlo.I8, hlo.I16, hlo.I32, hlo.I64, hlo.U8, hlo.U16, hlo.U32, hlo.U64, hlo.F32, hlo.F64:
		return true
	}
	return false
}

func cvtN[S, D num](dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
	d := view[D](dst, lo, hi)
	for i, v := range view[S](srcs[0], lo, hi) {
		d[i] = D(v)
	}
}

func cvtFromInt[S anyInt](to hlo.DType) kernel.TileFn {
	switch to {
	case hlo.I8:
		return cvtN[S, int8]
	case hlo.I16:
		return cvtN[S, int16]
	case hlo.I32:
		return cvtN[S, int32]
	case hlo.I64:
		return cvtN[S, int64]
	case hlo.U8:
		return cvtN[S, uint8]
	case hlo.U16:
		return cvtN[S, uint16]
	case hlo.U32:
		return cvtN[S, uint32]
	case hlo.U64:
		return cvtN[S, uint64]
	case hlo.F32:
		return cvtN[S, float32]
	case hlo.F64:
		return cvtN[S, float64]
	}
	return nil
}

func cvtFromFloat[S float](to hlo.DType) kernel.TileFn {
	switch to {
	case hlo.I8:
		return cvtF2I[S, int8](to)
	case hlo.I16:
		return cvtF2I[S, int16](to)
	case hlo.I32:
		return cvtF2I[S, int32](to)
	case hlo.I64:
		return cvtF2I[S, int64](to)
	case hlo.U8:
		return cvtF2I[S, uint8](to)
	case hlo.U16:
		return cvtF2I[S, uint16](to)
	case hlo.U32:
		return cvtF2I[S, uint32](to)
	case hlo.U64:
		return cvtF2I[S, uint64](to)
	case hlo.F32:
		return cvtN[S, float32]
	case hlo.F64:
		return cvtN[S, float64]
	}
	return nil
}

// intRange is an integer type's bounds: values in [lo, hiExcl) truncate
// into it; below and above saturate to minV and maxV. All are exact in
// float64.
type intRange struct {
	lo, hiExcl float64
	minV, maxV int64 // maxV of ui64 is stored as -1 (all ones)
}

func rangeOf(dt hlo.DType) intRange {
	w := dt.Bits()
	if dt.IsSigned() {
		return intRange{-math.Ldexp(1, w-1), math.Ldexp(1, w-1), -1 << (w - 1), 1<<(w-1) - 1}
	}
	return intRange{0, math.Ldexp(1, w), 0, int64(mask(uint(w)))}
}

// f2i converts a float64 to an integer of range r (as its two's-complement
// bits), truncating toward zero and saturating; NaN gives 0.
func (r *intRange) f2i(v float64) int64 {
	switch {
	case v != v:
		return 0
	case v < r.lo:
		return r.minV
	case v >= r.hiExcl:
		return r.maxV
	case v >= 1<<63:
		return int64(uint64(v))
	}
	return int64(v)
}

func cvtF2I[S float, D anyInt](to hlo.DType) kernel.TileFn {
	r := rangeOf(to)
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		d := view[D](dst, lo, hi)
		for i, v := range view[S](srcs[0], lo, hi) {
			d[i] = D(r.f2i(float64(v)))
		}
	}
}

// The general path converts through one wide intermediate per source
// class, a chunk at a time.
type class uint8

const (
	clsS class = iota // signed integers, as int64
	clsU              // unsigned integers and bool, as uint64
	clsF              // floats, as float64
	clsC              // complex, as complex128
)

func classOf(dt hlo.DType) class {
	switch {
	case dt.IsSigned():
		return clsS
	case dt.IsUnsigned(), dt.IsBool():
		return clsU
	case dt.IsFloat():
		return clsF
	}
	return clsC
}

type wide struct {
	s [chunkLen]int64
	u [chunkLen]uint64
	f [chunkLen]float64
	c [chunkLen]complex128
}

var widePool = sync.Pool{New: func() any { return new(wide) }}

func generalConvert(from, to hlo.DType) kernel.TileFn {
	fc := classOf(from)
	var decF decoder
	if fc == clsF {
		decF = floatDecoder(from)
	}
	put := wideEncoder(fc, to)
	if put == nil {
		return nil
	}
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		w := widePool.Get().(*wide)
		src := srcs[0]
		for s := lo; s < hi; s += chunkLen {
			n := min(chunkLen, hi-s)
			switch fc {
			case clsS:
				for i := 0; i < n; i++ {
					w.s[i] = src.Int(s + i)
				}
			case clsU:
				for i := 0; i < n; i++ {
					w.u[i] = src.Bits(s + i)
				}
			case clsF:
				decF(w.f[:n], src, s)
			case clsC:
				for i := 0; i < n; i++ {
					w.c[i] = src.Complex(s + i)
				}
			}
			put(dst, s, n, w)
		}
		widePool.Put(w)
	}
}

// wideEncoder writes n intermediate values of class fc into dst (element
// type to) at element off.
func wideEncoder(fc class, to hlo.DType) func(dst *hlo.Literal, off, n int, w *wide) {
	switch {
	case to.IsBool():
		return func(dst *hlo.Literal, off, n int, w *wide) {
			d := view[bool](dst, off, off+n)
			for i := range d {
				switch fc {
				case clsS:
					d[i] = w.s[i] != 0
				case clsU:
					d[i] = w.u[i] != 0
				case clsF:
					d[i] = w.f[i] != 0
				case clsC:
					d[i] = real(w.c[i]) != 0
				}
			}
		}
	case to.IsInt():
		r := rangeOf(to)
		sub := isSubByte(to)
		return func(dst *hlo.Literal, off, n int, w *wide) {
			for i := 0; i < n; i++ {
				var v int64
				switch fc {
				case clsS:
					v = w.s[i]
				case clsU:
					v = int64(w.u[i])
				case clsF:
					v = r.f2i(w.f[i])
				case clsC:
					v = r.f2i(real(w.c[i]))
				}
				dst.SetBits(off+i, uint64(v))
			}
			if sub {
				wrapSubByte(to, dst, off, off+n)
			}
		}
	case to.IsFloat():
		enc := floatEncoder(to)
		// Integers round once: directly into float32 and float64, and to odd
		// in float64 first for narrower types (see i64ToF64Odd).
		wideDst := to == hlo.F32 || to == hlo.F64
		return func(dst *hlo.Literal, off, n int, w *wide) {
			f := w.f[:n]
			switch {
			case fc == clsC:
				for i := range f {
					f[i] = real(w.c[i])
				}
			case fc == clsS && wideDst:
				for i := range f {
					f[i] = float64(w.s[i])
				}
			case fc == clsU && wideDst:
				for i := range f {
					f[i] = float64(w.u[i])
				}
			case fc == clsS:
				for i := range f {
					f[i] = i64ToF64Odd(w.s[i])
				}
			case fc == clsU:
				for i := range f {
					f[i] = u64ToF64Odd(w.u[i])
				}
			}
			if to == hlo.F32 && (fc == clsS || fc == clsU) {
				d := view[float32](dst, off, off+n)
				for i := range d {
					if fc == clsS {
						d[i] = float32(w.s[i])
					} else {
						d[i] = float32(w.u[i])
					}
				}
				return
			}
			enc(dst, off, f)
		}
	case to.IsComplex():
		part := to.ComplexPart()
		return func(dst *hlo.Literal, off, n int, w *wide) {
			for i := 0; i < n; i++ {
				var v complex128
				switch fc {
				case clsS:
					if part == hlo.F32 {
						v = complex(float64(float32(w.s[i])), 0)
					} else {
						v = complex(float64(w.s[i]), 0)
					}
				case clsU:
					if part == hlo.F32 {
						v = complex(float64(float32(w.u[i])), 0)
					} else {
						v = complex(float64(w.u[i]), 0)
					}
				case clsF:
					v = complex(w.f[i], 0)
				case clsC:
					v = w.c[i]
				}
				dst.SetComplex(off+i, v)
			}
		}
	}
	return nil
}

// i64ToF64Odd converts x to float64 rounding to odd when inexact (beyond
// 2^53), so that a later rounding to a narrower float is still correct.
func i64ToF64Odd(x int64) float64 {
	if x >= -(1<<53) && x <= 1<<53 {
		return float64(x)
	}
	if x < 0 {
		return -u64ToF64Odd(uint64(-x)) // -MinInt64 wraps to 2^63, still right as uint64
	}
	return u64ToF64Odd(uint64(x))
}

func u64ToF64Odd(u uint64) float64 {
	n := bits.Len64(u)
	if n <= 53 {
		return float64(u)
	}
	sh := n - 53
	m := u >> uint(sh)
	if u&(1<<uint(sh)-1) != 0 {
		m |= 1
	}
	return math.Ldexp(float64(m), sh)
}
