package lazy

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// Element-type classes accepted by elementwise ops.
type typeClass int

const (
	anyType    typeClass = iota
	numeric              // ints, floats, complex (not bool)
	floating             // floats and complex
	realFloat            // floats only
	integral             // bool and ints
	realNumber           // ints and floats (not bool, not complex)
)

func (c typeClass) accepts(dt DType) bool {
	switch c {
	case numeric:
		return !dt.IsBool()
	case floating:
		return dt.IsFloat() || dt.IsComplex()
	case realFloat:
		return dt.IsFloat()
	case integral:
		return dt.IsBool() || dt.IsInt()
	case realNumber:
		return dt.IsInt() || dt.IsFloat()
	}
	return true
}

func (c typeClass) String() string {
	return [...]string{"any", "numeric", "floating-point", "real floating-point", "boolean or integer", "real (integer or floating-point)"}[c]
}

func inferUnary(class typeClass) func([]Shape, Attrs) ([]Shape, error) {
	return func(in []Shape, _ Attrs) ([]Shape, error) {
		if !class.accepts(in[0].DType) {
			return nil, fmt.Errorf("needs a %s tensor, got %s", class, in[0].DType)
		}
		return in[:1:1], nil // the operand's shape (rules return shapes that alias their operands')
	}
}

func inferBinary(class typeClass) func([]Shape, Attrs) ([]Shape, error) {
	return func(in []Shape, _ Attrs) ([]Shape, error) {
		if !in[0].Equal(in[1]) {
			if in[0].DType != in[1].DType {
				return nil, fmt.Errorf("element types differ (%s vs %s); use Cast", in[0].DType, in[1].DType)
			}
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", in[0].Dims, in[1].Dims)
		}
		if !class.accepts(in[0].DType) {
			return nil, fmt.Errorf("needs %s tensors, got %s", class, in[0].DType)
		}
		return in[:1:1], nil
	}
}

// binaryClass is each binary op's operand class (anyType for the rest):
// what inferBinary checks of two operands of one shape and dtype.
var binaryClass [numOps]typeClass

type unaryRow struct {
	code  opCode
	name  string
	class typeClass
	lower func(s *hlo.Scope, x *hlo.Value) *hlo.Value
	vjp   func(x, y, dy *Tensor) *Tensor // nil: NoGrad
}

type binaryRow struct {
	code  opCode
	name  string
	class typeClass
	lower func(s *hlo.Scope, x, y *hlo.Value) *hlo.Value
	vjp   func(a, b, y, dy *Tensor) (*Tensor, *Tensor) // nil: NoGrad
}

