package hlo

import (
	"strconv"
	"strings"
)

// opWriter prints one pretty form. Spacing follows MLIR's generated
// printers: a space before every element except some punctuation, none
// after '(' '[' '{' '<', none after “ (fNoSpace).
type opWriter struct {
	pr    *printer
	op    *Op
	next  int  // operand cursor
	space bool // shouldEmitSpace
	punct bool // lastWasPunctuation
}

func (w *opWriter) ws(s string) { w.pr.ws(s) }

func (w *opWriter) literal(s string) {
	if w.space && spaceBefore(s, w.punct) {
		w.ws(" ")
	}
	w.ws(s)
	w.space = len(s) != 1 || !strings.ContainsRune("<({[", rune(s[0]))
	w.punct = s[0] != '_' && !isLetter(s[0])
}

func spaceBefore(s string, lastPunct bool) bool {
	if len(s) != 1 && s != "->" {
		return true
	}
	if lastPunct {
		return !strings.ContainsRune(">)}],", rune(s[0]))
	}
	return !strings.ContainsRune("<>(){}[],", rune(s[0]))
}

// element emits the space before a non-literal element.
func (w *opWriter) element() {
	if w.space || !w.punct {
		w.ws(" ")
	}
	w.punct = false
	w.space = true
}

func (w *opWriter) value(v *Value) { w.ws(w.pr.names.ref(v)) }

func (f *opForm) print(pr *printer, op *Op) {
	if p := customOpPrinters[f.name]; p != nil {
		p(pr, op)
		return
	}
	w := &opWriter{pr: pr, op: op, space: true}
	w.elems(f, f.elems)
}

func (w *opWriter) elems(f *opForm, es []felem) {
	for _, e := range es {
		w.elem(f, e)
	}
}

func (w *opWriter) elem(f *opForm, e felem) {
	op := w.op
	switch e.kind {
	case fLit:
		w.literal(e.text)
	case fOperand:
		w.element()
		w.value(op.Operands[w.next])
		w.next++
	case fOperands:
		w.element()
		for i := w.next; i < len(op.Operands); i++ {
			if i > w.next {
				w.ws(", ")
			}
			w.value(op.Operands[i])
		}
		w.next = len(op.Operands)
	case fOperandsComma:
		w.element()
		for i := w.next; i < len(op.Operands); i++ {
			if i > w.next {
				w.ws(" ")
			}
			w.value(op.Operands[i])
			w.ws(",")
		}
		w.next = len(op.Operands)
	case fAttr:
		w.element()
		w.ws(formAttrString(e, op.Attr(e.attr)))
	case fAttrDict, fAttrDictKw:
		var rest []NamedAttr
		for _, na := range op.Attrs {
			if f.elided[na.Name] {
				continue
			}
			if d, ok := f.defaults[na.Name]; ok && AttrString(na.Value) == d {
				continue
			}
			rest = append(rest, na)
		}
		if len(rest) > 0 {
			if e.kind == fAttrDictKw {
				w.ws(" attributes")
			}
			w.ws(" ")
			writeAttrDictBody(w.pr.b, rest)
		}
		w.punct = false
	case fNoSpace:
		w.space = false
		w.punct = true
	case fCustom:
		w.element()
		customDirectives[e.text].print(w, op)
	case fType:
		w.element()
		w.typeDirective(e.text)
	case fGroup:
		if groupPresent(op, e.group) {
			w.elems(f, e.group)
		} else if e.alt != nil {
			w.elems(f, e.alt)
		}
	}
}

// groupPresent reports whether an optional group's anchor is set.
func groupPresent(op *Op, g []felem) bool {
	for _, e := range g {
		switch e.kind {
		case fAttr:
			a := op.Attr(e.attr)
			if a == nil {
				return false
			}
			return e.def == "" || !attrIsDefault(e, a)
		case fOperands, fOperand, fOperandsComma:
			return len(op.Operands) > 0
		case fType:
			if e.text == "T:operands" || e.text == "T:pairwise" {
				return len(op.Operands) > 0
			}
		}
	}
	return false
}

