package lazy

// Elementwise methods. Binary methods broadcast their operands numpy-style
// and promote their types as PyTorch does (promote.go); the *Scalar forms
// take a Go number that promotes like a Python scalar: an integral value
// like an int, any other like a float. Ops that always compute in floating
// point (Div, Exp, Sqrt, ...) make integer and bool operands f32.

// Each method checks its operands (nil, promotion, broadcasting, the op's
// element types) before it records the casts and broadcasts it is made of,
// so that a rejected op records nothing.

func (x *Tensor) unary(code opCode) *Tensor {
	needTensors(table[code].Name, "x", x)
	return apply1(code, nil, x)
}

// floatUnary is a unary op of floating-point math: integer and bool
// operands are converted to the default float type first (torch.exp of an
// int tensor is f32).
func (x *Tensor) floatUnary(code opCode) *Tensor {
	needTensors(table[code].Name, "x", x)
	dt := floatResult(x.DType())
	if _, err := inferShapes(table[code], nil, []Shape{x.shape.with(dt)}); err != nil {
		throw(table[code].Name, []Shape{x.shape}, "%v", err)
	}
	return apply1(code, nil, x.Cast(dt))
}

// binary promotes x and y to their result type, broadcasts them and
// applies code.
func (x *Tensor) binary(code opCode, y *Tensor) *Tensor {
	needTensors(table[code].Name, "x,y", x, y)
	dt := mustResultType(table[code].Name, []*Tensor{x, y})
	if code == opMax || code == opMin {
		noOrder(table[code].Name, dt, x, y)
	}
	if dt == Bool {
		code = boolOp(table[code].Name, code, x, y)
	}
	return x.binaryAs(code, dt, y)
}

// binaryAs converts both operands to dt, broadcasts and applies code.
func (x *Tensor) binaryAs(code opCode, dt DType, y *Tensor) *Tensor {
	checkBinary(table[code].Name, code, x, y, dt, dt)
	x, y = broadcastPair(table[code].Name, x.Cast(dt), y.Cast(dt))
	return apply1(code, nil, x, y)
}

// rawBinary applies code to operands of one dtype without promotion (the
// op's own semantics: integer division for Div).
func (x *Tensor) rawBinary(code opCode, y *Tensor) *Tensor {
	needTensors(table[code].Name, "x,y", x, y)
	checkBinary(table[code].Name, code, x, y, x.DType(), y.DType())
	x, y = broadcastPair(table[code].Name, x, y)
	return apply1(code, nil, x, y)
}

// checkBinary checks, recording nothing, that binary op code takes x and y
// converted to xdt and ydt and broadcast: their shapes broadcast to a valid
// shape, and the op's shape rule (one element type of its class) accepts
// them. It panics with an *Error naming op and the operands' own shapes.
func checkBinary(op string, code opCode, x, y *Tensor, xdt, ydt DType) {
	needTensors(op, "x,y", x, y)
	in := []Shape{x.shape, y.shape}
	dims, ok := broadcastDims(x.Dims(), y.Dims())
	if !ok {
		throw(op, in, "shapes %v and %v do not broadcast", x.Dims(), y.Dims())
	}
	if err := checkDims(xdt, dims); err != nil {
		throw(op, in, "%v", err)
	}
	switch c := binaryClass[code]; {
	case xdt != ydt:
		throw(op, in, "element types differ (%s vs %s); use Cast", xdt, ydt)
	case !c.accepts(xdt):
		throw(op, in, "needs %s tensors, got %s", c, xdt)
	}
}

// broadcastPair broadcasts x and y to their common shape.
func broadcastPair(op string, x, y *Tensor) (*Tensor, *Tensor) {
	needTensors(op, "x,y", x, y)
	if sameDims(x.Dims(), y.Dims()) {
		return x, y
	}
	dims, ok := broadcastDims(x.Dims(), y.Dims())
	if !ok {
		throw(op, []Shape{x.shape, y.shape}, "shapes %v and %v do not broadcast", x.Dims(), y.Dims())
	}
	needDims(op, []Shape{x.shape, y.shape}, x.DType(), dims)
	return x.BroadcastTo(dims...), y.BroadcastTo(dims...)
}

