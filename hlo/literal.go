package hlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/cmplx"
	"strconv"
	"strings"
	"unsafe"
)

// Literal is a dense row-major tensor value on the host: the payload of a
// dense<...> attribute, and the buffer type of the embedded device.
// Data holds NumElements()*DType.Size() bytes in the storage layout described
// on DType; it is 8-byte aligned when made by NewLiteral.
type Literal struct {
	DType DType
	Dims  []int64
	Data  []byte
}

// LiteralError is the panic value of a Literal function used outside its
// contract: an element type it does not handle, a shape that is not
// static, values that do not fill the shape. It is a programming error of
// the caller (data never causes it); callers that take shapes or element
// types from users check them first.
type LiteralError struct {
	Method string // "SetFloat"
	Msg    string
}

func (e *LiteralError) Error() string { return "hlo: " + e.Method + ": " + e.Msg }

// AlignedBytes returns n zeroed bytes whose start is 16-byte aligned.
func AlignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]complex128, (n+15)/16)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// NewLiteral allocates a zero literal of the given type and shape. A
// dynamic shape, or one whose size overflows an int64 (see CheckSize), is a
// programming error and panics; callers with shapes from outside check
// them first.
func NewLiteral(dt DType, dims ...int64) *Literal {
	d := make([]int64, len(dims))
	copy(d, dims)
	if NumElements(d) < 0 {
		panic(&LiteralError{Method: "NewLiteral", Msg: "dynamic shape " + ShapeString(dt, dims)})
	}
	n, ok := ByteSize(dt, d)
	if !ok {
		panic(&LiteralError{Method: "NewLiteral", Msg: CheckSize(dt, d).Error()})
	}
	return &Literal{DType: dt, Dims: d, Data: AlignedBytes(int(n))}
}

// Type returns the literal's tensor type.
func (l *Literal) Type() *TensorType { return NewTensorType(l.DType, l.Dims...) }

// NumElements is the element count.
func (l *Literal) NumElements() int {
	s := l.DType.Size()
	if s == 0 {
		return 0
	}
	return len(l.Data) / s
}

// ShapeString returns "f32[2,3]".
func (l *Literal) ShapeString() string { return ShapeString(l.DType, l.Dims) }

// Clone returns a deep copy.
func (l *Literal) Clone() *Literal {
	c := NewLiteral(l.DType, l.Dims...)
	copy(c.Data, l.Data)
	return c
}

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// Typed views of the storage. They alias Data; the caller must pick the
// view matching DType (Raw16 for f16/bf16 bits, U8 for sub-byte floats).
func (l *Literal) Bools() []bool      { return view[bool](l.Data) }
func (l *Literal) I8() []int8         { return view[int8](l.Data) }
func (l *Literal) I16() []int16       { return view[int16](l.Data) }
func (l *Literal) I32() []int32       { return view[int32](l.Data) }
func (l *Literal) I64() []int64       { return view[int64](l.Data) }
func (l *Literal) U8() []uint8        { return l.Data }
func (l *Literal) U16() []uint16      { return view[uint16](l.Data) }
func (l *Literal) U32() []uint32      { return view[uint32](l.Data) }
func (l *Literal) U64() []uint64      { return view[uint64](l.Data) }
func (l *Literal) F32() []float32     { return view[float32](l.Data) }
func (l *Literal) F64() []float64     { return view[float64](l.Data) }
func (l *Literal) C64() []complex64   { return view[complex64](l.Data) }
func (l *Literal) C128() []complex128 { return view[complex128](l.Data) }
func (l *Literal) Raw16() []uint16    { return view[uint16](l.Data) }
func ViewAs[T any](l *Literal) []T    { return view[T](l.Data) }
func BytesOf[T any](xs []T) []byte    { return bytesOf(xs) }
func bytesOf[T any](xs []T) []byte {
	if len(xs) == 0 {
		return []byte{}
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(z)))
}