// attrIsDefault compares a format attribute with its declared default.
func attrIsDefault(e felem, a Attr) bool {
	switch e.akind {
	case "bool":
		b, ok := a.(BoolAttr)
		return ok && strconv.FormatBool(bool(b)) == e.def
	case "f64":
		f, ok := AttrFloat(a)
		d, _ := strconv.ParseFloat(e.def, 64)
		return ok && f == d
	default:
		v, ok := AttrInt(a)
		d, _ := strconv.ParseInt(e.def, 10, 64)
		return ok && v == d
	}
}

// formAttrString prints an attribute as the pretty form shows it.
func formAttrString(e felem, a Attr) string {
	switch e.akind {
	case "i64", "i32":
		v, _ := AttrInt(a)
		return strconv.FormatInt(v, 10)
	case "ui64", "ui32":
		v, _ := AttrInt(a)
		return strconv.FormatUint(uint64(v), 10)
	case "bool":
		return strconv.FormatBool(bool(a.(BoolAttr)))
	case "str":
		return QuoteString(string(a.(StringAttr)))
	case "f64":
		f, _ := AttrFloat(a)
		return FormatFloat(f)
	case "arr":
		xs, _ := AttrInts(a)
		var b strings.Builder
		writeInts(&b, xs)
		return b.String()
	case "enum":
		// MLIR prints enum attributes with a leading space ("compare  LT").
		return " " + a.(EnumAttr).Value
	case "symref":
		return symbolRef(a.(SymbolRefAttr).Name)
	}
	return AttrString(a)
}

func (w *opWriter) typeDirective(d string) {
	op := w.op
	pr := w.pr
	switch d {
	case "T:same":
		if sameTypes(op) {
			w.ws(typeString(op.Results[0].Type))
		} else {
			pr.functionalType(op)
		}
	case "T:fn":
		pr.functionalType(op)
	case "T:complex":
		rt := op.Results[0].Type.(*TensorType)
		real := &TensorType{DType: rt.DType.ComplexPart(), Dims: rt.Dims, Encoding: rt.Encoding}
		if TypesEqual(op.Operands[0].Type, real) && TypesEqual(op.Operands[1].Type, real) {
			w.ws(typeString(op.Results[0].Type))
		} else {
			pr.functionalType(op)
		}
	case "T:select":
		rt := op.Results[0].Type
		if TypesEqual(op.Operands[1].Type, rt) && TypesEqual(op.Operands[2].Type, rt) {
			w.ws(typeString(op.Operands[0].Type) + ", " + typeString(rt))
		} else {
			pr.functionalType(op)
		}
	case "T:tuple", "T:same1":
		w.ws(typeString(op.Results[0].Type))
	case "T:pairwise", "T:operands":
		for i, v := range op.Operands {
			if i > 0 {
				w.ws(", ")
			}
			w.ws(typeString(v.Type))
		}
	case "T:results":
		for i, v := range op.Results {
			if i > 0 {
				w.ws(", ")
			}
			w.ws(typeString(v.Type))
		}
	case "T:alltypes":
		w.ws(typeString(op.Operands[0].Type))
	case "T:valuetype":
		// The type is part of the value attribute.
	default:
		i := int(d[1] - '0')
		if d[0] == 't' {
			w.ws(typeString(op.Operands[i].Type))
		} else {
			w.ws(typeString(op.Results[i].Type))
		}
	}
}

// sameTypes reports whether every operand type equals the single result
// type (MLIR's SameOperandsAndResultType printing).
func sameTypes(op *Op) bool {
	rt := op.Results[0].Type
	for _, v := range op.Operands {
		if !TypesEqual(v.Type, rt) {
			return false
		}
	}
	return true
}

// fits reports whether op can be printed in its pretty form: the right
// number of operands and results, every attribute the form prints present
// with the expected representation, no regions. Ops that do not fit are
// printed in the generic form, which always round-trips.
func (f *opForm) fits(op *Op) bool {
	if c := customOpFits[f.name]; c != nil {
		return c(op)
	}
	if f.elems == nil || len(op.Regions) > 0 {
		return false
	}
	for _, r := range op.Results {
		if r.Type == nil {
			return false
		}
	}
	for _, v := range op.Operands {
		if v == nil || v.Type == nil {
			return false
		}
	}
	c := &fitCheck{op: op, resultsOK: len(op.Results) == 0}
	return c.elems(f.elems) && c.next == len(op.Operands) && c.resultsOK
}

type fitCheck struct {
	op        *Op
	next      int
	resultsOK bool
}