// number returns the Go number v as a constant of dt filling x's shape
// (converted as PyTorch converts a Python scalar: integer types wrap; an
// integral value is an integer, so -0 is 0).
func (x *Tensor) number(dt DType, v float64) *Tensor {
	if numberType(v) == I64 {
		v += 0 // -0 + 0 = +0
	}
	if st := currentTrace(); st != nil {
		return st.splat(x.dev, dt, v, x.Dims())
	}
	return splatOn(x.dev, dt, v, x.Dims())
}

// scalarOp applies code to x and the Go number v in their result type.
func (x *Tensor) scalarOp(op string, code opCode, v float64) *Tensor {
	needTensors(op, "x", x)
	dt := mustResultType(op, []*Tensor{x}, v)
	if dt == Bool {
		code = boolOp(op, code, x)
	}
	checkScalar(op, code, x, dt)
	return x.Cast(dt).rawBinary(code, x.number(dt, v))
}

// checkScalar checks, recording nothing, that binary op code takes x
// converted to dt (and a number of dt).
func checkScalar(op string, code opCode, x *Tensor, dt DType) {
	needDims(op, []Shape{x.shape}, dt, x.Dims())
	if c := binaryClass[code]; !c.accepts(dt) {
		throw(op, []Shape{x.shape}, "needs %s tensors, got %s", c, dt)
	}
}

// boolOp is the op PyTorch applies to two bool operands: Add and Max are
// a logical or, Mul and Min a logical and; Sub is an error.
func boolOp(op string, code opCode, operands ...*Tensor) opCode {
	switch code {
	case opAdd, opMax, opClampMin:
		return opOr
	case opMul, opMin, opClampMax:
		return opAnd
	case opSub:
		throw(op, shapesOf(operands), "subtraction of bool tensors is not supported (use Xor or Not)")
	}
	return code
}

func (x *Tensor) Neg() *Tensor     { return x.unary(opNeg) }
func (x *Tensor) Abs() *Tensor     { return x.unary(opAbs) }
func (x *Tensor) Exp() *Tensor     { return x.floatUnary(opExp) }
func (x *Tensor) Expm1() *Tensor   { return x.floatUnary(opExpm1) }
func (x *Tensor) Log() *Tensor     { return x.floatUnary(opLog) }
func (x *Tensor) Log1p() *Tensor   { return x.floatUnary(opLog1p) }
func (x *Tensor) Sqrt() *Tensor    { return x.floatUnary(opSqrt) }
func (x *Tensor) Rsqrt() *Tensor   { return x.floatUnary(opRsqrt) }
func (x *Tensor) Tanh() *Tensor    { return x.floatUnary(opTanh) }
func (x *Tensor) Sigmoid() *Tensor { return x.floatUnary(opSigmoid) }
func (x *Tensor) Sin() *Tensor     { return x.floatUnary(opSin) }
func (x *Tensor) Cos() *Tensor     { return x.floatUnary(opCos) }
func (x *Tensor) Erf() *Tensor     { return x.floatUnary(opErf) }

// Sign is -1, 0 or 1 as x is negative, zero or positive; NaN gives 0
// (torch.sign) and a bool tensor is itself.
func (x *Tensor) Sign() *Tensor {
	if x != nil && x.DType() == Bool {
		return x
	}
	return x.unary(opSign)
}
func (x *Tensor) Not() *Tensor { return x.unary(opNot) }

// ReLU is max(x, 0) of a real tensor (complex numbers have no order).
func (x *Tensor) ReLU() *Tensor {
	if x != nil {
		noOrder("ReLU", x.DType(), x)
	}
	return x.unary(opReLU)
}

// Relu is ReLU under the name DESIGN.md's examples use.
//
// Deprecated: use ReLU (Go initialisms are capitals).
func (x *Tensor) Relu() *Tensor { return x.ReLU() }

// Floor, Ceil and Round of an integer tensor are the tensor itself.
func (x *Tensor) Floor() *Tensor { return x.rounding(opFloor) }
func (x *Tensor) Ceil() *Tensor  { return x.rounding(opCeil) }
func (x *Tensor) Round() *Tensor { return x.rounding(opRound) }

