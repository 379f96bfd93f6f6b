package hlo

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// InferResultTypes returns the result types of the op called op (fully
// qualified, "stablehlo.add") applied to operands of the given types with
// the given attributes and regions, checking the constraints of the
// StableHLO spec. Dynamic dimensions propagate.
//
// Some ops cannot derive their result types from operands and attributes
// (reshape, convert, iota, custom_call, dynamic_*, ...); for them
// InferResultTypes fails with "result type required", and
// InferResultTypesFrom must be given the declared types.
func InferResultTypes(op string, operands []Type, attrs []NamedAttr, regions []*Region) ([]Type, error) {
	return InferResultTypesFrom(op, operands, attrs, regions, nil)
}

// InferResultTypesFrom is InferResultTypes with the result types an op
// declares. Ops whose results cannot be inferred take them from declared
// after checking every constraint that can be checked (element counts,
// shapes tied to attributes); other ops ignore declared, and the caller
// compares the inferred types with the declared ones (TypesCompatible).
// declared may be nil.
func InferResultTypesFrom(op string, operands []Type, attrs []NamedAttr, regions []*Region, declared []Type) ([]Type, error) {
	return inferWith(&inferCtx{}, op, operands, attrs, regions, declared)
}

// inferWith is InferResultTypesFrom on a context the caller reuses (the
// builder and the verifier infer once per op; nothing keeps c after the
// call returns).
func inferWith(c *inferCtx, op string, operands []Type, attrs []NamedAttr, regions []*Region, declared []Type) ([]Type, error) {
	rule, ok := c.rules.lookup(op)
	if !ok {
		return nil, fmt.Errorf("%s: unknown op", op)
	}
	// Reset the per-op fields (not the rule cache).
	c.op, c.operands, c.attrs, c.regions, c.given, c.res = op, operands, attrs, regions, declared, [1]Type{}
	for i, t := range operands {
		if t == nil {
			return nil, c.errf("operand #%d has no type", i)
		}
	}
	ts, err := rule(c)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		if err := checkInferred(t); err != nil {
			return nil, c.errf("result #%d: %v", i, err)
		}
	}
	return ts, nil
}

