package hlo

import (
	"fmt"
	"slices"
	"strings"
)

// Element kinds an op accepts, as the spec's "tensor of ... type" clauses.
type elemKinds uint8

const (
	kBool elemKinds = 1 << iota
	kSInt
	kUInt
	kFloat
	kComplex
	kQuant // per-tensor quantized tensor

	kInt      = kSInt | kUInt
	kAny      = kBool | kInt | kFloat | kComplex | kQuant
	kNumeric  = kInt | kFloat | kComplex | kQuant
	kFpCx     = kFloat | kComplex | kQuant
	kFpQ      = kFloat | kQuant
	kBoolInt  = kBool | kInt
	kSIntFpCx = kSInt | kFloat | kComplex | kQuant
)

func elemKindOf(t *TensorType) elemKinds {
	switch {
	case t.Quant != nil:
		return kQuant
	case t.DType.IsBool():
		return kBool
	case t.DType.IsSigned():
		return kSInt
	case t.DType.IsUnsigned():
		return kUInt
	case t.DType.IsFloat():
		return kFloat
	case t.DType.IsComplex():
		return kComplex
	}
	return 0
}

// String names the kinds as the spec does ("integer or floating-point").
func (k elemKinds) String() string {
	var names []string
	add := func(s string) { names = append(names, s) }
	if k&kBool != 0 {
		add("boolean")
	}
	switch {
	case k&kInt == kInt:
		add("integer")
	case k&kSInt != 0:
		add("signed integer")
	case k&kUInt != 0:
		add("unsigned integer")
	}
	if k&kFloat != 0 {
		add("floating-point")
	}
	if k&kComplex != 0 {
		add("complex")
	}
	s := strings.Join(names, ", ")
	if i := strings.LastIndex(s, ", "); i >= 0 {
		s = s[:i] + " or " + s[i+2:]
	}
	s = "a tensor of " + s + " type"
	if k&kQuant != 0 {
		s += " or a quantized tensor"
	}
	return s
}

// kindTensor returns operand i as a tensor whose element kind is allowed.
func (c *inferCtx) kindTensor(i int, allowed elemKinds) (*TensorType, error) {
	t, err := c.tensor(i)
	if err != nil {
		return nil, err
	}
	if elemKindOf(t)&allowed == 0 {
		return nil, c.errf("operand #%d has type %s, want %s", i, t, allowed)
	}
	return t, nil
}

// unaryRule: one operand of an allowed kind, result of the same type.
func unaryRule(allowed elemKinds) inferFn {
	return func(c *inferCtx) ([]Type, error) {
		if err := c.numOperands(1); err != nil {
			return nil, err
		}
		t, err := c.kindTensor(0, allowed)
		if err != nil {
			return nil, err
		}
		return []Type{t}, nil
	}
}

// partRule: abs, real and imag map complex<E> to E and keep other types.
func partRule(allowed elemKinds) inferFn {
	return func(c *inferCtx) ([]Type, error) {
		if err := c.numOperands(1); err != nil {
			return nil, err
		}
		t, err := c.kindTensor(0, allowed)
		if err != nil {
			return nil, err
		}
		if t.Quant == nil && t.DType.IsComplex() {
			return []Type{withElem(t, t.DType.ComplexPart())}, nil
		}
		return []Type{t}, nil
	}
}

// binaryOperands returns the first of two operands of one allowed type
// and their merged shape.
func (c *inferCtx) binaryOperands(allowed elemKinds) (*TensorType, []int64, error) {
	if err := c.numOperands(2); err != nil {
		return nil, nil, err
	}
	l, err := c.kindTensor(0, allowed)
	if err != nil {
		return nil, nil, err
	}
	r, err := c.kindTensor(1, allowed)
	if err != nil {
		return nil, nil, err
	}
	// Equal shapes merge to themselves (callers copy the dims they keep).
	dims, ok := l.Dims, slices.Equal(l.Dims, r.Dims)
	if !ok {
		dims, ok = mergeDims(l.Dims, r.Dims)
	}
	if !ok || !sameElem(l, r) {
		return nil, nil, c.errf("operand types %s and %s differ", l, r)
	}
	return l, dims, nil
}

