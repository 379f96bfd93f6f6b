package hlo

// IREE's test helper ops: what IREE's end-to-end tests and `iree-run-mlir`
// programs wrap StableHLO in. The parser reads them so that such programs
// load; executing them is up to the caller (the conformance runner lowers
// the helpers to StableHLO and runs the checks).
//
//   - util.unfoldable_constant V, arith.constant V: a constant (V a dense
//     elements value or a typed scalar such as `1 : i32`; a scalar gives a
//     result of that scalar type, an OpaqueType).
//   - util.optimization_barrier %a, %b : T, U: the operands unchanged.
//   - flow.tensor.dynamic_constant V -> T: a constant typed with the
//     (dynamic) type T.
//   - tensor.cast %x : T to U: %x with a compatible type.
//   - IREE's check dialect. Its op names are those of StableHLO's check
//     dialect, but its syntax and semantics differ (exact equality is
//     bitwise, almost-equality is NumPy's isclose with atol and rtol), so
//     the parser gives its ops their own names: `check.expect_eq(%a, %b) : T`
//     (an operand list in parentheses right after the name, IREE's form)
//     becomes the op iree_check.expect_eq; `check.expect_eq %a, %b : T`
//     stays StableHLO's check.expect_eq. The printer writes the iree_check
//     ops with their source spelling, so text round-trips.

// ireeCheckPrefix is the dialect name IREE's check ops get in the IR.
const ireeCheckPrefix = "iree_check."

// typedConstants are the constant ops whose value may be a typed scalar.
var typedConstants = []string{"util.unfoldable_constant", "arith.constant"}

// spelledAs maps op names that print under another name to that name.
var spelledAs = map[string]string{}

// customOps is made by parse_custom.go's init, which runs first (init
// functions run in file name order); the forms of the other helpers are
// rows of the op table (ops_forms_gen.go), and print_iree.go adds the
// printers.
func init() {
	for _, n := range typedConstants {
		customOps[n] = parseTypedConstant
	}
}

// syntaxVariant returns the form an op written with the bare name `name`
// uses at the parser's position, and the op name it stands for: IREE's
// check ops open their operand list with '(' where StableHLO's do not.
func (p *parser) syntaxVariant(name string) (string, *opForm) {
	if len(name) > 6 && name[:6] == "check." && (p.is("(") || p.is("<")) {
		alt := ireeCheckPrefix + name[6:]
		if f := lookupForm(alt); f != nil {
			if p.is("<") {
				p.failAt(p.tok.start, "%s with a device operand (<%%device>) is not supported; checks compare tensors", name)
			}
			return alt, f
		}
	}
	return name, lookupForm(name)
}

// parseTypedConstant parses `{attrs} V` where V is a dense elements value
// or a typed scalar (`1 : i32`, `2.0 : f32`, `true`, `0 : index`).
func parseTypedConstant(p *parser, op *Op) {
	if p.is("(") {
		p.parseGenericBody(op)
		return
	}
	if p.is("{") {
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
	}
	off := p.tok.start
	p.lastDenseType = nil
	a := p.parseAttr()
	var t Type
	switch v := a.(type) {
	case *DenseElementsAttr:
		t = v.Type
	case OpaqueAttr:
		t = p.lastDenseType
	case IntAttr:
		t = scalarValueType(v.Type, "i64")
	case FloatAttr:
		t = scalarValueType(v.Type, "f64")
	case BoolAttr:
		t = &OpaqueType{Text: "i1"}
	}
	if t == nil {
		p.failAt(off, "%s needs a dense elements value or a typed scalar (like `1 : i32`)", op.Name)
	}
	addAttr(op, "value", a)
	newResults(op, []Type{t})
}

// scalarValueType is the scalar type of a number attribute: its type tag (a
// rank-0 tensor type for element types) as the bare type, def when untyped.
func scalarValueType(tag Type, def string) Type {
	switch t := tag.(type) {
	case nil:
		return &OpaqueType{Text: def}
	case *TensorType:
		if t.Rank() == 0 && t.Quant == nil {
			return &OpaqueType{Text: t.ElemString()}
		}
	case *OpaqueType:
		return t
	}
	return nil
}
