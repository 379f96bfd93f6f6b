package lazy

// Elementwise methods. Binary methods broadcast their operands numpy-style
// (both must have the same dtype); the *Scalar forms take a Go number
// converted to the tensor's dtype.

func (x *Tensor) unary(code opCode) *Tensor {
	needTensors(table[code].Name, "x", x)
	return apply1(code, nil, x)
}

func (x *Tensor) binary(code opCode, y *Tensor) *Tensor {
	x, y = broadcastPair(code, nil, x, y)
	return apply1(code, nil, x, y)
}

// broadcastPair broadcasts x and y to their common shape, after checking
// that op (with attrs) accepts the broadcast operands, so that a rejected
// op records no broadcast.
func broadcastPair(code opCode, attrs Attrs, x, y *Tensor) (*Tensor, *Tensor) {
	op := table[code].Name
	needTensors(op, "x,y", x, y)
	if sameDims(x.Dims(), y.Dims()) {
		return x, y
	}
	dims, ok := broadcastDims(x.Dims(), y.Dims())
	if !ok {
		throw(op, []Shape{x.shape, y.shape}, "shapes %v and %v do not broadcast", x.Dims(), y.Dims())
	}
	if err := checkDims(x.DType(), dims); err != nil {
		throw(op, []Shape{x.shape, y.shape}, "%v", err)
	}
	if _, err := inferShapes(table[code], attrs, []Shape{{x.DType(), dims}, {y.DType(), dims}}); err != nil {
		throw(op, []Shape{x.shape, y.shape}, "%v", err)
	}
	return x.BroadcastTo(dims...), y.BroadcastTo(dims...)
}

// scalarOp applies binary op code (with attrs) to x and the scalar v
// converted to x's dtype, checking first that the op takes x's dtype.
func (x *Tensor) scalarOp(code opCode, attrs Attrs, v float64) *Tensor {
	needTensors(table[code].Name, "x", x)
	if c := binaryClass[code]; !c.accepts(x.DType()) {
		throw(table[code].Name, []Shape{x.shape}, "needs %s tensors, got %s", c, x.DType())
	}
	c := x.scalarLike(v)
	if x.Rank() > 0 {
		c = c.BroadcastTo(x.Dims()...)
	}
	return apply1(code, attrs, x, c)
}

func (x *Tensor) scalarLike(v float64) *Tensor { return FullOn(x.dev, x.DType(), v) }

func (x *Tensor) Neg() *Tensor      { return x.unary(opNeg) }
func (x *Tensor) Abs() *Tensor      { return x.unary(opAbs) }
func (x *Tensor) Exp() *Tensor      { return x.unary(opExp) }
func (x *Tensor) Expm1() *Tensor    { return x.unary(opExpm1) }
func (x *Tensor) Log() *Tensor      { return x.unary(opLog) }
func (x *Tensor) Log1p() *Tensor    { return x.unary(opLog1p) }
func (x *Tensor) Sqrt() *Tensor     { return x.unary(opSqrt) }
func (x *Tensor) Rsqrt() *Tensor    { return x.unary(opRsqrt) }
func (x *Tensor) Tanh() *Tensor     { return x.unary(opTanh) }
func (x *Tensor) Sigmoid() *Tensor  { return x.unary(opSigmoid) }
func (x *Tensor) Sin() *Tensor      { return x.unary(opSin) }
func (x *Tensor) Cos() *Tensor      { return x.unary(opCos) }
func (x *Tensor) Floor() *Tensor    { return x.unary(opFloor) }
func (x *Tensor) Ceil() *Tensor     { return x.unary(opCeil) }
func (x *Tensor) Round() *Tensor    { return x.unary(opRound) }
func (x *Tensor) Sign() *Tensor     { return x.unary(opSign) }
func (x *Tensor) Not() *Tensor      { return x.unary(opNot) }
func (x *Tensor) Relu() *Tensor     { return x.unary(opRelu) }
func (x *Tensor) Erf() *Tensor      { return x.unary(opErf) }
func (x *Tensor) IsFinite() *Tensor { return x.unary(opIsFinite) }

// Square returns x*x.
func (x *Tensor) Square() *Tensor {
	needTensors("Square", "x", x)
	if _, err := inferShapes(table[opMul], nil, []Shape{x.shape, x.shape}); err != nil {
		throw("Square", []Shape{x.shape}, "%v", err)
	}
	return x.Mul(x)
}

// Reciprocal returns 1/x.
func (x *Tensor) Reciprocal() *Tensor {
	needTensors("Reciprocal", "x", x)
	if _, err := inferShapes(table[opDiv], nil, []Shape{x.shape, x.shape}); err != nil {
		throw("Reciprocal", []Shape{x.shape}, "%v", err)
	}
	return x.scalarLike(1).Div(x)
}