// binaryRule: two operands of one allowed type, result of that type.
func binaryRule(allowed elemKinds) inferFn {
	return func(c *inferCtx) ([]Type, error) {
		l, dims, err := c.binaryOperands(allowed)
		if err != nil {
			return nil, err
		}
		if len(dims) > 0 && &dims[0] == &l.Dims[0] || len(dims) == 0 && len(l.Dims) == 0 {
			// Equal shapes: the result has the left operand's type, which
			// it shares (types are not edited in place; see seal.go).
			return c.one(l), nil
		}
		return c.one(withDims(l, dims)), nil
	}
}

func inferComplex(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(2); err != nil {
		return nil, err
	}
	l, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if l.Quant != nil || (l.DType != F32 && l.DType != F64) {
		return nil, c.errf("operand #0 has type %s, want a tensor of f32 or f64", l)
	}
	dims, ok := mergeDims(l.Dims, r.Dims)
	if !ok || l.DType != r.DType || r.Quant != nil {
		return nil, c.errf("operand types %s and %s differ", l, r)
	}
	return []Type{NewTensorType(ComplexOf(l.DType), dims...)}, nil
}

func inferIsFinite(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	t, err := c.kindTensor(0, kFpQ)
	if err != nil {
		return nil, err
	}
	return []Type{withElem(t, Bool)}, nil
}

// validCompareTypes lists the compare_type values each element kind allows.
func validCompareTypes(t *TensorType) []string {
	switch elemKindOf(t) {
	case kSInt:
		return []string{"SIGNED"}
	case kUInt, kBool:
		return []string{"UNSIGNED"}
	case kFloat:
		return []string{"FLOAT", "TOTALORDER"}
	case kComplex:
		return []string{"FLOAT"}
	}
	return nil
}

// DefaultCompareType is the compare_type implied by an element type
// (SIGNED, UNSIGNED or FLOAT).
func DefaultCompareType(dt DType) string {
	switch {
	case dt.IsSigned():
		return "SIGNED"
	case dt.IsUnsigned(), dt.IsBool():
		return "UNSIGNED"
	}
	return "FLOAT"
}

func inferCompare(c *inferCtx) ([]Type, error) {
	l, dims, err := c.binaryOperands(kAny)
	if err != nil {
		return nil, err
	}
	dir, err := c.enum("comparison_direction", "")
	if err != nil {
		return nil, err
	}
	switch dir {
	case "EQ", "NE", "GE", "GT", "LE", "LT":
	case "":
		return nil, c.errf("missing attribute comparison_direction")
	default:
		return nil, c.errf("comparison_direction %s is not one of EQ, NE, GE, GT, LE, LT", dir)
	}
	ct, err := c.enum("compare_type", "")
	if err != nil {
		return nil, err
	}
	if ct != "" && l.Quant == nil {
		if valid := validCompareTypes(l); !slices.Contains(valid, ct) {
			return nil, c.errf("compare_type %s is invalid for operands of type %s (want %s)", ct, l, strings.Join(valid, " or "))
		}
	}
	return []Type{NewTensorType(Bool, dims...)}, nil
}

func inferSelect(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, 3)
	if err != nil {
		return nil, err
	}
	p, t, f := ts[0], ts[1], ts[2]
	if p.DType != Bool || p.Quant != nil {
		return nil, c.errf("predicate has type %s, want a tensor of i1", p)
	}
	dims, ok := mergeDims(t.Dims, f.Dims)
	if !ok || !sameElem(t, f) {
		return nil, c.errf("on_true type %s and on_false type %s differ", t, f)
	}
	if p.Rank() != 0 {
		dims, ok = mergeDims(p.Dims, dims)
		if !ok {
			return nil, c.errf("predicate type %s is neither 0-d nor of the shape of %s", p, t)
		}
	}
	return []Type{withDims(t, dims)}, nil
}

func inferClamp(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(3); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, 3)
	if err != nil {
		return nil, err
	}
	lo, x, hi := ts[0], ts[1], ts[2]
	dims := x.Dims
	for _, b := range []struct {
		name string
		t    *TensorType
	}{{"min", lo}, {"max", hi}} {
		if !sameElem(b.t, x) {
			return nil, c.errf("%s type %s and operand type %s have different element types", b.name, b.t, x)
		}
		if b.t.Rank() == 0 {
			continue
		}
		d, ok := mergeDims(b.t.Dims, dims)
		if !ok {
			return nil, c.errf("%s type %s is neither 0-d nor of the shape of operand %s", b.name, b.t, x)
		}
		dims = d
	}
	return []Type{withDims(x, dims)}, nil
}

