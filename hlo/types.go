package hlo

import (
	"math"
	"strconv"
	"strings"
)

// DynamicDim marks a dimension whose size is not known statically ("?").
const DynamicDim int64 = -1

// Type is a StableHLO value type: *TensorType, *TupleType or *TokenType.
type Type interface {
	// String returns the MLIR spelling ("tensor<2x3xf32>", "tuple<...>",
	// "!stablehlo.token").
	String() string
	isType()
}

// TensorType is a ranked tensor type. Dims holds one size per dimension;
// DynamicDim marks an unknown size. When Quant is set the element type is a
// !quant.uniform type whose storage type is DType.
type TensorType struct {
	DType    DType
	Dims     []int64
	Quant    *QuantType
	Encoding Attr // optional, e.g. #stablehlo.bounds<...>
}

// TupleType is a tuple of types.
type TupleType struct {
	Elems []Type
}

// TokenType is !stablehlo.token.
type TokenType struct{}

// OpaqueType is any other type, kept as its source text: a bare element
// type used as an attribute (`i32`), `index`, a function type, a tensor of
// an element type DType cannot hold, or another dialect's type.
type OpaqueType struct {
	Text string
}

// FunctionType is a function signature `(inputs) -> results`, as used by
// the function_type attribute of a generic func.func.
type FunctionType struct {
	Inputs, Results []Type
}

func (*FunctionType) isType() {}

func (t *FunctionType) String() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, in := range t.Inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(in.String())
	}
	b.WriteString(") -> ")
	if len(t.Results) == 1 {
		if _, fn := t.Results[0].(*FunctionType); !fn {
			b.WriteString(t.Results[0].String())
			return b.String()
		}
	}
	b.WriteByte('(')
	for i, r := range t.Results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	b.WriteByte(')')
	return b.String()
}

func (*TensorType) isType() {}
func (*TupleType) isType()  {}
func (*TokenType) isType()  {}
func (*OpaqueType) isType() {}

func (t *OpaqueType) String() string { return t.Text }

// NewTensorType returns the static tensor type dt[dims...].
func NewTensorType(dt DType, dims ...int64) *TensorType {
	return newTensorType(dt, dims, nil)
}

// tensorCell is a tensor type with its dims (up to 4) in one allocation.
type tensorCell struct {
	t    TensorType
	dims [4]int64
}

// newTensorType returns a tensor type with its own copy of dims.
func newTensorType(dt DType, dims []int64, q *QuantType) *TensorType {
	if len(dims) > len(tensorCell{}.dims) {
		d := make([]int64, len(dims))
		copy(d, dims)
		return &TensorType{DType: dt, Dims: d, Quant: q}
	}
	c := &tensorCell{}
	c.t = TensorType{DType: dt, Dims: c.dims[:len(dims):len(dims)], Quant: q}
	copy(c.t.Dims, dims)
	return &c.t
}

// init makes c the tensor type dt[dims...] (at most four dims) and
// returns it.
func (c *tensorCell) init(dt DType, dims []int64) *TensorType {
	c.t = TensorType{DType: dt, Dims: c.dims[:len(dims):len(dims)]}
	copy(c.t.Dims, dims)
	return &c.t
}

// Rank is the number of dimensions.
func (t *TensorType) Rank() int { return len(t.Dims) }