func (x *Tensor) rounding(code opCode) *Tensor {
	if x != nil && x.DType().IsInt() {
		return x
	}
	return x.unary(code)
}

// Detach returns x's values with no gradient (torch.Tensor.detach): Grad
// treats the result as a constant. It costs nothing in a program.
func (x *Tensor) Detach() *Tensor { return x.unary(opStopGradient) }

// IsFinite is true where x is neither infinite nor NaN (everywhere for
// integer and bool tensors).
func (x *Tensor) IsFinite() *Tensor {
	if x != nil && (x.DType().IsInt() || x.DType().IsBool()) {
		return FullOn(x.dev, Bool, 1, x.Dims()...)
	}
	return x.unary(opIsFinite)
}

// Square returns x*x (i64 for a bool tensor, as torch.square).
func (x *Tensor) Square() *Tensor {
	needTensors("Square", "x", x)
	if x.DType() == Bool {
		x = x.Cast(I64)
	}
	return x.Mul(x)
}

// Reciprocal returns 1/x (f32 for integer tensors).
func (x *Tensor) Reciprocal() *Tensor {
	needTensors("Reciprocal", "x", x)
	dt := floatResult(x.DType())
	checkScalar("Reciprocal", opDiv, x, dt)
	return x.number(dt, 1).rawBinary(opDiv, x.Cast(dt))
}

func (x *Tensor) Add(y *Tensor) *Tensor { return x.binary(opAdd, y) }

// Sub is x - y; bool operands are an error (as in PyTorch).
func (x *Tensor) Sub(y *Tensor) *Tensor {
	if x != nil && y != nil && (x.DType() == Bool || y.DType() == Bool) {
		throw("Sub", []Shape{x.shape, y.shape}, "subtraction of a bool tensor is not supported (use Xor or Not)")
	}
	return x.binary(opSub, y)
}
func (x *Tensor) Mul(y *Tensor) *Tensor { return x.binary(opMul, y) }

// Div is true division: integer and bool operands give f32 (torch.div).
func (x *Tensor) Div(y *Tensor) *Tensor {
	needTensors("Div", "x,y", x, y)
	return x.binaryAs(opDiv, floatResult(mustResultType("Div", []*Tensor{x, y})), y)
}

// Pow raises x to y; integer operands give integer powers (a negative
// exponent gives 0 unless the base is 1 or -1, as torch.pow).
func (x *Tensor) Pow(y *Tensor) *Tensor { return x.binary(opPow, y) }
func (x *Tensor) Max(y *Tensor) *Tensor { return x.binary(opMax, y) }
func (x *Tensor) Min(y *Tensor) *Tensor { return x.binary(opMin, y) }

// Rem is the remainder with the dividend's sign (torch.fmod). An integer
// remainder by zero is an error of the cut that computes it.
func (x *Tensor) Rem(y *Tensor) *Tensor {
	needTensors("Rem", "x,y", x, y)
	dt := mustResultType("Rem", []*Tensor{x, y})
	checkBinary("Rem", opRem, x, y, dt, dt)
	defer relabel("Rem", x, y)()
	if dt.IsInt() {
		y = checked(y.Cast(dt), y.Cast(dt).NeScalar(0), "Rem", "integer remainder by zero", x, y)
	}
	return x.binaryAs(opRem, dt, y)
}

// Atan2 is the angle of (y=x, x=other); integer operands give f32.
func (x *Tensor) Atan2(y *Tensor) *Tensor {
	needTensors("Atan2", "x,y", x, y)
	return x.binaryAs(opAtan2, floatResult(mustResultType("Atan2", []*Tensor{x, y})), y)
}
func (x *Tensor) And(y *Tensor) *Tensor { return x.binary(opAnd, y) }
func (x *Tensor) Or(y *Tensor) *Tensor  { return x.binary(opOr, y) }
func (x *Tensor) Xor(y *Tensor) *Tensor { return x.binary(opXor, y) }

func (x *Tensor) AddScalar(v float64) *Tensor { return x.scalarOp("AddScalar", opAdd, v) }