func (c *fitCheck) elems(es []felem) bool {
	for _, e := range es {
		if !c.elem(e) {
			return false
		}
	}
	return true
}

func (c *fitCheck) elem(e felem) bool {
	op := c.op
	switch e.kind {
	case fOperand:
		if c.next >= len(op.Operands) {
			return false
		}
		c.next++
	case fOperands, fOperandsComma:
		c.next = len(op.Operands)
	case fAttr:
		return formAttrOK(e, op.Attr(e.attr))
	case fCustom:
		return customFits(e.text, op)
	case fType:
		return c.typeOK(e.text)
	case fGroup:
		if groupPresent(op, e.group) {
			return c.elems(e.group)
		}
		if e.alt != nil {
			return c.elems(e.alt)
		}
		// An absent group must not hide a set attribute that is not at
		// its default (it would be lost).
		for _, g := range e.group {
			if g.kind == fAttr && op.Attr(g.attr) != nil && !attrIsDefault(g, op.Attr(g.attr)) {
				return false
			}
		}
	}
	return true
}

func formAttrOK(e felem, a Attr) bool {
	if a == nil {
		return false
	}
	switch e.akind {
	case "i64":
		v, ok := a.(IntAttr)
		return ok && v.Type == nil
	case "i32", "ui64", "ui32":
		v, ok := a.(IntAttr)
		want := map[string]DType{"i32": I32, "ui64": U64, "ui32": U32}[e.akind]
		dt, tagged := attrScalar(v.Type)
		return ok && tagged && dt == want
	case "bool":
		_, ok := a.(BoolAttr)
		return ok
	case "str":
		_, ok := a.(StringAttr)
		return ok
	case "f64":
		v, ok := a.(FloatAttr)
		return ok && v.Type == nil
	case "arr":
		v, ok := a.(*DenseArrayAttr)
		return ok && v.DType == I64
	case "enum":
		v, ok := a.(EnumAttr)
		return ok && v.Dialect == "stablehlo" && v.Kind == e.enumKind && isBareIdent(v.Value)
	case "elements":
		_, ok := a.(*DenseElementsAttr)
		return ok
	case "symref":
		v, ok := a.(SymbolRefAttr)
		return ok && len(v.Nested) == 0
	}
	return false
}

func (c *fitCheck) typeOK(d string) bool {
	op := c.op
	nres := len(op.Results)
	switch d {
	case "T:same":
		c.resultsOK = nres == 1
	case "T:fn":
		c.resultsOK = true
	case "T:complex":
		if nres != 1 || len(op.Operands) != 2 {
			return false
		}
		rt, ok := op.Results[0].Type.(*TensorType)
		c.resultsOK = ok && rt.DType.IsComplex()
	case "T:select":
		c.resultsOK = nres == 1 && len(op.Operands) == 3
	case "T:tuple":
		if nres != 1 {
			return false
		}
		tt, ok := op.Results[0].Type.(*TupleType)
		if !ok || len(tt.Elems) != len(op.Operands) {
			return false
		}
		for i, e := range tt.Elems {
			if !TypesEqual(e, op.Operands[i].Type) {
				return false
			}
		}
		c.resultsOK = true
	case "T:pairwise":
		if nres != len(op.Operands) || nres == 0 {
			return false
		}
		for i := range op.Results {
			if !TypesEqual(op.Results[i].Type, op.Operands[i].Type) {
				return false
			}
		}
		c.resultsOK = true
	case "T:results":
		c.resultsOK = nres >= 1
	case "T:operands":
		c.resultsOK = nres == 0
	case "T:alltypes":
		if len(op.Operands) == 0 || nres != 0 {
			return false
		}
		for _, v := range op.Operands {
			if !TypesEqual(v.Type, op.Operands[0].Type) {
				return false
			}
		}
		c.resultsOK = true
	case "T:same1":
		c.resultsOK = nres == 1 && len(op.Operands) == 1 && TypesEqual(op.Operands[0].Type, op.Results[0].Type)
	case "T:valuetype":
		d, ok := op.Attr("value").(*DenseElementsAttr)
		c.resultsOK = ok && nres == 1 && TypesEqual(d.Type, op.Results[0].Type)
	default:
		i := int(d[1] - '0')
		if d[0] == 't' {
			return i < len(op.Operands)
		}
		if i >= nres {
			return false
		}
		c.resultsOK = nres == i+1
	}
	return true
}