// checkInferred rejects a result type whose dimension arithmetic
// overflowed (a size below DynamicDim) or whose size overflows an int64.
func checkInferred(t Type) error {
	switch t := t.(type) {
	case *TensorType:
		for i, d := range t.Dims {
			if d < DynamicDim {
				return fmt.Errorf("dimension %d of the result overflows int64", i)
			}
		}
		return CheckSize(t.DType, t.Dims)
	case *TupleType:
		for _, e := range t.Elems {
			if err := checkInferred(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// HasInferenceRule reports whether InferResultTypes knows op.
func HasInferenceRule(op string) bool {
	_, ok := inferRules[op]
	return ok
}

type inferFn func(c *inferCtx) ([]Type, error)

// inferRules maps full op names to their rules: the Infer fields of the op
// table's rows (hlo/optable), registered by ops_infer_gen.go.
var inferRules = map[string]inferFn{}

func addRules(m map[string]inferFn) {
	for k, v := range m {
		inferRules[k] = v
	}
}

// inferCtx is one inference request.
type inferCtx struct {
	op       string
	operands []Type
	attrs    []NamedAttr
	regions  []*Region
	given    []Type // declared result types, may be nil
	res      [1]Type
	rules    ruleCache // kept across uses
}

// ruleCache holds the rules a reused context found last, by the address
// and length of the op name: a builder emits the same few ops over and
// over, their names the same constant strings, and a name with the
// address and length of another is that name (no hashing).
type ruleCache [8]struct {
	name *byte
	n    int
	rule inferFn
}

func (rc *ruleCache) lookup(op string) (inferFn, bool) {
	p := unsafe.StringData(op)
	e := &rc[(uintptr(unsafe.Pointer(p))>>3^uintptr(len(op)))%uintptr(len(rc))]
	if e.rule != nil && e.name == p && e.n == len(op) {
		return e.rule, true
	}
	rule, ok := inferRules[op]
	if ok {
		e.name, e.n, e.rule = p, len(op), rule
	}
	return rule, ok
}

// one returns the result list [t], held by c: a reused context (see
// inferWith) overwrites it on its next use.
func (c *inferCtx) one(t Type) []Type {
	c.res[0] = t
	return c.res[:]
}

func (c *inferCtx) errf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", c.op, fmt.Sprintf(format, args...))
}

func (c *inferCtx) operandTypes() string { return typeList(c.operands) }

// typeList prints types separated by ", ".
func typeList(ts []Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if t == nil {
			parts[i] = "<nil>"
		} else {
			parts[i] = t.String()
		}
	}
	return strings.Join(parts, ", ")
}

// fmtInts prints [1, 2, 3].
func fmtInts(xs []int64) string {
	var b strings.Builder
	writeInts(&b, xs)
	return b.String()
}

func fmtDim(d int64) string {
	if d < 0 {
		return "?"
	}
	return strconv.FormatInt(d, 10)
}

func (c *inferCtx) numOperands(n int) error {
	if len(c.operands) != n {
		return c.errf("expected %d operands, got %d (%s)", n, len(c.operands), c.operandTypes())
	}
	return nil
}

func (c *inferCtx) minOperands(n int) error {
	if len(c.operands) < n {
		return c.errf("expected at least %d operands, got %d (%s)", n, len(c.operands), c.operandTypes())
	}
	return nil
}

func (c *inferCtx) numRegions(n int) error {
	if len(c.regions) != n {
		return c.errf("expected %d regions, got %d", n, len(c.regions))
	}
	return nil
}

// tensor returns operand i as a tensor type.
func (c *inferCtx) tensor(i int) (*TensorType, error) {
	t, ok := c.operands[i].(*TensorType)
	if !ok {
		return nil, c.errf("operand #%d has type %s, want a tensor", i, c.operands[i])
	}
	return t, nil
}

// tensors returns operands [from, to) as tensor types.
func (c *inferCtx) tensors(from, to int) ([]*TensorType, error) {
	out := make([]*TensorType, 0, to-from)
	for i := from; i < to; i++ {
		t, err := c.tensor(i)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// givenType returns declared result i or nil.
func (c *inferCtx) givenType(i int) Type {
	if i < len(c.given) {
		return c.given[i]
	}
	return nil
}

// givenTensor returns declared result i, which the op needs because its
// type cannot be inferred.
func (c *inferCtx) givenTensor(i int) (*TensorType, error) {
	g := c.givenType(i)
	if g == nil {
		return nil, c.errf("result type required (it cannot be inferred from operands %s)", c.operandTypes())
	}
	t, ok := g.(*TensorType)
	if !ok {
		return nil, c.errf("result #%d has type %s, want a tensor", i, g)
	}
	return t, nil
}

func (c *inferCtx) attr(name string) Attr { return LookupAttr(c.attrs, name) }

// ints reads an optional integer-array attribute.
func (c *inferCtx) ints(name string) ([]int64, bool, error) {
	a := c.attr(name)
	if a == nil {
		return nil, false, nil
	}
	xs, ok := AttrInts(a)
	if !ok {
		return nil, true, c.errf("attribute %s = %s is not an integer array", name, AttrString(a))
	}
	return xs, true, nil
}

// reqInts reads a required integer-array attribute.
func (c *inferCtx) reqInts(name string) ([]int64, error) {
	xs, ok, err := c.ints(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.errf("missing attribute %s", name)
	}
	return xs, nil
}

// intsOr reads an optional integer-array attribute of n entries, def
// filled when absent.
func (c *inferCtx) intsOr(name string, n int, def int64) ([]int64, error) {
	xs, ok, err := c.ints(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		xs = make([]int64, n)
		for i := range xs {
			xs[i] = def
		}
	}
	return xs, nil
}

// int reads an integer attribute, def when absent.
func (c *inferCtx) int(name string, def int64) (int64, error) {
	a := c.attr(name)
	if a == nil {
		return def, nil
	}
	v, ok := AttrInt(a)
	if !ok {
		return 0, c.errf("attribute %s = %s is not an integer", name, AttrString(a))
	}
	return v, nil
}

// reqInt reads a required integer attribute.
func (c *inferCtx) reqInt(name string) (int64, error) {
	if c.attr(name) == nil {
		return 0, c.errf("missing attribute %s", name)
	}
	return c.int(name, 0)
}

// flag reads a boolean attribute: BoolAttr, or a UnitAttr meaning true.
func (c *inferCtx) flag(name string) (bool, error) {
	switch a := c.attr(name).(type) {
	case nil:
		return false, nil
	case BoolAttr:
		return bool(a), nil
	case UnitAttr:
		return true, nil
	default:
		return false, c.errf("attribute %s = %s is not a boolean", name, AttrString(a))
	}
}

// enum reads an enum attribute (EnumAttr or string), def when absent.
func (c *inferCtx) enum(name, def string) (string, error) {
	a := c.attr(name)
	if a == nil {
		return def, nil
	}
	v, ok := AttrEnum(a)
	if !ok {
		return "", c.errf("attribute %s = %s is not an enum", name, AttrString(a))
	}
	return v, nil
}

// pairs reads an optional [n, 2] padding-like attribute as low/high pairs.
func (c *inferCtx) pairs(name string, n int) ([][2]int64, error) {
	a := c.attr(name)
	out := make([][2]int64, n)
	if a == nil {
		return out, nil
	}
	xs, ok := AttrInts(a)
	if !ok {
		return nil, c.errf("attribute %s = %s is not an integer array", name, AttrString(a))
	}
	if d, ok := a.(*DenseElementsAttr); ok && len(xs) > 0 {
		if len(d.Type.Dims) != 2 || d.Type.Dims[1] != 2 {
			return nil, c.errf("attribute %s has type %s, want tensor<%dx2xi64>", name, d.Type, n)
		}
	}
	if len(xs) != 2*n {
		return nil, c.errf("attribute %s has %d values, want %d (shape [%d, 2])", name, len(xs), 2*n, n)
	}
	for i := range out {
		out[i] = [2]int64{xs[2*i], xs[2*i+1]}
	}
	return out, nil
}

// tensorsOf converts tensor types to a []Type.
func tensorsOf(ts ...*TensorType) []Type {
	out := make([]Type, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

// withDims returns t's element type (and quantization) with new dims.
func withDims(t *TensorType, dims []int64) *TensorType {
	return newTensorType(t.DType, dims, t.Quant)
}

// withElem returns a tensor of t's dims with element type dt.
func withElem(t *TensorType, dt DType) *TensorType {
	return NewTensorType(dt, t.Dims...)
}

// scalarOf returns the 0-d tensor of t's element type.
func scalarOf(t *TensorType) *TensorType {
	return newTensorType(t.DType, nil, t.Quant)
}

// mergeDim unifies two dimension sizes: a dynamic one yields to a static
// one; two different static sizes do not unify.
func mergeDim(a, b int64) (int64, bool) {
	switch {
	case a < 0:
		return b, true
	case b < 0:
		return a, true
	case a == b:
		return a, true
	}
	return 0, false
}

// mergeDims unifies two shapes dimension by dimension.
func mergeDims(a, b []int64) ([]int64, bool) {
	if len(a) != len(b) {
		return nil, false
	}
	out := make([]int64, len(a))
	for i := range a {
		d, ok := mergeDim(a[i], b[i])
		if !ok {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}

// dimsCompatible reports whether two shapes can describe the same tensor.
func dimsCompatible(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if _, ok := mergeDim(a[i], b[i]); !ok {
			return false
		}
	}
	return true
}

// sameElem compares element types; quantized element types are compared by
// shape only (the caller checks shapes), as the verifier does not model
// quantization parameters.
func sameElem(a, b *TensorType) bool {
	if a.Quant != nil || b.Quant != nil {
		return true
	}
	return a.DType == b.DType
}

// TypesCompatible reports whether a value of type a may be used where type b
// is expected: same structure, same element types (quantized element types
// are not compared), and dimension sizes equal or one of them dynamic.
func TypesCompatible(a, b Type) bool {
	switch a := a.(type) {
	case *TensorType:
		b, ok := b.(*TensorType)
		return ok && sameElem(a, b) && dimsCompatible(a.Dims, b.Dims)
	case *TupleType:
		b, ok := b.(*TupleType)
		if !ok || len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !TypesCompatible(a.Elems[i], b.Elems[i]) {
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
	}
	return false
}

// typesCompatibleList compares two type lists with TypesCompatible.
func typesCompatibleList(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !TypesCompatible(a[i], b[i]) {
			return false
		}
	}
	return true
}

// checkAxes checks that every entry of dims is an axis of a rank-r tensor
// and, when unique, that none repeats.
func (c *inferCtx) checkAxes(what string, dims []int64, rank int, unique bool) error {
	// seen marks the axes met (in range, so a bit each up to rank 64;
	// a map above).
	var seen uint64
	var seenMap map[int64]bool
	if unique && rank > 64 {
		seenMap = make(map[int64]bool, len(dims))
	}
	for _, d := range dims {
		if d < 0 || d >= int64(rank) {
			return c.errf("%s %s: %d is out of range [0, %d)", what, fmtInts(dims), d, rank)
		}
		if !unique {
			continue
		}
		if seenMap != nil {
			if seenMap[d] {
				return c.errf("%s %s: %d repeats", what, fmtInts(dims), d)
			}
			seenMap[d] = true
			continue
		}
		if seen&(1<<d) != 0 {
			return c.errf("%s %s: %d repeats", what, fmtInts(dims), d)
		}
		seen |= 1 << d
	}
	return nil
}

// checkSorted checks that dims is sorted ascending.
func (c *inferCtx) checkSorted(what string, dims []int64) error {
	for i := 1; i < len(dims); i++ {
		if dims[i] < dims[i-1] {
			return c.errf("%s %s is not sorted", what, fmtInts(dims))
		}
	}
	return nil
}

// isPromotable is the spec's is_promotable on element types: same kind and
// no narrower.
func isPromotable(x, y *TensorType) bool {
	if x.Quant != nil || y.Quant != nil {
		return x.Quant != nil && y.Quant != nil && x.Quant.Expressed == y.Quant.Expressed &&
			x.Quant.Storage.Bits() <= y.Quant.Storage.Bits()
	}
	a, b := x.DType, y.DType
	switch {
	case a.IsBool() || b.IsBool():
		return a.IsBool() && b.IsBool()
	case a.IsInt():
		return b.IsInt() && a.Bits() <= b.Bits()
	case a.IsFloat():
		return b.IsFloat() && a.Bits() <= b.Bits()
	case a.IsComplex():
		return b.IsComplex() && a.Bits() <= b.Bits()
	}
	return false
}