// IsStatic reports whether every dimension is known.
func (t *TensorType) IsStatic() bool {
	for _, d := range t.Dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// NumElements is the product of the dimensions (-1 if any is dynamic).
func (t *TensorType) NumElements() int64 { return NumElements(t.Dims) }

// NumElements is the product of dims (1 for a scalar, -1 if any is
// dynamic). A product that overflows an int64 gives math.MaxInt64, never a
// wrapped count; CheckSize reports it as an error.
func NumElements(dims []int64) int64 {
	for _, d := range dims {
		if d < 0 {
			return -1
		}
	}
	n, ok := CheckedNumElements(dims)
	if !ok {
		return math.MaxInt64
	}
	return n
}

// ElemString returns the spelling of the element type, including a
// !quant.uniform element when present.
func (t *TensorType) ElemString() string {
	if t.Quant != nil {
		return t.Quant.String()
	}
	return t.DType.String()
}

func (t *TensorType) String() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.Dims {
		if d < 0 {
			b.WriteString("?")
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
		b.WriteByte('x')
	}
	b.WriteString(t.ElemString())
	if t.Encoding != nil {
		b.WriteString(", ")
		b.WriteString(AttrString(t.Encoding))
	}
	b.WriteByte('>')
	return b.String()
}

// Equal reports whether t and u are the same type (encodings compared by
// their printed form).
func (t *TensorType) Equal(u *TensorType) bool {
	if t.DType != u.DType || len(t.Dims) != len(u.Dims) {
		return false
	}
	for i := range t.Dims {
		if t.Dims[i] != u.Dims[i] {
			return false
		}
	}
	if (t.Quant == nil) != (u.Quant == nil) || (t.Quant != nil && t.Quant.String() != u.Quant.String()) {
		return false
	}
	if (t.Encoding == nil) != (u.Encoding == nil) || (t.Encoding != nil && AttrString(t.Encoding) != AttrString(u.Encoding)) {
		return false
	}
	return true
}

// ShapeString returns "f32[2,3]", the short form used in messages and in
// the fx and lazy printers.
func (t *TensorType) ShapeString() string { return ShapeString(t.DType, t.Dims) }

// ShapeString returns "f32[2,3]" ("?" for dynamic dimensions).
func ShapeString(dt DType, dims []int64) string {
	var b strings.Builder
	b.WriteString(dt.String())
	b.WriteByte('[')
	for i, d := range dims {
		if i > 0 {
			b.WriteByte(',')
		}
		if d < 0 {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(']')
	return b.String()
}

func (t *TupleType) String() string {
	var b strings.Builder
	b.WriteString("tuple<")
	for i, e := range t.Elems {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	b.WriteByte('>')
	return b.String()
}

func (*TokenType) String() string { return "!stablehlo.token" }

// TypesEqual compares two types structurally.
func TypesEqual(a, b Type) bool {
	switch a := a.(type) {
	case *TensorType:
		b, ok := b.(*TensorType)
		return ok && a.Equal(b)
	case *TupleType:
		b, ok := b.(*TupleType)
		if !ok || len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !TypesEqual(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	case *TokenType:
		_, ok := b.(*TokenType)
		return ok
	case *OpaqueType:
		b, ok := b.(*OpaqueType)
		return ok && a.Text == b.Text
	case *FunctionType:
		b, ok := b.(*FunctionType)
		if !ok || len(a.Inputs) != len(b.Inputs) || len(a.Results) != len(b.Results) {
			return false
		}
		for i := range a.Inputs {
			if !TypesEqual(a.Inputs[i], b.Inputs[i]) {
				return false
			}
		}
		for i := range a.Results {
			if !TypesEqual(a.Results[i], b.Results[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// QuantType is a !quant.uniform element type:
// !quant.uniform<i8:f32, 0.5:-3> (per tensor) or
// !quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}> (per axis).
type QuantType struct {
	Storage    DType
	StorageMin *int64 // optional storage range <min:max>
	StorageMax *int64
	Expressed  DType
	Axis       int // -1 for per-tensor
	Scales     []float64
	ZeroPoints []int64
}

func (q *QuantType) String() string {
	var b strings.Builder
	b.WriteString("!quant.uniform<")
	b.WriteString(quantStorageName(q.Storage))
	if q.StorageMin != nil && q.StorageMax != nil {
		b.WriteString("<" + strconv.FormatInt(*q.StorageMin, 10) + ":" + strconv.FormatInt(*q.StorageMax, 10) + ">")
	}
	b.WriteByte(':')
	b.WriteString(q.Expressed.String())
	if q.Axis >= 0 {
		b.WriteString(":" + strconv.Itoa(q.Axis) + ", {")
		for i := range q.Scales {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(formatQuantParam(q.Scales[i], q.ZeroPoints[i]))
		}
		b.WriteString("}>")
		return b.String()
	}
	b.WriteString(", ")
	b.WriteString(formatQuantParam(q.Scales[0], q.ZeroPoints[0]))
	b.WriteByte('>')
	return b.String()
}

// quantStorageName spells a storage type as the quant dialect does: "i8",
// "u8" (not "ui8").
func quantStorageName(dt DType) string {
	if dt.IsUnsigned() {
		return "u" + strconv.Itoa(dt.Bits())
	}
	return dt.String()
}

// formatQuantParam prints scale[:zero_point] as MLIR's quant dialect does
// (the scale as an f64 float attribute).
func formatQuantParam(scale float64, zp int64) string {
	s := FormatFloat(scale)
	if zp == 0 {
		return s
	}
	return s + ":" + strconv.FormatInt(zp, 10)
}