func init() {
	unary := []unaryRow{
		{opNeg, "Neg", numeric, (*hlo.Scope).Neg, func(x, y, dy *Tensor) *Tensor { return dy.Neg() }},
		{opAbs, "Abs", numeric, lowerAbs, func(x, y, dy *Tensor) *Tensor {
			// Complex: |z| is real, its gradient dy * z/|z| (0 at 0).
			return dy.Cast(x.DType()).Mul(x.Sign())
		}},
		{opExp, "Exp", floating, (*hlo.Scope).Exp, func(x, y, dy *Tensor) *Tensor { return dy.Mul(y) }},
		{opExpm1, "Expm1", floating, (*hlo.Scope).Expm1, func(x, y, dy *Tensor) *Tensor { return dy.Mul(y.AddScalar(1)) }},
		{opLog, "Log", floating, (*hlo.Scope).Log, func(x, y, dy *Tensor) *Tensor { return dy.Div(x) }},
		{opLog1p, "Log1p", floating, (*hlo.Scope).Log1p, func(x, y, dy *Tensor) *Tensor { return dy.Div(x.AddScalar(1)) }},
		{opSqrt, "Sqrt", floating, (*hlo.Scope).Sqrt, func(x, y, dy *Tensor) *Tensor { return dy.Div(y.MulScalar(2)) }},
		{opRsqrt, "Rsqrt", floating, (*hlo.Scope).Rsqrt, func(x, y, dy *Tensor) *Tensor { return dy.Mul(y.Div(x)).MulScalar(-0.5) }},
		{opTanh, "Tanh", floating, (*hlo.Scope).Tanh, func(x, y, dy *Tensor) *Tensor { return dy.Mul(OnesLike(y).Sub(y.Mul(y))) }},
		{opSigmoid, "Sigmoid", floating, (*hlo.Scope).Logistic, func(x, y, dy *Tensor) *Tensor { return dy.Mul(y.Mul(OnesLike(y).Sub(y))) }},
		{opSin, "Sin", floating, (*hlo.Scope).Sin, func(x, y, dy *Tensor) *Tensor { return dy.Mul(x.Cos()) }},
		{opCos, "Cos", floating, (*hlo.Scope).Cos, func(x, y, dy *Tensor) *Tensor { return dy.Mul(x.Sin()).Neg() }},
		{opFloor, "Floor", realFloat, (*hlo.Scope).Floor, nil},
		{opCeil, "Ceil", realFloat, (*hlo.Scope).Ceil, nil},
		{opRound, "Round", realFloat, (*hlo.Scope).RoundNearestEven, nil},
		{opSign, "Sign", numeric, lowerSign, nil},
		{opNot, "Not", integral, (*hlo.Scope).Not, nil},
		{opReLU, "ReLU", numeric, lowerReLU, func(x, y, dy *Tensor) *Tensor {
			// Zero where x <= 0: NaN passes dy (PyTorch's threshold_backward).
			return Where(x.LeScalar(0), ZerosLike(dy), dy)
		}},
		{opErf, "Erf", realFloat, lowerErf, func(x, y, dy *Tensor) *Tensor {
			return dy.Mul(x.Mul(x).Neg().Exp().MulScalar(2 / math.Sqrt(math.Pi)))
		}},
		{opIsFinite, "IsFinite", realFloat, (*hlo.Scope).IsFinite, nil},
	}
	for _, r := range unary {
		r := r
		d := &OpDef{Name: r.name, Infer: inferUnary(r.class), NoGrad: r.vjp == nil}
		d.Lower = func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(r.lower(lc.S, in[0]))
		}
		if r.code == opAbs {
			d.Infer = func(in []Shape, a Attrs) ([]Shape, error) {
				if in[0].DType.IsBool() {
					return nil, fmt.Errorf("needs a numeric tensor, got %s", in[0].DType)
				}
				if in[0].DType.IsComplex() {
					return []Shape{in[0].with(in[0].DType.ComplexPart())}, nil
				}
				return []Shape{in[0]}, nil
			}
		}
		if r.code == opIsFinite {
			d.Infer = func(in []Shape, a Attrs) ([]Shape, error) {
				if !in[0].DType.IsFloat() {
					return nil, fmt.Errorf("needs a floating-point tensor, got %s", in[0].DType)
				}
				return []Shape{in[0].with(Bool)}, nil
			}
		}
		if r.vjp != nil {
			d.VJP = func(x, y, dy []*Tensor, a Attrs) []*Tensor {
				return []*Tensor{r.vjp(x[0], y[0], dy[0])}
			}
		}
		define(r.code, d)
	}

	binary := []binaryRow{
		{opAdd, "Add", numeric, (*hlo.Scope).Add, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) { return dy, dy }},
		{opSub, "Sub", numeric, (*hlo.Scope).Sub, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) { return dy, dy.Neg() }},
		{opMul, "Mul", numeric, (*hlo.Scope).Mul, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) { return dy.Mul(b), dy.Mul(a) }},
		{opDiv, "Div", numeric, (*hlo.Scope).Div, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) {
			da := dy.Div(b)
			return da, da.Mul(y).Neg()
		}},
		{opPow, "Pow", numeric, (*hlo.Scope).Pow, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) {
			// d/da a^b = b a^(b-1), taken as 0 where b == 0 (0^-1 would
			// make it NaN at a == 0), as PyTorch.
			da := dy.Mul(b).Mul(a.Pow(b.SubScalar(1)))
			da = Where(b.EqScalar(0), ZerosLike(da), da)
			// d/db a^b = a^b log a, taken as 0 where a == 0 and b >= 0 (the
			// limit), as PyTorch.
			db := Where(a.EqScalar(0).And(b.GeScalar(0)), ZerosLike(a), y.Mul(a.Log()))
			return da, dy.Mul(db)
		}},
		{opMax, "Max", numeric, (*hlo.Scope).Max, tieVJP("GT")},
		{opMin, "Min", numeric, (*hlo.Scope).Min, tieVJP("LT")},
		// max(x, bound) and min(x, bound) (torch.clamp_min, clamp_max):
		// Max and Min whose gradient goes to x wherever x is not beyond
		// the bound, ties included.
		{opClampMin, "ClampMin", numeric, (*hlo.Scope).Max, boundVJP("GE")},
		{opClampMax, "ClampMax", numeric, (*hlo.Scope).Min, boundVJP("LE")},
		{opRem, "Rem", realNumber, (*hlo.Scope).Rem, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) {
			// a - trunc(a/b)*b
			q := a.Div(b)
			trunc := Where(q.GeScalar(0), q.Floor(), q.Ceil())
			return dy, dy.Mul(trunc).Neg()
		}},
		{opAtan2, "Atan2", realFloat, (*hlo.Scope).Atan2, func(a, b, y, dy *Tensor) (*Tensor, *Tensor) {
			den := a.Mul(a).Add(b.Mul(b))
			return dy.Mul(b).Div(den), dy.Mul(a).Div(den).Neg()
		}},
		{opAnd, "And", integral, (*hlo.Scope).And, nil},
		{opOr, "Or", integral, (*hlo.Scope).Or, nil},
		{opXor, "Xor", integral, (*hlo.Scope).Xor, nil},
	}
	for _, r := range binary {
		r := r
		binaryClass[r.code] = r.class
		d := &OpDef{Name: r.name, Infer: inferBinary(r.class), NoGrad: r.vjp == nil}
		d.Lower = func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(r.lower(lc.S, in[0], in[1]))
		}
		if r.vjp != nil {
			d.VJP = func(x, y, dy []*Tensor, a Attrs) []*Tensor {
				ga, gb := r.vjp(x[0], x[1], y[0], dy[0])
				return []*Tensor{ga, gb}
			}
		}
		define(r.code, d)
	}

	define(opCompare, &OpDef{
		Name: "Compare",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if _, err := inferBinary(anyType)(in, a); err != nil {
				return nil, err
			}
			switch a.Str("dir") {
			case "EQ", "NE", "LT", "LE", "GT", "GE":
			default:
				return nil, fmt.Errorf("unknown comparison %q", a.Str("dir"))
			}
			return []Shape{in[0].with(Bool)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Compare(hlo.CompareDir(n.attrs.Str("dir")), in[0], in[1]))
		},
		NoGrad: true,
	})
	define(opWhere, &OpDef{
		Name: "Where",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if in[0].DType != Bool {
				return nil, fmt.Errorf("condition must be bool, got %s", in[0].DType)
			}
			if in[1].DType != in[2].DType {
				return nil, fmt.Errorf("branches have different element types (%s vs %s); use Cast", in[1].DType, in[2].DType)
			}
			if !sameDims(in[0].Dims, in[1].Dims) || !in[1].Equal(in[2]) {
				return nil, fmt.Errorf("condition and branches must have one shape")
			}
			return []Shape{in[1]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Select(in[0], in[1], in[2]))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			z := ZerosLike(dy[0])
			return []*Tensor{nil, Where(x[0], dy[0], z), Where(x[0], z, dy[0])}
		},
	})
	define(opCast, &OpDef{
		Name: "Cast",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			dt := a.DType("dtype")
			if !dt.Valid() {
				return nil, fmt.Errorf("invalid target dtype")
			}
			return []Shape{in[0].with(dt)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Convert(in[0], n.attrs.DType("dtype")))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			if !x[0].DType().IsFloat() || !y[0].DType().IsFloat() {
				return []*Tensor{nil}
			}
			return []*Tensor{dy[0].Cast(x[0].DType())}
		},
	})
	define(opClamp, &OpDef{
		Name: "Clamp",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if !numeric.accepts(in[0].DType) || in[0].DType.IsComplex() {
				return nil, fmt.Errorf("needs a real numeric tensor, got %s", in[0].DType)
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			t := tensorType(in[0])
			lo := lc.splat(t, n.attrs.Float("lo"))
			hi := lc.splat(t, n.attrs.Float("hi"))
			return single(lc.S.Clamp(lo, in[0], hi))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			in := x[0].GeScalar(a.Float("lo")).And(x[0].LeScalar(a.Float("hi")))
			return []*Tensor{Where(in, dy[0], ZerosLike(dy[0]))}
		},
	})
}

