package elementwise

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Storage: every op works on typed views of hlo.Literal data. Sub-byte
// integers (i2, i4, ui2, ui4) are computed in their one-byte storage type
// and wrapped back to their width afterwards; floats narrower than f32 (and
// tf32) are decoded to float64 in chunks, computed there and rounded back
// once, which is what the reference interpreter does.

type sint interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type uint_ interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

type anyInt interface{ sint | uint_ }

type float interface{ ~float32 | ~float64 }

type cplx interface{ ~complex64 | ~complex128 }

type num interface{ anyInt | float }

type arith interface{ anyInt | float | cplx }

// fns1 holds a unary same-type op's slice kernels per storage type; nil
// entries are unsupported types. f64 also serves every float type without
// its own entry; c128 serves c64 when c64 is nil.
type fns1 struct {
	b    func(d, a []bool)
	i8   func(d, a []int8)
	i16  func(d, a []int16)
	i32  func(d, a []int32)
	i64  func(d, a []int64)
	u8   func(d, a []uint8)
	u16  func(d, a []uint16)
	u32  func(d, a []uint32)
	u64  func(d, a []uint64)
	f32  func(d, a []float32)
	f64  func(d, a []float64)
	c64  func(d, a []complex64)
	c128 func(d, a []complex128)
}

// fns2 is fns1 for binary same-type ops.
type fns2 struct {
	b    func(d, a, b []bool)
	i8   func(d, a, b []int8)
	i16  func(d, a, b []int16)
	i32  func(d, a, b []int32)
	i64  func(d, a, b []int64)
	u8   func(d, a, b []uint8)
	u16  func(d, a, b []uint16)
	u32  func(d, a, b []uint32)
	u64  func(d, a, b []uint64)
	f32  func(d, a, b []float32)
	f64  func(d, a, b []float64)
	c64  func(d, a, b []complex64)
	c128 func(d, a, b []complex128)
}

// ints1 fills the integer entries of a fns1 from one generic kernel's
// instantiations.
func ints1(f *fns1, i8 func(d, a []int8), i16 func(d, a []int16), i32 func(d, a []int32), i64 func(d, a []int64),
	u8 func(d, a []uint8), u16 func(d, a []uint16), u32 func(d, a []uint32), u64 func(d, a []uint64)) {
	f.i8, f.i16, f.i32, f.i64, f.u8, f.u16, f.u32, f.u64 = i8, i16, i32, i64, u8, u16, u32, u64
}

func ints2(f *fns2, i8 func(d, a, b []int8), i16 func(d, a, b []int16), i32 func(d, a, b []int32), i64 func(d, a, b []int64),
	u8 func(d, a, b []uint8), u16 func(d, a, b []uint16), u32 func(d, a, b []uint32), u64 func(d, a, b []uint64)) {
	f.i8, f.i16, f.i32, f.i64, f.u8, f.u16, f.u32, f.u64 = i8, i16, i32, i64, u8, u16, u32, u64
}

// view returns elements [lo, hi) of l as a []T.
func view[T any](l *hlo.Literal, lo, hi int) []T { return hlo.ViewAs[T](l)[lo:hi] }

// t1 and t2 adapt typed loops to TileFns. They return method values, not
// closures: the compiler inlines the views into a generic method's body but
// not into a closure's, and a fused step calls these once per member and
// tile.
func t1[T any](f func(d, a []T)) kernel.TileFn { return unaryTile[T]{f}.tile }

func t2[T any](f func(d, a, b []T)) kernel.TileFn { return binaryTile[T]{f}.tile }

type unaryTile[T any] struct{ f func(d, a []T) }

func (k unaryTile[T]) tile(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
	k.f(view[T](dst, lo, hi), view[T](srcs[0], lo, hi))
}

type binaryTile[T any] struct{ f func(d, a, b []T) }

func (k binaryTile[T]) tile(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
	k.f(view[T](dst, lo, hi), view[T](srcs[0], lo, hi), view[T](srcs[1], lo, hi))
}

// isSubByte reports the integer types stored wider than their width.
func isSubByte(dt hlo.DType) bool {
	return dt == hlo.I2 || dt == hlo.I4 || dt == hlo.U2 || dt == hlo.U4
}

// wrapSubByte brings computed values of a sub-byte integer type back to
// its width (sign-extended for signed types).
func wrapSubByte(dt hlo.DType, l *hlo.Literal, lo, hi int) {
	sh := uint(8 - dt.Bits())
	if dt.IsSigned() {
		d := view[int8](l, lo, hi)
		for i, v := range d {
			d[i] = v << sh >> sh
		}
		return
	}
	d := view[uint8](l, lo, hi)
	m := uint8(1)<<dt.Bits() - 1
	for i, v := range d {
		d[i] = v & m
	}
}