func (x *Tensor) Add(y *Tensor) *Tensor   { return x.binary(opAdd, y) }
func (x *Tensor) Sub(y *Tensor) *Tensor   { return x.binary(opSub, y) }
func (x *Tensor) Mul(y *Tensor) *Tensor   { return x.binary(opMul, y) }
func (x *Tensor) Div(y *Tensor) *Tensor   { return x.binary(opDiv, y) }
func (x *Tensor) Pow(y *Tensor) *Tensor   { return x.binary(opPow, y) }
func (x *Tensor) Max(y *Tensor) *Tensor   { return x.binary(opMax, y) }
func (x *Tensor) Min(y *Tensor) *Tensor   { return x.binary(opMin, y) }
func (x *Tensor) Rem(y *Tensor) *Tensor   { return x.binary(opRem, y) }
func (x *Tensor) Atan2(y *Tensor) *Tensor { return x.binary(opAtan2, y) }
func (x *Tensor) And(y *Tensor) *Tensor   { return x.binary(opAnd, y) }
func (x *Tensor) Or(y *Tensor) *Tensor    { return x.binary(opOr, y) }
func (x *Tensor) Xor(y *Tensor) *Tensor   { return x.binary(opXor, y) }

func (x *Tensor) AddScalar(v float64) *Tensor { return x.scalarOp(opAdd, nil, v) }
func (x *Tensor) SubScalar(v float64) *Tensor { return x.scalarOp(opSub, nil, v) }
func (x *Tensor) MulScalar(v float64) *Tensor { return x.scalarOp(opMul, nil, v) }
func (x *Tensor) DivScalar(v float64) *Tensor { return x.scalarOp(opDiv, nil, v) }
func (x *Tensor) PowScalar(v float64) *Tensor { return x.scalarOp(opPow, nil, v) }
func (x *Tensor) MaxScalar(v float64) *Tensor { return x.scalarOp(opMax, nil, v) }
func (x *Tensor) MinScalar(v float64) *Tensor { return x.scalarOp(opMin, nil, v) }

// The comparison attributes, shared by every call.
var (
	cmpEQ = Attrs{{"dir", "EQ"}}
	cmpNE = Attrs{{"dir", "NE"}}
	cmpLT = Attrs{{"dir", "LT"}}
	cmpLE = Attrs{{"dir", "LE"}}
	cmpGT = Attrs{{"dir", "GT"}}
	cmpGE = Attrs{{"dir", "GE"}}
)

func (x *Tensor) compare(dir string, y *Tensor) *Tensor {
	attrs := Attrs{{"dir", dir}}
	x, y = broadcastPair(opCompare, attrs, x, y)
	return apply1(opCompare, attrs, x, y)
}

func (x *Tensor) Eq(y *Tensor) *Tensor { return x.compare("EQ", y) }
func (x *Tensor) Ne(y *Tensor) *Tensor { return x.compare("NE", y) }
func (x *Tensor) Lt(y *Tensor) *Tensor { return x.compare("LT", y) }
func (x *Tensor) Le(y *Tensor) *Tensor { return x.compare("LE", y) }
func (x *Tensor) Gt(y *Tensor) *Tensor { return x.compare("GT", y) }
func (x *Tensor) Ge(y *Tensor) *Tensor { return x.compare("GE", y) }

func (x *Tensor) EqScalar(v float64) *Tensor { return x.scalarOp(opCompare, cmpEQ, v) }
func (x *Tensor) NeScalar(v float64) *Tensor { return x.scalarOp(opCompare, cmpNE, v) }
func (x *Tensor) LtScalar(v float64) *Tensor { return x.scalarOp(opCompare, cmpLT, v) }
func (x *Tensor) LeScalar(v float64) *Tensor { return x.scalarOp(opCompare, cmpLE, v) }
func (x *Tensor) GtScalar(v float64) *Tensor { return x.scalarOp(opCompare, cmpGT, v) }
func (x *Tensor) GeScalar(v float64) *Tensor { return x.scalarOp(opCompare, cmpGE, v) }

// Where selects a where cond is true and b elsewhere (all three broadcast).
func Where(cond, a, b *Tensor) *Tensor {
	needTensors("Where", "cond,a,b", cond, a, b)
	ab, ok := broadcastDims(a.Dims(), b.Dims())
	if !ok {
		throw("Where", []Shape{cond.shape, a.shape, b.shape}, "shapes %v and %v do not broadcast", a.Dims(), b.Dims())
	}
	dims, ok := broadcastDims(cond.Dims(), ab)
	if !ok {
		throw("Where", []Shape{cond.shape, a.shape}, "condition shape %v does not broadcast with %v", cond.Dims(), ab)
	}
	in := []Shape{cond.shape, a.shape, b.shape}
	needDims("Where", in, a.DType(), dims)
	if _, err := inferShapes(table[opWhere], nil, []Shape{{cond.DType(), dims}, {a.DType(), dims}, {b.DType(), dims}}); err != nil {
		throw("Where", in, "%v", err)
	}
	cond, a, b = cond.BroadcastTo(dims...), a.BroadcastTo(dims...), b.BroadcastTo(dims...)
	return apply1(opWhere, nil, cond, a, b)
}

// Cast converts to dt.
func (x *Tensor) Cast(dt DType) *Tensor {
	needTensors("Cast", "x", x)
	needDType("Cast", []Shape{x.shape}, dt)
	if x.DType() == dt {
		return x
	}
	return apply1(opCast, Attrs{{"dtype", dt}}, x)
}

// Clamp limits x to [lo, hi].
func (x *Tensor) Clamp(lo, hi float64) *Tensor {
	needTensors("Clamp", "x", x)
	return apply1(opClamp, Attrs{{"lo", lo}, {"hi", hi}}, x)
}
