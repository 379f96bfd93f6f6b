package lazy

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// Type promotion as PyTorch's torch.result_type (RATIONALE.md: "Why
// PyTorch's type promotion?"). Operands fall into three tiers: tensors with
// dimensions, 0-d tensors, and Go numbers (Python scalars). Within each tier
// the types promote pairwise (promoteTypes); a tier only decides the result
// when its category (bool < integer < float < complex) is higher than the
// tiers above it, so a 0-d tensor or a number never widens a type within
// its category: i32[3] + i64[] is i32, f16[3] * 1e10 is f16, i32[3] * 2.7
// is f32 (the default float type).

// DefaultFloat is the type a Go number that is not integral gives an
// integer or bool tensor (PyTorch's default dtype).
const DefaultFloat = F32

// category orders element types as PyTorch's promotion does.
func category(dt DType) int {
	switch {
	case dt.IsBool():
		return 0
	case dt.IsInt():
		return 1
	case dt.IsFloat():
		return 2
	case dt.IsComplex():
		return 3
	}
	return -1
}

// promoteTypes is torch.promote_types: the smallest type both a and b
// convert to without losing their category. Unsigned types wider than 8
// bits (which PyTorch 1.x lacks) promote with signed ones to the next wider
// signed type; u64 with a signed type has none and is an error.
func promoteTypes(a, b DType) (DType, error) {
	if a == b {
		return a, nil
	}
	ca, cb := category(a), category(b)
	if ca < 0 || cb < 0 {
		return 0, fmt.Errorf("no type promotion between %s and %s; use Cast", a, b)
	}
	if ca < cb || ca == cb && a.Bits() < b.Bits() {
		a, b, ca, cb = b, a, cb, ca // a is the higher
	}
	switch {
	case cb == 0: // bool
		return a, nil
	case ca == 1: // two integer types
		if a.IsSigned() == b.IsSigned() {
			return a, nil // a is the wider
		}
		s, u := a, b
		if a.IsUnsigned() {
			s, u = b, a
		}
		if s.Bits() > u.Bits() {
			return s, nil
		}
		if w, ok := signedOfBits(2 * u.Bits()); ok {
			return w, nil
		}
		return 0, fmt.Errorf("no integer type holds both %s and %s; use Cast", a, b)
	case ca == 2 && cb == 1:
		return a, nil
	case ca == 2: // two floats
		if a.Bits() == b.Bits() { // f16 and bf16
			return F32, nil
		}
		return a, nil
	case ca == 3 && cb < 2:
		return a, nil
	case ca == 3 && cb == 2:
		if b.Bits() > a.ComplexPart().Bits() {
			return hlo.ComplexOf(b), nil
		}
		return a, nil
	}
	return a, nil // two complex types: a is the wider
}

func signedOfBits(bits int) (DType, bool) {
	switch bits {
	case 8:
		return I8, true
	case 16:
		return I16, true
	case 32:
		return I32, true
	case 64:
		return I64, true
	}
	return 0, false
}

// promoState accumulates the three tiers of torch.result_type.
type promoState struct {
	dim, zero, wrapped DType // 0: none yet
	err                error
}

func (s *promoState) add(tier *DType, dt DType) {
	if s.err != nil {
		return
	}
	if *tier == 0 {
		*tier = dt
		return
	}
	*tier, s.err = promoteTypes(*tier, dt)
}

// tensor adds a tensor operand (0-d tensors form their own tier).
func (s *promoState) tensor(t *Tensor) {
	if t.Rank() == 0 {
		s.add(&s.zero, t.DType())
	} else {
		s.add(&s.dim, t.DType())
	}
}

// number adds a Go number: integral values count as Python ints (i64),
// others (and infinities and NaN) as Python floats (the default float type).
func (s *promoState) number(v float64) { s.add(&s.wrapped, numberType(v)) }

func numberType(v float64) DType {
	if v == math.Trunc(v) && math.Abs(v) < 0x1p63 {
		return I64
	}
	return DefaultFloat
}

// combine is c10's combine_categories: higher's type wins unless lower's
// category is higher.
func combine(higher, lower DType) (DType, error) {
	switch {
	case higher == 0:
		return lower, nil
	case lower == 0:
		return higher, nil
	case higher.IsComplex():
		return higher, nil
	case lower.IsComplex():
		if higher.IsFloat() {
			return hlo.ComplexOf(higher), nil
		}
		return lower, nil
	case higher.IsFloat():
		return higher, nil
	case higher.IsBool() || lower.IsFloat():
		return promoteTypes(higher, lower)
	}
	return higher, nil
}

func (s *promoState) result() (DType, error) {
	if s.err != nil {
		return 0, s.err
	}
	low, err := combine(s.zero, s.wrapped)
	if err != nil {
		return 0, err
	}
	return combine(s.dim, low)
}