// tieVJP is the gradient of maximum (dir GT) or minimum (LT): the operand
// that loses takes 0, a tie gives each operand half, and the rest dy, so
// a NaN operand (neither wins) passes dy to both (as PyTorch).
func tieVJP(dir string) func(a, b, y, dy *Tensor) (*Tensor, *Tensor) {
	return func(a, b, y, dy *Tensor) (*Tensor, *Tensor) {
		z := ZerosLike(dy)
		g := Where(a.Eq(b), dy.MulScalar(0.5), dy)
		aWins := a.compare(dir, b)
		bWins := b.compare(dir, a)
		return Where(bWins, z, g), Where(aWins, z, g)
	}
}

// boundVJP is the gradient of clamp_min (dir GE) or clamp_max (LE): dy
// where x is on the kept side of the bound b or on it (0 where x is NaN),
// and none for the bound (a number of the API, as PyTorch's scalar).
func boundVJP(dir string) func(x, b, y, dy *Tensor) (*Tensor, *Tensor) {
	return func(x, b, y, dy *Tensor) (*Tensor, *Tensor) {
		return Where(x.compare(dir, b), dy, ZerosLike(dy)), nil
	}
}

// lowerAbs: StableHLO abs takes no unsigned integers, whose |x| is x.
func lowerAbs(s *hlo.Scope, x *hlo.Value) *hlo.Value {
	if tensorType(x).DType.IsUnsigned() {
		return x
	}
	return s.Abs(x)
}