func wrapped(dt hlo.DType, f kernel.TileFn) kernel.TileFn {
	if !isSubByte(dt) || f == nil {
		return f
	}
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		f(dst, srcs, lo, hi)
		wrapSubByte(dt, dst, lo, hi)
	}
}

// tile1 picks the kernel of f for element type dt (nil if unsupported).
func tile1(dt hlo.DType, f *fns1) kernel.TileFn {
	switch dt {
	case hlo.Bool:
		if f.b != nil {
			return t1(f.b)
		}
	case hlo.I2, hlo.I4:
		if f.i8 != nil {
			return wrapped(dt, t1(f.i8))
		}
	case hlo.I8:
		if f.i8 != nil {
			return t1(f.i8)
		}
	case hlo.I16:
		if f.i16 != nil {
			return t1(f.i16)
		}
	case hlo.I32:
		if f.i32 != nil {
			return t1(f.i32)
		}
	case hlo.I64:
		if f.i64 != nil {
			return t1(f.i64)
		}
	case hlo.U2, hlo.U4:
		if f.u8 != nil {
			return wrapped(dt, t1(f.u8))
		}
	case hlo.U8:
		if f.u8 != nil {
			return t1(f.u8)
		}
	case hlo.U16:
		if f.u16 != nil {
			return t1(f.u16)
		}
	case hlo.U32:
		if f.u32 != nil {
			return t1(f.u32)
		}
	case hlo.U64:
		if f.u64 != nil {
			return t1(f.u64)
		}
	case hlo.F32:
		if f.f32 != nil {
			return t1(f.f32)
		}
		if f.f64 != nil {
			return viaF64(dt, 1, func(d []float64, s [][]float64) { f.f64(d, s[0]) })
		}
	case hlo.F64:
		if f.f64 != nil {
			return t1(f.f64)
		}
	case hlo.C64:
		if f.c64 != nil {
			return t1(f.c64)
		}
		if f.c128 != nil {
			return viaC128(1, func(d []complex128, s [][]complex128) { f.c128(d, s[0]) })
		}
	case hlo.C128:
		if f.c128 != nil {
			return t1(f.c128)
		}
	default:
		if dt.IsFloat() && f.f64 != nil {
			return viaF64(dt, 1, func(d []float64, s [][]float64) { f.f64(d, s[0]) })
		}
	}
	return nil
}

// tile2 is tile1 for binary ops.
func tile2(dt hlo.DType, f *fns2) kernel.TileFn {
	switch dt {
	case hlo.Bool:
		if f.b != nil {
			return t2(f.b)
		}
	case hlo.I2, hlo.I4:
		if f.i8 != nil {
			return wrapped(dt, t2(f.i8))
		}
	case hlo.I8:
		if f.i8 != nil {
			return t2(f.i8)
		}
	case hlo.I16:
		if f.i16 != nil {
			return t2(f.i16)
		}
	case hlo.I32:
		if f.i32 != nil {
			return t2(f.i32)
		}
	case hlo.I64:
		if f.i64 != nil {
			return t2(f.i64)
		}
	case hlo.U2, hlo.U4:
		if f.u8 != nil {
			return wrapped(dt, t2(f.u8))
		}
	case hlo.U8:
		if f.u8 != nil {
			return t2(f.u8)
		}
	case hlo.U16:
		if f.u16 != nil {
			return t2(f.u16)
		}
	case hlo.U32:
		if f.u32 != nil {
			return t2(f.u32)
		}
	case hlo.U64:
		if f.u64 != nil {
			return t2(f.u64)
		}
	case hlo.F32:
		if f.f32 != nil {
			return t2(f.f32)
		}
		if f.f64 != nil {
			return viaF64(dt, 2, func(d []float64, s [][]float64) { f.f64(d, s[0], s[1]) })
		}
	case hlo.F64:
		if f.f64 != nil {
			return t2(f.f64)
		}
	case hlo.C64:
		if f.c64 != nil {
			return t2(f.c64)
		}
		if f.c128 != nil {
			return viaC128(2, func(d []complex128, s [][]complex128) { f.c128(d, s[0], s[1]) })
		}
	case hlo.C128:
		if f.c128 != nil {
			return t2(f.c128)
		}
	default:
		if dt.IsFloat() && f.f64 != nil {
			return viaF64(dt, 2, func(d []float64, s [][]float64) { f.f64(d, s[0], s[1]) })
		}
	}
	return nil
}
