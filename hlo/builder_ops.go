package hlo

// Builder methods for constants and the elementwise ops that take
// attributes (the others are generated: ops_builders_gen.go).

// Constant adds stablehlo.constant holding l (not copied).
func (s *Scope) Constant(l *Literal) *Value {
	if l == nil {
		s.b.failf("stablehlo.constant", "literal is nil")
		return placeholder()
	}
	if len(l.Dims) > 4 {
		return s.emit1("stablehlo.constant", nil, []NamedAttr{{"value", &DenseElementsAttr{Type: l.Type(), Value: l}}})
	}
	// The attribute list, the attribute and its type in one cell.
	c := s.b.consts.Get()
	c.dense = DenseElementsAttr{Type: c.typ.init(l.DType, l.Dims), Value: l}
	c.attrs[0] = NamedAttr{"value", &c.dense}
	return s.emit1("stablehlo.constant", nil, c.attrs[:])
}

// constCell is a constant's attribute list, attribute and type.
type constCell struct {
	attrs [1]NamedAttr
	dense DenseElementsAttr
	typ   tensorCell
}

// Splat adds a constant of shape dims holding elem (a rank-0 literal) in
// every element: one op where broadcast_in_dim of a scalar constant is
// two. It shares elem's data, which must not change. A splat of more than
// one element is compact (DenseElementsAttr.Splat); of one element, it is
// the element with the result's dims; of none, an empty value (the
// parser's forms of each).
func (s *Scope) Splat(elem *Literal, dims []int64) *Value {
	if elem == nil {
		s.b.failf("stablehlo.constant", "splat element is nil")
		return placeholder()
	}
	if len(elem.Dims) != 0 || !elem.DType.Valid() || len(elem.Data) != elem.DType.Size() {
		s.b.failf("stablehlo.constant", "splat element is not a rank-0 literal: %s with %d bytes", elem.ShapeString(), len(elem.Data))
		return placeholder()
	}
	if len(dims) > 4 {
		t := newTensorType(elem.DType, dims, nil)
		if n := t.NumElements(); n <= 1 {
			return s.Constant(&Literal{DType: elem.DType, Dims: t.Dims, Data: elem.Data[:n*int64(len(elem.Data))]})
		}
		return s.emit1("stablehlo.constant", nil, []NamedAttr{{"value", &DenseElementsAttr{Type: t, Splat: elem}}})
	}
	// The attribute list, the attribute, its literal of at most one
	// element and its type in one cell.
	c := s.b.splats.Get()
	t := c.typ.init(elem.DType, dims)
	c.dense = DenseElementsAttr{Type: t, Splat: elem}
	if n := t.NumElements(); n <= 1 {
		// One element: the element with the result's dims; none: an
		// empty value (dense<>), as the parser reads either back.
		c.lit = Literal{DType: elem.DType, Dims: t.Dims, Data: elem.Data[:n*int64(len(elem.Data))]}
		c.dense = DenseElementsAttr{Type: t, Value: &c.lit}
	}
	c.attrs[0] = NamedAttr{"value", &c.dense}
	return s.emit1("stablehlo.constant", nil, c.attrs[:])
}

// splatCell is a splat constant's attribute list, attribute, one-element
// literal and type.
type splatCell struct {
	attrs [1]NamedAttr
	dense DenseElementsAttr
	lit   Literal
	typ   tensorCell
}

// ConstantScalar adds a 0-d constant of type dt holding v (rounded or
// wrapped to dt).
func (s *Scope) ConstantScalar(dt DType, v float64) *Value {
	if !dt.Valid() {
		s.b.failf("stablehlo.constant", "invalid element type %s", dt)
		return placeholder()
	}
	return s.Constant(ScalarLiteral(dt, v))
}

// Iota adds stablehlo.iota of type t counting along dim.
func (s *Scope) Iota(t *TensorType, dim int64) *Value {
	if t == nil {
		s.b.failf("stablehlo.iota", "result type is nil")
		return placeholder()
	}
	return s.emit1("stablehlo.iota", nil, []NamedAttr{{"iota_dimension", I64Attr(dim)}}, t)
}

// CompareDir is a comparison_direction.
type CompareDir string

// Comparison directions.
const (
	CmpEQ CompareDir = "EQ"
	CmpNE CompareDir = "NE"
	CmpGE CompareDir = "GE"
	CmpGT CompareDir = "GT"
	CmpLE CompareDir = "LE"
	CmpLT CompareDir = "LT"
)

// Compare adds stablehlo.compare with the compare_type the element type
// implies (SIGNED, UNSIGNED or FLOAT).
func (s *Scope) Compare(dir CompareDir, x, y *Value) *Value {
	ct := ""
	if x != nil {
		if t := x.TensorType(); t != nil {
			ct = DefaultCompareType(storageDType(t))
		}
	}
	return s.CompareWithType(dir, x, y, ct)
}

// CompareWithType adds stablehlo.compare with an explicit compare_type
// (FLOAT, TOTALORDER, SIGNED, UNSIGNED; "" for none).
func (s *Scope) CompareWithType(dir CompareDir, x, y *Value, compareType string) *Value {
	attrs := []NamedAttr{{"comparison_direction", EnumOf("comparison_direction", string(dir))}}
	if compareType != "" {
		attrs = append(attrs, NamedAttr{"compare_type", EnumOf("comparison_type", compareType)})
	}
	return s.emit1("stablehlo.compare", []*Value{x, y}, attrs)
}

// tensorOf returns x's tensor type or records an error.
func (s *Scope) tensorOf(op string, x *Value) *TensorType {
	if s.b.err != nil {
		return nil
	}
	if x == nil {
		s.b.failf(op, "operand is nil")
		return nil
	}
	t := x.TensorType()
	if t == nil {
		s.b.failf(op, "operand has type %s, want a tensor", x.Type)
	}
	return t
}

// Convert converts x elementwise to element type dt.
func (s *Scope) Convert(x *Value, dt DType) *Value {
	t := s.tensorOf("stablehlo.convert", x)
	if t == nil {
		return placeholder()
	}
	return s.emit1("stablehlo.convert", []*Value{x}, nil, withElem(t, dt))
}

// BitcastConvert reinterprets x's bits as dt; with a narrower dt the result
// gains a trailing dimension, with a wider one it loses x's last.
func (s *Scope) BitcastConvert(x *Value, dt DType) *Value {
	t := s.tensorOf("stablehlo.bitcast_convert", x)
	if t == nil {
		return placeholder()
	}
	r, err := BitcastResultType(t, dt)
	if err != nil {
		s.b.fail("stablehlo.bitcast_convert", err)
		return placeholder()
	}
	return s.emit1("stablehlo.bitcast_convert", []*Value{x}, nil, r)
}

// ReducePrecision rounds x to a float format of exponentBits and
// mantissaBits.
func (s *Scope) ReducePrecision(x *Value, exponentBits, mantissaBits int) *Value {
	return s.emit1("stablehlo.reduce_precision", []*Value{x}, []NamedAttr{
		{"exponent_bits", I32Attr(int64(exponentBits))},
		{"mantissa_bits", I32Attr(int64(mantissaBits))},
	})
}

// UniformQuantize quantizes x to the quantized tensor type t.
func (s *Scope) UniformQuantize(x *Value, t *TensorType) *Value {
	return s.emit1("stablehlo.uniform_quantize", []*Value{x}, nil, t)
}

// UniformDequantize converts a quantized x to its expressed type.
func (s *Scope) UniformDequantize(x *Value) *Value {
	return s.emit1("stablehlo.uniform_dequantize", []*Value{x}, nil)
}