// resultType is torch.result_type of tensors ts and Go numbers vs.
func resultType(ts []*Tensor, vs ...float64) (DType, error) {
	var s promoState
	for _, t := range ts {
		s.tensor(t)
	}
	for _, v := range vs {
		s.number(v)
	}
	return s.result()
}

// mustResultType is resultType throwing an *Error naming op.
func mustResultType(op string, ts []*Tensor, vs ...float64) DType {
	for _, t := range ts {
		if t == nil {
			throw(op, shapesOf(ts), "nil operand")
		}
	}
	dt, err := resultType(ts, vs...)
	if err != nil {
		throw(op, shapesOf(ts), "%v", err)
	}
	return dt
}

// floatResult is the type of an op whose result is always floating point
// (true division, exp, sqrt...): integer and bool types become the default
// float type.
func floatResult(dt DType) DType {
	if dt.IsInt() || dt.IsBool() {
		return DefaultFloat
	}
	return dt
}

// scalarLiteral is v converted to dt as PyTorch converts a Python number
// that takes part in an op: integers wrap, fractions truncate toward zero,
// bool is v != 0.
func scalarLiteral(dt DType, v float64) *hlo.Literal {
	l := hlo.NewLiteral(dt)
	setScalar(l, dt, v)
	return l
}

// setScalar stores v converted as scalarLiteral does into the 0-d
// literal l of type dt.
func setScalar(l *hlo.Literal, dt DType, v float64) {
	switch {
	case dt.IsBool():
		l.SetInt(0, boolBit(v != 0))
	case dt.IsUnsigned() && v >= 0x1p63:
		l.SetBits(0, uint64(v))
	case dt.IsInt():
		l.SetInt(0, wrapInt64(v))
	default:
		l.SetFloat(0, v)
	}
}

// wrapInt64 is trunc(v) modulo 2^64 as an int64 (0 for NaN).
func wrapInt64(v float64) int64 {
	v = math.Trunc(v)
	switch {
	case v != v:
		return 0
	case v >= -0x1p63 && v < 0x1p63:
		return int64(v)
	}
	m := math.Mod(v, 0x1p64)
	if m < 0 {
		m += 0x1p64
	}
	if m >= 0x1p63 {
		return int64(uint64(m))
	}
	return int64(m)
}

func boolBit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// checkFill reports whether v fits dt as a fill value, as PyTorch's
// checked conversion of torch.full's value: integers take values in their
// range, truncated toward zero (unsigned types also the integers -max..-1,
// wrapping), floats any
// value up to their largest finite one, infinities and NaN; NaN fits no
// integer type; bool takes anything.
func checkFill(dt DType, v float64) error {
	switch {
	case dt.IsBool():
		return nil
	case dt.IsInt():
		lo, hi := intRange(dt)
		if dt.IsUnsigned() && numberType(v) == I64 {
			lo = -hi // an integer fill wraps (-1 is all ones); a fraction must be in range
		}
		if v != v || v < lo || v > hi {
			return fmt.Errorf("value %v cannot be converted to %s without overflow", v, dt)
		}
	case dt.IsFloat(), dt.IsComplex():
		ft := dt
		if dt.IsComplex() {
			ft = dt.ComplexPart()
		}
		if math.IsInf(v, 0) || v != v {
			return nil
		}
		if m := maxFinite(ft); math.Abs(v) > m {
			return fmt.Errorf("value %v cannot be converted to %s without overflow", v, dt)
		}
	}
	return nil
}

// intRange is the range of integer type dt as float64 (the bounds of
// 64-bit types are rounded to the float64 nearest, 2^63 and 2^64, which
// excludes them: they are the first values that do not fit).
func intRange(dt DType) (lo, hi float64) {
	b := dt.Bits()
	if dt.IsUnsigned() {
		hi = math.Ldexp(1, b) - 1
		if b == 64 {
			hi = math.Nextafter(0x1p64, 0)
		}
		return 0, hi
	}
	lo = -math.Ldexp(1, b-1)
	hi = math.Ldexp(1, b-1) - 1
	if b == 64 {
		hi = math.Nextafter(0x1p63, 0)
	}
	return lo, hi
}

// maxFinite is the largest finite value of float type dt.
func maxFinite(dt DType) float64 {
	switch dt {
	case F64:
		return math.MaxFloat64
	case F32:
		return math.MaxFloat32
	}
	// The bit pattern below +inf (f16, bf16).
	l := hlo.NewLiteral(dt)
	l.SetFloat(0, math.Inf(1))
	if !math.IsInf(l.Float(0), 1) {
		return math.MaxFloat64 // no infinity: no limit checked here
	}
	l.SetBits(0, l.Bits(0)-1)
	return l.Float(0)
}
