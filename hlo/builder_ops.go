package hlo

// Builder methods for constants and elementwise ops.

// Constant adds stablehlo.constant holding l (not copied).
func (s *Scope) Constant(l *Literal) *Value {
	if l == nil {
		s.b.failf("stablehlo.constant", "literal is nil")
		return placeholder()
	}
	return s.emit1("stablehlo.constant", nil, []NamedAttr{{"value", &DenseElementsAttr{Type: l.Type(), Value: l}}})
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

func (s *Scope) unary(name string, x *Value) *Value {
	return s.emit1("stablehlo."+name, []*Value{x}, nil)
}

func (s *Scope) binary(name string, x, y *Value) *Value {
	return s.emit1("stablehlo."+name, []*Value{x, y}, nil)
}

// Unary ops: each adds the StableHLO op named in its comment.

func (s *Scope) Abs(x *Value) *Value              { return s.unary("abs", x) }
func (s *Scope) Neg(x *Value) *Value              { return s.unary("negate", x) }
func (s *Scope) Exp(x *Value) *Value              { return s.unary("exponential", x) }
func (s *Scope) Expm1(x *Value) *Value            { return s.unary("exponential_minus_one", x) }
func (s *Scope) Log(x *Value) *Value              { return s.unary("log", x) }
func (s *Scope) Log1p(x *Value) *Value            { return s.unary("log_plus_one", x) }
func (s *Scope) Sqrt(x *Value) *Value             { return s.unary("sqrt", x) }
func (s *Scope) Rsqrt(x *Value) *Value            { return s.unary("rsqrt", x) }
func (s *Scope) Cbrt(x *Value) *Value             { return s.unary("cbrt", x) }
func (s *Scope) Tanh(x *Value) *Value             { return s.unary("tanh", x) }
func (s *Scope) Logistic(x *Value) *Value         { return s.unary("logistic", x) }
func (s *Scope) Sin(x *Value) *Value              { return s.unary("sine", x) }
func (s *Scope) Cos(x *Value) *Value              { return s.unary("cosine", x) }
func (s *Scope) Tan(x *Value) *Value              { return s.unary("tan", x) }
func (s *Scope) Floor(x *Value) *Value            { return s.unary("floor", x) }
func (s *Scope) Ceil(x *Value) *Value             { return s.unary("ceil", x) }
func (s *Scope) RoundNearestEven(x *Value) *Value { return s.unary("round_nearest_even", x) }
func (s *Scope) RoundNearestAfz(x *Value) *Value  { return s.unary("round_nearest_afz", x) }
func (s *Scope) Sign(x *Value) *Value             { return s.unary("sign", x) }
func (s *Scope) Not(x *Value) *Value              { return s.unary("not", x) }
func (s *Scope) IsFinite(x *Value) *Value         { return s.unary("is_finite", x) }
func (s *Scope) Real(x *Value) *Value             { return s.unary("real", x) }
func (s *Scope) Imag(x *Value) *Value             { return s.unary("imag", x) }
func (s *Scope) PopCnt(x *Value) *Value           { return s.unary("popcnt", x) }
func (s *Scope) Clz(x *Value) *Value              { return s.unary("count_leading_zeros", x) }

// Binary ops: both operands have one type (no implicit broadcasting; use
// BroadcastInDim).

func (s *Scope) Add(x, y *Value) *Value       { return s.binary("add", x, y) }
func (s *Scope) Sub(x, y *Value) *Value       { return s.binary("subtract", x, y) }
func (s *Scope) Mul(x, y *Value) *Value       { return s.binary("multiply", x, y) }
func (s *Scope) Div(x, y *Value) *Value       { return s.binary("divide", x, y) }
func (s *Scope) Rem(x, y *Value) *Value       { return s.binary("remainder", x, y) }
func (s *Scope) Pow(x, y *Value) *Value       { return s.binary("power", x, y) }
func (s *Scope) Max(x, y *Value) *Value       { return s.binary("maximum", x, y) }
func (s *Scope) Min(x, y *Value) *Value       { return s.binary("minimum", x, y) }
func (s *Scope) Atan2(x, y *Value) *Value     { return s.binary("atan2", x, y) }
func (s *Scope) And(x, y *Value) *Value       { return s.binary("and", x, y) }
func (s *Scope) Or(x, y *Value) *Value        { return s.binary("or", x, y) }
func (s *Scope) Xor(x, y *Value) *Value       { return s.binary("xor", x, y) }
func (s *Scope) ShiftLeft(x, y *Value) *Value { return s.binary("shift_left", x, y) }
func (s *Scope) ShiftRightArithmetic(x, y *Value) *Value {
	return s.binary("shift_right_arithmetic", x, y)
}
func (s *Scope) ShiftRightLogical(x, y *Value) *Value { return s.binary("shift_right_logical", x, y) }

// Complex builds complex numbers from real parts x and imaginary parts y.
func (s *Scope) Complex(x, y *Value) *Value { return s.binary("complex", x, y) }

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

// Select picks onTrue where pred holds, onFalse elsewhere; pred is i1 of
// their shape or 0-d.
func (s *Scope) Select(pred, onTrue, onFalse *Value) *Value {
	return s.emit1("stablehlo.select", []*Value{pred, onTrue, onFalse}, nil)
}

// Clamp clamps x to [lo, hi]; lo and hi have x's shape or are 0-d.
func (s *Scope) Clamp(lo, x, hi *Value) *Value {
	return s.emit1("stablehlo.clamp", []*Value{lo, x, hi}, nil)
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