func inferConvert(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if !dimsCompatible(x.Dims, r.Dims) {
		return nil, c.errf("result type %s does not have the shape of operand %s", r, x)
	}
	return []Type{r}, nil
}

func inferBitcastConvert(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if err := checkBitcast(x, r); err != "" {
		return nil, c.errf("cannot bitcast %s to %s: %s", x, r, err)
	}
	return []Type{r}, nil
}

// storageDType is the element type whose bits a tensor holds.
func storageDType(t *TensorType) DType {
	if t.Quant != nil {
		return t.Quant.Storage
	}
	return t.DType
}

// checkBitcast applies bitcast_convert's shape rule; it returns the reason
// for a mismatch or "".
func checkBitcast(x, r *TensorType) string {
	if xc, rc := x.Quant == nil && x.DType.IsComplex(), r.Quant == nil && r.DType.IsComplex(); xc != rc {
		return "complex types convert only to complex types"
	}
	eb, rb := storageDType(x).Bits(), storageDType(r).Bits()
	switch {
	case eb == rb:
		if !dimsCompatible(x.Dims, r.Dims) {
			return "shapes differ"
		}
	case rb < eb:
		if r.Rank() != x.Rank()+1 || !dimsCompatible(x.Dims, r.Dims[:x.Rank()]) {
			return "result must have the operand's shape plus one trailing dimension"
		}
		if last := r.Dims[x.Rank()]; last >= 0 && last*int64(rb) != int64(eb) {
			return "trailing dimension times result bit width must equal operand bit width"
		}
	default:
		if x.Rank() == 0 || r.Rank() != x.Rank()-1 || !dimsCompatible(r.Dims, x.Dims[:r.Rank()]) {
			return "operand must have the result's shape plus one trailing dimension"
		}
		if last := x.Dims[r.Rank()]; last >= 0 && last*int64(eb) != int64(rb) {
			return "trailing operand dimension times operand bit width must equal result bit width"
		}
	}
	return ""
}

// BitcastResultType returns the type bitcast_convert gives x converted to
// dt (adding or removing a trailing dimension when bit widths differ).
func BitcastResultType(x *TensorType, dt DType) (*TensorType, error) {
	eb, rb := storageDType(x).Bits(), dt.Bits()
	switch {
	case eb == rb:
		return withElem(x, dt), nil
	case rb < eb && eb%rb == 0:
		return NewTensorType(dt, append(append([]int64{}, x.Dims...), int64(eb/rb))...), nil
	case rb > eb && x.Rank() > 0 && x.Dims[x.Rank()-1]*int64(eb) == int64(rb):
		return NewTensorType(dt, x.Dims[:x.Rank()-1]...), nil
	}
	return nil, fmt.Errorf("stablehlo.bitcast_convert: cannot bitcast %s to %s", x, dt)
}

func inferReducePrecision(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kFpQ)
	if err != nil {
		return nil, err
	}
	e, err := c.reqInt("exponent_bits")
	if err != nil {
		return nil, err
	}
	m, err := c.reqInt("mantissa_bits")
	if err != nil {
		return nil, err
	}
	if e < 1 {
		return nil, c.errf("exponent_bits = %d, want >= 1", e)
	}
	if m < 0 {
		return nil, c.errf("mantissa_bits = %d, want >= 0", m)
	}
	return []Type{x}, nil
}

func inferUniformQuantize(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kFloat|kQuant)
	if err != nil {
		return nil, err
	}
	r, err := c.givenTensor(0)
	if err != nil {
		return nil, err
	}
	if r.Quant == nil {
		return nil, c.errf("result type %s is not a quantized tensor", r)
	}
	if !dimsCompatible(x.Dims, r.Dims) {
		return nil, c.errf("result type %s does not have the shape of operand %s", r, x)
	}
	exp := x.DType
	if x.Quant != nil {
		exp = x.Quant.Expressed
	}
	if r.Quant.Expressed != exp {
		return nil, c.errf("result type %s expresses %s, operand %s needs %s", r, r.Quant.Expressed, x, exp)
	}
	return []Type{r}, nil
}

func inferUniformDequantize(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	x, err := c.kindTensor(0, kQuant)
	if err != nil {
		return nil, err
	}
	return []Type{NewTensorType(x.Quant.Expressed, x.Dims...)}, nil
}