// SubScalar is x - v; a bool tensor is an error (as in PyTorch).
func (x *Tensor) SubScalar(v float64) *Tensor {
	if x != nil && x.DType() == Bool {
		throw("SubScalar", []Shape{x.shape}, "subtraction of a bool tensor is not supported (use Xor or Not)")
	}
	return x.scalarOp("SubScalar", opSub, v)
}
func (x *Tensor) MulScalar(v float64) *Tensor { return x.scalarOp("MulScalar", opMul, v) }

// MaxScalar is max(x, v) (torch.clamp_min): v must fit an integer result
// type, and a NaN v leaves x as it is.
func (x *Tensor) MaxScalar(v float64) *Tensor { return x.bound("MaxScalar", opClampMin, v) }

// MinScalar is min(x, v) (torch.clamp_max), as MaxScalar.
func (x *Tensor) MinScalar(v float64) *Tensor { return x.bound("MinScalar", opClampMax, v) }

func (x *Tensor) bound(op string, code opCode, v float64) *Tensor {
	needTensors(op, "x", x)
	dt := mustResultType(op, []*Tensor{x}, v)
	noOrder(op, dt, x)
	if v != v {
		return x.Cast(dt)
	}
	checkBound(op, x, dt, v)
	return x.scalarOp(op, code, v)
}

// checkBound: a clamp bound must fit an integer result type (PyTorch
// converts it with an overflow check).
func checkBound(op string, x *Tensor, dt DType, v float64) {
	if dt.IsInt() {
		if err := checkFill(dt, v); err != nil {
			throw(op, []Shape{x.shape}, "bound: %v", err)
		}
	}
}

// DivScalar is true division by v (f32 for integer tensors).
func (x *Tensor) DivScalar(v float64) *Tensor {
	needTensors("DivScalar", "x", x)
	dt := floatResult(mustResultType("DivScalar", []*Tensor{x}, v))
	checkScalar("DivScalar", opDiv, x, dt)
	return x.Cast(dt).rawBinary(opDiv, x.number(dt, v))
}

// PowScalar raises x to v. An integer tensor with an integral exponent
// stays integer, and a negative integral exponent is then an error (as
// torch.pow raises); a fractional exponent gives f32.
func (x *Tensor) PowScalar(v float64) *Tensor {
	needTensors("PowScalar", "x", x)
	dt := mustResultType("PowScalar", []*Tensor{x}, v)
	checkScalar("PowScalar", opPow, x, dt)
	if dt.IsInt() || dt == F16 || dt == BF16 {
		// PyTorch converts the exponent to an integer or half tensor's
		// type first (an f32 or f64 one takes any exponent).
		if err := checkFill(dt, v); err != nil {
			throw("PowScalar", []Shape{x.shape}, "exponent: %v", err)
		}
	}
	if dt.IsInt() && v < 0 {
		throw("PowScalar", []Shape{x.shape}, "integers to negative integer powers are not allowed (exponent %v)", v)
	}
	xc := x.Cast(dt)
	if dt.IsFloat() {
		// PyTorch's exponents with their own kernels (sqrt(-inf) is NaN
		// where pow(-inf, 0.5) is +inf, sqrt(-0) is -0).
		defer relabel("PowScalar", x)()
		switch v {
		case 0.5:
			return xc.Sqrt()
		case -0.5:
			return xc.Rsqrt()
		case 2:
			return xc.Mul(xc)
		case 3:
			return xc.Mul(xc).Mul(xc)
		case -1:
			return xc.Reciprocal()
		case -2:
			return xc.Mul(xc).Reciprocal()
		}
	}
	return xc.rawBinary(opPow, x.number(dt, v))
}

// compare promotes x and y to their result type and compares them.
// noOrder refuses an ordering op (maximum, minimum, <, ReLU) of complex
// numbers, which have no order: PyTorch refuses them ("maximum not
// implemented for complex tensors"), where StableHLO would compare them
// lexicographically.
func noOrder(op string, dt DType, ts ...*Tensor) {
	if dt.IsComplex() {
		throw(op, shapesOf(ts), "complex numbers have no order, got %s", dt)
	}
}