// Bits returns the raw storage bits of element i (zero-extended).
func (l *Literal) Bits(i int) uint64 {
	s := l.DType.Size()
	b := l.Data[i*s : i*s+s]
	switch s {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	panic(&LiteralError{Method: "Bits", Msg: "unsupported element type " + l.DType.String()})
}

// SetBits stores raw storage bits into element i.
func (l *Literal) SetBits(i int, v uint64) {
	s := l.DType.Size()
	b := l.Data[i*s : i*s+s]
	switch s {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	default:
		panic(&LiteralError{Method: "SetBits", Msg: "unsupported element type " + l.DType.String()})
	}
}

// WrapInt truncates v to the width of the integer type dt (sign-extending
// for signed types), as StableHLO integer arithmetic wraps.
func WrapInt(dt DType, v int64) int64 {
	bits := uint(dt.Bits())
	if bits >= 64 || bits == 0 {
		return v
	}
	if dt.IsSigned() {
		return v << (64 - bits) >> (64 - bits)
	}
	if dt.IsBool() {
		return v & 1
	}
	return int64(uint64(v) & (1<<bits - 1))
}

// Int returns element i as int64 (integers sign- or zero-extended, i1 as
// 0/1, floats truncated toward zero).
func (l *Literal) Int(i int) int64 {
	dt := l.DType
	switch {
	case dt.IsSigned():
		bits := l.Bits(i)
		w := uint(dt.Size() * 8)
		return int64(bits<<(64-w)) >> (64 - w)
	case dt.IsUnsigned(), dt.IsBool():
		return int64(l.Bits(i))
	case dt.IsFloat():
		return int64(l.Float(i))
	case dt.IsComplex():
		return int64(real(l.Complex(i)))
	}
	panic(&LiteralError{Method: "Int", Msg: "unsupported element type " + dt.String()})
}

// Uint returns element i as uint64 (integers only; signed ones as their
// two's complement).
func (l *Literal) Uint(i int) uint64 {
	if l.DType.IsUnsigned() || l.DType.IsBool() {
		return l.Bits(i)
	}
	return uint64(l.Int(i))
}

// Float returns element i as float64 (any real or integer type).
func (l *Literal) Float(i int) float64 {
	dt := l.DType
	switch {
	case dt == F32:
		return float64(l.F32()[i])
	case dt == F64:
		return l.F64()[i]
	case dt.IsFloat():
		return FloatBitsToFloat64(dt, l.Bits(i))
	case dt.IsUnsigned(), dt.IsBool():
		return float64(l.Bits(i))
	case dt.IsSigned():
		return float64(l.Int(i))
	case dt.IsComplex():
		return real(l.Complex(i))
	}
	panic(&LiteralError{Method: "Float", Msg: "unsupported element type " + dt.String()})
}

// Complex returns element i as complex128 (real types with zero imaginary).
func (l *Literal) Complex(i int) complex128 {
	switch l.DType {
	case C64:
		return complex128(l.C64()[i])
	case C128:
		return l.C128()[i]
	}
	return complex(l.Float(i), 0)
}

// SetInt stores v into element i, wrapping to the integer width (floats
// convert, i1 stores v != 0).
func (l *Literal) SetInt(i int, v int64) {
	dt := l.DType
	switch {
	case dt.IsBool():
		if v != 0 {
			l.Data[i] = 1
		} else {
			l.Data[i] = 0
		}
	case dt.IsInt():
		l.SetBits(i, uint64(WrapInt(dt, v)))
	case dt.IsFloat():
		l.SetFloat(i, float64(v))
	case dt.IsComplex():
		l.SetComplex(i, complex(float64(v), 0))
	default:
		panic(&LiteralError{Method: "SetInt", Msg: "unsupported element type " + dt.String()})
	}
}

// SetFloat stores v into element i, rounding to the element type.
func (l *Literal) SetFloat(i int, v float64) {
	dt := l.DType
	switch {
	case dt == F32:
		l.F32()[i] = float32(v)
	case dt == F64:
		l.F64()[i] = v
	case dt.IsFloat():
		l.SetBits(i, Float64ToFloatBits(dt, v))
	case dt.IsComplex():
		l.SetComplex(i, complex(v, 0))
	case dt.IsBool():
		l.SetInt(i, boolInt(v != 0))
	case dt.IsInt():
		l.SetInt(i, int64(v))
	default:
		panic(&LiteralError{Method: "SetFloat", Msg: "unsupported element type " + dt.String()})
	}
}

// SetComplex stores v into element i of a complex literal.
func (l *Literal) SetComplex(i int, v complex128) {
	switch l.DType {
	case C64:
		l.C64()[i] = complex64(v)
	case C128:
		l.C128()[i] = v
	default:
		l.SetFloat(i, real(v))
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Equal reports whether l and o have the same type, shape and bytes.
func (l *Literal) Equal(o *Literal) bool {
	if l.DType != o.DType || len(l.Dims) != len(o.Dims) {
		return false
	}
	for i := range l.Dims {
		if l.Dims[i] != o.Dims[i] {
			return false
		}
	}
	return string(l.Data) == string(o.Data)
}

// LiteralFromSlice makes a literal of the Go element type's dtype (bool,
// int8..int64, uint8..uint64, float32, float64, complex64, complex128) with
// the given dims (none: a 1-D literal of len(xs)).
func LiteralFromSlice[T bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64 | complex64 | complex128](xs []T, dims ...int64) *Literal {
	var z T
	dt := goDType(any(z))
	if len(dims) == 0 {
		dims = []int64{int64(len(xs))}
	}
	l := NewLiteral(dt, dims...)
	if l.NumElements() != len(xs) {
		panic(&LiteralError{Method: "LiteralFromSlice", Msg: fmt.Sprintf("%d values for shape %s", len(xs), l.ShapeString())})
	}
	copy(l.Data, bytesOf(xs))
	return l
}

func goDType(v any) DType {
	switch v.(type) {
	case bool:
		return Bool
	case int8:
		return I8
	case int16:
		return I16
	case int32:
		return I32
	case int64:
		return I64
	case uint8:
		return U8
	case uint16:
		return U16
	case uint32:
		return U32
	case uint64:
		return U64
	case float32:
		return F32
	case float64:
		return F64
	case complex64:
		return C64
	case complex128:
		return C128
	}
	return InvalidDType
}

// ScalarLiteral makes a rank-0 literal of type dt holding v (rounded or
// wrapped to dt).
func ScalarLiteral(dt DType, v float64) *Literal {
	l := NewLiteral(dt)
	if dt.IsInt() || dt.IsBool() {
		l.SetInt(0, int64(v))
	} else {
		l.SetFloat(0, v)
	}
	return l
}

// HexThreshold is the element count above which DenseString prints the hex
// form, as MLIR does.
const HexThreshold = 100

// DenseString prints l as the body of a dense attribute: `dense<1.0>`
// (splat), `dense<[[1, 2], [3, 4]]>`, or `dense<"0x...">` for more than
// HexThreshold elements.
func DenseString(l *Literal) string {
	n := l.NumElements()
	var b strings.Builder
	b.WriteString("dense<")
	switch {
	case n == 0 && len(l.Dims) > 0:
		// empty tensor
	case l.isSplat() && n > 0:
		b.WriteString(l.ElemString(0))
	case n > HexThreshold:
		b.WriteString(DenseHex(l))
	default:
		l.writeNested(&b, 0, 0)
	}
	b.WriteByte('>')
	return b.String()
}

func (l *Literal) isSplat() bool {
	s := l.DType.Size()
	for i := s; i < len(l.Data); i += s {
		if string(l.Data[i:i+s]) != string(l.Data[:s]) {
			return false
		}
	}
	return true
}

func (l *Literal) writeNested(b *strings.Builder, dim int, off int) int {
	if dim == len(l.Dims) {
		b.WriteString(l.ElemString(off))
		return off + 1
	}
	b.WriteByte('[')
	for i := int64(0); i < l.Dims[dim]; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		off = l.writeNested(b, dim+1, off)
	}
	b.WriteByte(']')
	return off
}

// ElemString prints element i as MLIR writes it inside dense<...>: ints in
// decimal, i1 as true/false, floats as FormatFloatBits does (six significant
// digits when they read back exactly, otherwise the type's full precision,
// NaN and infinities as the hex bit pattern), complex as (re,im).
func (l *Literal) ElemString(i int) string {
	dt := l.DType
	switch {
	case dt.IsBool():
		return strconv.FormatBool(l.Data[i] != 0)
	case dt.IsUnsigned():
		return strconv.FormatUint(l.Uint(i), 10)
	case dt.IsSigned():
		return strconv.FormatInt(l.Int(i), 10)
	case dt.IsFloat():
		return FormatFloatBits(dt, l.Bits(i))
	case dt == C64:
		c := l.C64()[i]
		return "(" + FormatFloatBits(F32, uint64(math.Float32bits(real(c)))) + "," +
			FormatFloatBits(F32, uint64(math.Float32bits(imag(c)))) + ")"
	case dt == C128:
		c := l.C128()[i]
		return "(" + FormatFloatBits(F64, math.Float64bits(real(c))) + "," +
			FormatFloatBits(F64, math.Float64bits(imag(c))) + ")"
	}
	return "?"
}

// String prints the literal as `dense<...> : tensor<...>`.
func (l *Literal) String() string { return DenseString(l) + " : " + l.Type().String() }

// AllClose reports whether two real or complex literals of equal shape agree
// element-wise within atol + rtol*|want| (NaN equals NaN).
func AllClose(got, want *Literal, atol, rtol float64) bool {
	if got.NumElements() != want.NumElements() {
		return false
	}
	for i := 0; i < got.NumElements(); i++ {
		g, w := got.Complex(i), want.Complex(i)
		if cmplx.IsNaN(g) || cmplx.IsNaN(w) {
			if cmplx.IsNaN(g) != cmplx.IsNaN(w) {
				return false
			}
			continue
		}
		if g == w {
			continue
		}
		if cmplx.Abs(g-w) > atol+rtol*cmplx.Abs(w) {
			return false
		}
	}
	return true
}