// lowerSign: StableHLO sign takes no unsigned integers: theirs is x != 0.
// Real floats follow torch.sign: (x > 0) - (x < 0), so NaN and -0 give 0.
func lowerSign(s *hlo.Scope, x *hlo.Value) *hlo.Value {
	t := tensorType(x)
	lc := &LowerCtx{S: s}
	switch {
	case t.DType.IsUnsigned():
		return s.Select(s.Compare(hlo.CmpNE, x, lc.splat(t, 0)), lc.splat(t, 1), lc.splat(t, 0))
	case t.DType.IsFloat():
		zero, one := lc.splat(t, 0), lc.splat(t, 1)
		pos := s.Select(s.Compare(hlo.CmpGT, x, zero), one, zero)
		neg := s.Select(s.Compare(hlo.CmpLT, x, zero), one, zero)
		return s.Sub(pos, neg)
	}
	return s.Sign(x)
}

func lowerReLU(s *hlo.Scope, x *hlo.Value) *hlo.Value {
	t := tensorType(x)
	lc := &LowerCtx{S: s}
	return s.Max(x, lc.splat(t, 0))
}

// lowerErf lowers erf with the rational approximation XLA uses for f32
// (|error| < 1e-7 relative). That is all f32 can hold, but not f64: f64
// lowers to chlo.erf (as JAX emits it), which every PJRT compiler and the
// embedded executor evaluate to f64 accuracy. f16 and bf16 are computed in
// f32 and rounded once.
func lowerErf(s *hlo.Scope, x *hlo.Value) *hlo.Value {
	t := tensorType(x)
	switch t.DType {
	case F64:
		return s.Op("chlo.erf", []*hlo.Value{x}, nil, t)[0]
	case F16, BF16:
		return s.Convert(lowerErf(s, s.Convert(x, F32)), t.DType)
	}
	lc := &LowerCtx{S: s}
	c := func(v float64) *hlo.Value { return lc.splat(t, v) }
	// erf(x) = x * P(x^2) / Q(x^2) on [-4, 4], clamped outside.
	xc := s.Clamp(c(-4), x, c(4))
	x2 := s.Mul(xc, xc)
	alpha := []float64{-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
		-5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02}
	beta := []float64{-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
		-7.37332916720468e-03, -1.42647390514189e-02}
	p := c(alpha[0])
	for _, a := range alpha[1:] {
		p = s.Add(s.Mul(p, x2), c(a))
	}
	q := c(beta[0])
	for _, b := range beta[1:] {
		q = s.Add(s.Mul(q, x2), c(b))
	}
	return s.Div(s.Mul(xc, p), q)
}