func (x *Tensor) compare(dir string, y *Tensor) *Tensor {
	needTensors("Compare", "x,y", x, y)
	dt := mustResultType("Compare", []*Tensor{x, y})
	if dir != "EQ" && dir != "NE" {
		noOrder("Compare", dt, x, y)
	}
	checkBinary("Compare", opCompare, x, y, dt, dt)
	x, y = broadcastPair("Compare", x.Cast(dt), y.Cast(dt))
	return apply1(opCompare, Attrs{{"dir", dir}}, x, y)
}

func (x *Tensor) compareScalar(op, dir string, v float64) *Tensor {
	needTensors(op, "x", x)
	dt := mustResultType(op, []*Tensor{x}, v)
	if dir != "EQ" && dir != "NE" {
		noOrder(op, dt, x)
	}
	checkScalar(op, opCompare, x, dt)
	a, b := broadcastPair(op, x.Cast(dt), x.number(dt, v))
	return apply1(opCompare, Attrs{{"dir", dir}}, a, b)
}

func (x *Tensor) Eq(y *Tensor) *Tensor { return x.compare("EQ", y) }
func (x *Tensor) Ne(y *Tensor) *Tensor { return x.compare("NE", y) }
func (x *Tensor) Lt(y *Tensor) *Tensor { return x.compare("LT", y) }
func (x *Tensor) Le(y *Tensor) *Tensor { return x.compare("LE", y) }
func (x *Tensor) Gt(y *Tensor) *Tensor { return x.compare("GT", y) }
func (x *Tensor) Ge(y *Tensor) *Tensor { return x.compare("GE", y) }

func (x *Tensor) EqScalar(v float64) *Tensor { return x.compareScalar("EqScalar", "EQ", v) }
func (x *Tensor) NeScalar(v float64) *Tensor { return x.compareScalar("NeScalar", "NE", v) }
func (x *Tensor) LtScalar(v float64) *Tensor { return x.compareScalar("LtScalar", "LT", v) }
func (x *Tensor) LeScalar(v float64) *Tensor { return x.compareScalar("LeScalar", "LE", v) }
func (x *Tensor) GtScalar(v float64) *Tensor { return x.compareScalar("GtScalar", "GT", v) }
func (x *Tensor) GeScalar(v float64) *Tensor { return x.compareScalar("GeScalar", "GE", v) }

// Where selects a where cond is true and b elsewhere (all three broadcast;
// a and b promote to their result type).
func Where(cond, a, b *Tensor) *Tensor {
	needTensors("Where", "cond,a,b", cond, a, b)
	dt := mustResultType("Where", []*Tensor{a, b})
	in := []Shape{cond.shape, a.shape, b.shape}
	ab, ok := broadcastDims(a.Dims(), b.Dims())
	if !ok {
		throw("Where", in, "shapes %v and %v do not broadcast", a.Dims(), b.Dims())
	}
	dims, ok := broadcastDims(cond.Dims(), ab)
	if !ok {
		throw("Where", []Shape{cond.shape, a.shape}, "condition shape %v does not broadcast with %v", cond.Dims(), ab)
	}
	needDims("Where", in, dt, dims)
	if _, err := inferShapes(table[opWhere], nil, []Shape{{cond.DType(), dims}, {dt, dims}, {dt, dims}}); err != nil {
		throw("Where", in, "%v", err)
	}
	a, b = broadcastPair("Where", a.Cast(dt), b.Cast(dt))
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

// Clamp limits x to [lo, hi] (promoting with the bounds as with scalars:
// an integer tensor clamped to fractional bounds is f32).
func (x *Tensor) Clamp(lo, hi float64) *Tensor {
	needTensors("Clamp", "x", x)
	dt := mustResultType("Clamp", []*Tensor{x}, lo, hi)
	if _, err := inferShapes(table[opClamp], nil, []Shape{x.shape.with(dt)}); err != nil {
		throw("Clamp", []Shape{x.shape}, "%v", err)
	}
	checkBound("Clamp", x, dt, lo)
	checkBound("Clamp", x, dt, hi)
	return apply1(opClamp, Attrs{{"lo", lo}, {"hi", hi}}, x.Cast(dt))
}
