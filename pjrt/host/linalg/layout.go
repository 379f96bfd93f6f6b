package linalg

import (
	"strconv"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// permuteBytes returns the elements of data (shape dims, es bytes each,
// row-major) transposed so that output dimension i is input dimension
// perm[i]. It works on raw storage, so it serves every element type.
func permuteBytes(data []byte, dims []int64, perm []int, es int) []byte {
	out := hlo.AlignedBytes(int(hlo.NumElements(dims)) * es)
	permuteInto(out, data, dims, perm, es)
	return out
}

// permuteInto is permuteBytes writing into out.
func permuteInto(out, data []byte, dims []int64, perm []int, es int) {
	n := int(hlo.NumElements(dims))
	if n == 0 {
		return
	}
	switch es {
	case 1:
		permuteT(out, data, dims, perm)
	case 2:
		permuteT(asSlice[uint16](out), asSlice[uint16](data), dims, perm)
	case 4:
		permuteT(asSlice[uint32](out), asSlice[uint32](data), dims, perm)
	case 8:
		permuteT(asSlice[uint64](out), asSlice[uint64](data), dims, perm)
	case 16:
		permuteT(asSlice[[2]uint64](out), asSlice[[2]uint64](data), dims, perm)
	default:
		panic("linalg: permute of elements of " + strconv.Itoa(es) + " bytes")
	}
}

// asSlice views b (aligned storage of a literal) as elements of type T.
func asSlice[T any](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

// permuteT moves elements so that output dimension i is input dimension
// perm[i], walking the output in order with an odometer over the input.
func permuteT[T any](out, in []T, dims []int64, perm []int) {
	st := kernel.Strides(dims)
	r := len(perm)
	if r == 0 {
		copy(out, in)
		return
	}
	odims := make([]int, r)
	ostr := make([]int, r) // input stride of each output dimension
	for i, p := range perm {
		odims[i] = int(dims[p])
		ostr[i] = int(st[p])
	}
	inner, istr := odims[r-1], ostr[r-1]
	idx := make([]int, r)
	src := 0
	for o := 0; o < len(out); o += inner {
		dst := out[o : o+inner]
		if istr == 1 {
			copy(dst, in[src:src+inner])
		} else {
			s := src
			for j := range dst {
				dst[j] = in[s]
				s += istr
			}
		}
		for d := r - 2; d >= 0; d-- {
			idx[d]++
			src += ostr[d]
			if idx[d] < odims[d] {
				break
			}
			src -= ostr[d] * odims[d]
			idx[d] = 0
		}
	}
}

// toF32 returns the elements of l as float32 (a view when l is f32).
func toF32(l *hlo.Literal) []float32 {
	if l.DType == hlo.F32 {
		return l.F32()
	}
	n := l.NumElements()
	out := make([]float32, n)
	switch l.DType {
	case hlo.F16:
		for i, h := range l.Raw16() {
			out[i] = hlo.F16ToF32(h)
		}
	case hlo.BF16:
		for i, h := range l.Raw16() {
			out[i] = hlo.BF16ToF32(h)
		}
	case hlo.F64:
		for i, v := range l.F64() {
			out[i] = float32(v)
		}
	case hlo.I32:
		for i, v := range l.I32() {
			out[i] = float32(v)
		}
	case hlo.I8:
		for i, v := range l.I8() {
			out[i] = float32(v)
		}
	case hlo.U8:
		for i, v := range l.U8() {
			out[i] = float32(v)
		}
	default:
		for i := range out {
			out[i] = float32(l.Float(i))
		}
	}
	return out
}

// widen converts a typed view element by element (the fast paths of toF64
// and toI64).
func widen[S, D int8 | int16 | int32 | int64 | uint16 | uint32 | float32 | float64](src []S) []D {
	out := make([]D, len(src))
	for i, v := range src {
		out[i] = D(v)
	}
	return out
}

// toF64 returns the elements of l as float64 (a view when l is f64).
func toF64(l *hlo.Literal) []float64 {
	switch l.DType {
	case hlo.F64:
		return l.F64()
	case hlo.F32:
		return widen[float32, float64](l.F32())
	case hlo.I32:
		return widen[int32, float64](l.I32())
	case hlo.I64:
		return widen[int64, float64](l.I64())
	}
	out := make([]float64, l.NumElements())
	for i := range out {
		out[i] = l.Float(i)
	}
	return out
}

// toI64 returns integer or boolean elements as int64 (unsigned values keep
// their bit pattern, which is what wrapping arithmetic needs).
func toI64(l *hlo.Literal) []int64 {
	switch l.DType {
	case hlo.I64, hlo.U64:
		return l.I64()
	case hlo.I32:
		return widen[int32, int64](l.I32())
	case hlo.U32:
		return widen[uint32, int64](l.U32())
	case hlo.I16:
		return widen[int16, int64](l.I16())
	case hlo.U16:
		return widen[uint16, int64](l.U16())
	case hlo.I8:
		return widen[int8, int64](l.I8())
	}
	out := make([]int64, l.NumElements())
	for i := range out {
		out[i] = l.Int(i)
	}
	return out
}

// toC128 returns the elements of l as complex128.
func toC128(l *hlo.Literal) []complex128 {
	if l.DType == hlo.C128 {
		return l.C128()
	}
	n := l.NumElements()
	out := make([]complex128, n)
	if l.DType == hlo.C64 {
		for i, v := range l.C64() {
			out[i] = complex128(v)
		}
		return out
	}
	for i := range out {
		out[i] = l.Complex(i)
	}
	return out
}

// storeF32 writes float32 values into l, rounding to l's float type.
func storeF32(l *hlo.Literal, v []float32) {
	switch l.DType {
	case hlo.F32:
		copy(l.F32(), v)
	case hlo.F16:
		d := l.Raw16()
		for i, x := range v {
			d[i] = hlo.F32ToF16(x)
		}
	case hlo.BF16:
		d := l.Raw16()
		for i, x := range v {
			d[i] = hlo.F32ToBF16(x)
		}
	default:
		for i, x := range v {
			l.SetFloat(i, float64(x))
		}
	}
}

// storeI64 writes int64 values into an integer or boolean literal,
// wrapping to its width.
func storeI64(l *hlo.Literal, v []int64) {
	switch l.DType {
	case hlo.I64, hlo.U64:
		copy(l.I64(), v)
	case hlo.I32, hlo.U32:
		d := l.U32()
		for i, x := range v {
			d[i] = uint32(x)
		}
	case hlo.I16, hlo.U16:
		d := l.U16()
		for i, x := range v {
			d[i] = uint16(x)
		}
	default:
		for i, x := range v {
			l.SetInt(i, x)
		}
	}
}

// storeC128 writes complex values into a complex literal.
func storeC128(l *hlo.Literal, v []complex128) {
	switch l.DType {
	case hlo.C128:
		copy(l.C128(), v)
	case hlo.C64:
		d := l.C64()
		for i, x := range v {
			d[i] = complex64(x)
		}
	default:
		for i, x := range v {
			l.SetComplex(i, x)
		}
	}
}

// roundF32To rounds every value of v in place to the float type dt (used
// for an algorithm's operand precision type).
func roundF32To(v []float32, dt hlo.DType) {
	switch dt {
	case hlo.F32, hlo.F64, hlo.InvalidDType:
		return
	case hlo.BF16:
		for i, x := range v {
			v[i] = hlo.BF16ToF32(hlo.F32ToBF16(x))
		}
	case hlo.F16:
		for i, x := range v {
			v[i] = hlo.F16ToF32(hlo.F32ToF16(x))
		}
	default:
		for i, x := range v {
			v[i] = float32(hlo.FloatBitsToFloat64(dt, hlo.Float64ToFloatBits(dt, float64(x))))
		}
	}
}

// roundF64To rounds every value of v in place to the float type dt.
func roundF64To(v []float64, dt hlo.DType) {
	switch dt {
	case hlo.F64, hlo.InvalidDType:
		return
	case hlo.F32:
		for i, x := range v {
			v[i] = float64(float32(x))
		}
	default:
		for i, x := range v {
			v[i] = hlo.FloatBitsToFloat64(dt, hlo.Float64ToFloatBits(dt, x))
		}
	}
}
