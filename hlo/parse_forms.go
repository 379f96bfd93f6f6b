package hlo

import (
	"fmt"
	"strings"
)

// Pretty op forms are described once, in a small format language modeled
// on MLIR's declarative assembly formats, and interpreted by both the
// parser (here) and the printer (print_forms.go), so the two cannot drift
// apart. The forms are the Form fields of the op table's rows
// (hlo/optable; ops_forms_gen.go registers them), and FORMS.md lists
// every form with the attribute names it fills.
//
// Format elements (space separated):
//
//	$            the next operand
//	$$           the remaining operands, comma separated (maybe none)
//	$$,          the remaining operands, each followed by ','
//	@name:kind   an attribute; kinds: i64 i32 ui64 ui32 bool str f64 arr
//	             (array<i64>, written [1, 2]) enum.K (#stablehlo<K V>,
//	             written V) elements (dense<...> : type) symref (@f);
//	             @name:kind=default elides the attribute when equal to default
//	attrs        the attribute dictionary {...} of the remaining attributes
//	attrs-kw     the same, introduced by the keyword `attributes`
//	~            no space before the next element (MLIR's ``)
//	!name        a custom directive (slice ranges, window, dot dims, ...)
//	T:name       a type directive (same, fn, complex, select, tuple, ...)
//	tN rN        the type of operand N / result N
//	[[ ... ]]    an optional group, present when its first attribute is
//	             set (and not default) or, for operand groups, when there
//	             are operands; `||` separates an alternative printed when
//	             the group is absent
//	other        a literal keyword or punctuation
type opForm struct {
	name     string
	format   string
	elems    []felem
	elided   map[string]bool   // attributes the format itself prints
	defaults map[string]string // attr-dict attributes elided when their text equals this
}

type fkind uint8

const (
	fLit fkind = iota
	fOperand
	fOperands
	fOperandsComma
	fAttr
	fAttrDict
	fAttrDictKw
	fNoSpace
	fCustom
	fType
	fGroup
)

type felem struct {
	kind     fkind
	text     string // literal, custom or type directive name
	attr     string
	akind    string
	enumKind string
	def      string
	group    []felem
	alt      []felem
}

// formTable maps a full op name to its pretty form.
var formTable = map[string]*opForm{}

// lookupForm returns the pretty form of op name, or nil.
func lookupForm(name string) *opForm { return formTable[name] }

func defForm(format string, defaults map[string]string, names ...string) {
	for _, n := range names {
		f := &opForm{name: n, format: format, defaults: defaults, elided: map[string]bool{}}
		elems, rest := compileFormat(strings.Fields(format), f)
		if len(rest) != 0 {
			panic("hlo: bad op format for " + n + ": " + format)
		}
		f.elems = elems
		formTable[n] = f
	}
}

func compileFormat(toks []string, f *opForm) ([]felem, []string) {
	var out []felem
	for len(toks) > 0 {
		t := toks[0]
		switch {
		case t == "]]" || t == "||":
			return out, toks
		case t == "[[":
			g, rest := compileFormat(toks[1:], f)
			e := felem{kind: fGroup, group: g}
			if len(rest) > 0 && rest[0] == "||" {
				e.alt, rest = compileFormat(rest[1:], f)
			}
			if len(rest) == 0 || rest[0] != "]]" {
				panic("hlo: unterminated optional group in " + f.format)
			}
			out = append(out, e)
			toks = rest[1:]
			continue
		case t == "$":
			out = append(out, felem{kind: fOperand})
		case t == "$$":
			out = append(out, felem{kind: fOperands})
		case t == "$$,":
			out = append(out, felem{kind: fOperandsComma})
		case t == "attrs":
			out = append(out, felem{kind: fAttrDict})
		case t == "attrs-kw":
			out = append(out, felem{kind: fAttrDictKw})
		case t == "~":
			out = append(out, felem{kind: fNoSpace})
		case strings.HasPrefix(t, "@"):
			e := felem{kind: fAttr}
			spec := t[1:]
			if i := strings.IndexByte(spec, '='); i >= 0 {
				e.def = spec[i+1:]
				spec = spec[:i]
			}
			i := strings.IndexByte(spec, ':')
			e.attr, e.akind = spec[:i], spec[i+1:]
			if strings.HasPrefix(e.akind, "enum.") {
				e.enumKind = e.akind[5:]
				e.akind = "enum"
			}
			f.elided[e.attr] = true
			out = append(out, e)
		case strings.HasPrefix(t, "!"):
			c := customDirectives[t[1:]]
			if c == nil {
				panic("hlo: unknown custom directive " + t)
			}
			for _, a := range c.attrs {
				f.elided[a] = true
			}
			out = append(out, felem{kind: fCustom, text: t[1:]})
		case strings.HasPrefix(t, "T:") || len(t) == 2 && (t[0] == 't' || t[0] == 'r') && t[1] >= '0' && t[1] <= '9':
			out = append(out, felem{kind: fType, text: t})
		default:
			out = append(out, felem{kind: fLit, text: t})
		}
		toks = toks[1:]
	}
	return out, nil
}

// handForm registers an op whose whole syntax is hand-written code
// (customOps, customOpPrinters).
func handForm(name string) {
	formTable[name] = &opForm{name: name, elided: map[string]bool{}}
}

// --- parsing --------------------------------------------------------------------

// formState collects what a pretty form declares while it is parsed.
type formState struct {
	op       *Op
	uses     []*Value
	useOffs  []int
	declared []Type // declared operand types (nil: not given)
	declOffs []int
	results  []Type
	hasRes   bool
}

func (st *formState) declare(i int, t Type, off int) {
	for len(st.declared) <= i {
		st.declared = append(st.declared, nil)
		st.declOffs = append(st.declOffs, 0)
	}
	st.declared[i] = t
	st.declOffs[i] = off
}

func (f *opForm) parse(p *parser, op *Op) {
	if c := customOps[f.name]; c != nil {
		c(p, op)
		return
	}
	st := &formState{op: op}
	p.parseElems(f, f.elems, st)
	for i, v := range st.uses {
		if i < len(st.declared) && st.declared[i] != nil {
			p.checkType(v, st.declared[i], st.useOffs[i], valueName(v))
		}
	}
	if len(st.declared) > len(st.uses) {
		p.failAt(st.declOffs[len(st.declared)-1], "%s has %d operands, but its type lists %d", op.Name, len(st.uses), len(st.declared))
	}
	op.Operands = st.uses
	newResults(op, st.results)
}

func (p *parser) parseElems(f *opForm, elems []felem, st *formState) {
	for _, e := range elems {
		p.parseElem(f, e, st)
	}
}

func (p *parser) parseElem(f *opForm, e felem, st *formState) {
	switch e.kind {
	case fLit:
		p.expect(e.text)
	case fOperand:
		st.useOffs = append(st.useOffs, p.tok.start)
		st.uses = append(st.uses, p.parseUse())
	case fOperands:
		for p.tok.kind == tValue {
			st.useOffs = append(st.useOffs, p.tok.start)
			st.uses = append(st.uses, p.parseUse())
			if !p.is(",") {
				break
			}
			save := p.tok
			p.next()
			if p.tok.kind != tValue {
				p.tok = save
				break
			}
		}
	case fOperandsComma:
		for p.tok.kind == tValue {
			st.useOffs = append(st.useOffs, p.tok.start)
			st.uses = append(st.uses, p.parseUse())
			p.expect(",")
		}
	case fAttr:
		st.op.Attrs = append(st.op.Attrs, NamedAttr{e.attr, p.parseFormAttr(e, st.op)})
	case fAttrDict, fAttrDictKw:
		if e.kind == fAttrDictKw {
			if !p.accept("attributes") {
				return
			}
		}
		if p.is("{") {
			st.op.Attrs = append(st.op.Attrs, p.parseAttrDict()...)
		}
	case fNoSpace:
	case fCustom:
		customDirectives[e.text].parse(p, st)
	case fType:
		p.parseTypeDirective(e.text, st)
	case fGroup:
		if p.groupStarts(e.group) {
			p.parseElems(f, e.group, st)
		} else if e.alt != nil {
			p.parseElems(f, e.alt, st)
		}
	}
}

// groupStarts reports whether the current token begins the group.
func (p *parser) groupStarts(g []felem) bool {
	if len(g) == 0 {
		return false
	}
	switch g[0].kind {
	case fLit:
		return p.is(g[0].text)
	case fOperand, fOperands, fOperandsComma:
		return p.tok.kind == tValue
	}
	panic("hlo: optional group must start with a literal or operands")
}

// parseFormAttr parses an attribute written inside a pretty form.
func (p *parser) parseFormAttr(e felem, op *Op) Attr {
	switch e.akind {
	case "i64":
		return IntAttr{Value: p.parseInt()}
	case "i32":
		off := p.tok.start
		v := p.parseInt()
		if !intFits(I32, v) {
			p.failAt(off, "%s = %d out of range for i32", e.attr, v)
		}
		return IntAttr{Value: v, Type: NewTensorType(I32)}
	case "ui64":
		off := p.tok.start
		v := p.parseInt()
		if v < 0 {
			p.failAt(off, "%s must be non-negative", e.attr)
		}
		return IntAttr{Value: v, Type: NewTensorType(U64)}
	case "ui32":
		off := p.tok.start
		v := p.parseInt()
		if !intFits(U32, v) {
			p.failAt(off, "%s = %d out of range for ui32", e.attr, v)
		}
		return IntAttr{Value: v, Type: NewTensorType(U32)}
	case "bool":
		switch {
		case p.accept("true"):
			return BoolAttr(true)
		case p.accept("false"):
			return BoolAttr(false)
		}
		p.failExpected("true or false")
	case "str":
		if p.tok.kind != tString {
			p.failExpected("string")
		}
		s, ok := unquote(p.src[p.tok.start:p.tok.end])
		if !ok {
			p.failAt(p.tok.start, "invalid string escape")
		}
		p.next()
		return StringAttr(s)
	case "f64":
		return FloatAttr{Value: p.parseFloatValue()}
	case "arr":
		return &DenseArrayAttr{DType: I64, Ints: p.parseIntList()}
	case "enum":
		v := p.bareKeyword()
		if v == "" {
			p.failExpected(e.enumKind + " value")
		}
		p.next()
		return EnumAttr{Dialect: "stablehlo", Kind: e.enumKind, Value: v}
	case "elements":
		a := p.parseAttr()
		if _, ok := a.(*DenseElementsAttr); !ok {
			if _, ok := a.(OpaqueAttr); !ok {
				p.failAt(p.tok.start, "%s: expected dense elements", e.attr)
			}
		}
		return a
	case "symref":
		if p.tok.kind != tSymbol {
			p.failExpected("symbol reference")
		}
		return SymbolRefAttr{Name: p.symbolName()}
	}
	panic(fmt.Sprintf("hlo: unknown attribute kind %q", e.akind))
}

// parseIntList parses `[1, -2, 3]`.
func (p *parser) parseIntList() []int64 {
	p.expect("[")
	xs := []int64{}
	for !p.is("]") {
		if len(xs) > 0 {
			p.expect(",")
		}
		xs = append(xs, p.parseInt())
	}
	p.next()
	return xs
}

// parseTypeList parses `T, T, ...` (at least one type).
func (p *parser) parseTypeList() []Type {
	ts := []Type{p.parseType()}
	for p.accept(",") {
		ts = append(ts, p.parseType())
	}
	return ts
}

func (p *parser) parseTypeDirective(d string, st *formState) {
	off := p.tok.start
	switch d {
	case "T:same":
		t := p.parseType()
		if fn, ok := t.(*FunctionType); ok {
			p.assignFunction(fn, st, off, true)
			return
		}
		for i := range st.uses {
			st.declare(i, t, off)
		}
		st.results = []Type{t}
	case "T:fn":
		if !p.is("(") {
			p.failExpected("function type")
		}
		p.assignFunction(p.parseFunctionType(), st, off, false)
	case "T:complex":
		t := p.parseType()
		if fn, ok := t.(*FunctionType); ok {
			p.assignFunction(fn, st, off, true)
			return
		}
		tt, ok := t.(*TensorType)
		if !ok || !tt.DType.IsComplex() {
			p.failAt(off, "expected tensor with complex element type, found %s", t)
		}
		real := &TensorType{DType: tt.DType.ComplexPart(), Dims: tt.Dims, Encoding: tt.Encoding}
		for i := range st.uses {
			st.declare(i, real, off)
		}
		st.results = []Type{t}
	case "T:select":
		ts := p.parseTypeList()
		if len(ts) == 1 {
			fn, ok := ts[0].(*FunctionType)
			if !ok {
				p.failAt(off, "expected functional type or list of two types")
			}
			p.assignFunction(fn, st, off, true)
			return
		}
		if len(ts) != 2 {
			p.failAt(off, "expected functional type or list of two types")
		}
		st.declare(0, ts[0], off)
		for i := 1; i < len(st.uses); i++ {
			st.declare(i, ts[1], off)
		}
		st.results = []Type{ts[1]}
	case "T:tuple":
		t := p.parseType()
		tt, ok := t.(*TupleType)
		if !ok {
			p.failAt(off, "expected tuple type, found %s", t)
		}
		for i, e := range tt.Elems {
			st.declare(i, e, off)
		}
		st.results = []Type{t}
	case "T:pairwise":
		ts := p.parseTypeList()
		for i, t := range ts {
			st.declare(i, t, off)
		}
		st.results = ts
	case "T:results":
		st.results = p.parseTypeList()
	case "T:operands":
		for i, t := range p.parseTypeList() {
			st.declare(i, t, off)
		}
	case "T:alltypes":
		t := p.parseType()
		for i := range st.uses {
			st.declare(i, t, off)
		}
	case "T:same1":
		t := p.parseType()
		st.declare(0, t, off)
		st.results = []Type{t}
	case "T:valuetype":
		a := LookupAttr(st.op.Attrs, "value")
		if d, ok := a.(*DenseElementsAttr); ok {
			st.results = []Type{d.Type}
		} else {
			p.failAt(off, "%s needs a dense value to give its type", st.op.Name)
		}
	default:
		i := int(d[1] - '0')
		t := p.parseType()
		if d[0] == 't' {
			st.declare(i, t, off)
		} else {
			for len(st.results) <= i {
				st.results = append(st.results, nil)
			}
			st.results[i] = t
		}
	}
}

// assignFunction applies a functional type to the operands and results;
// single requires exactly one result.
func (p *parser) assignFunction(fn *FunctionType, st *formState, off int, single bool) {
	if len(fn.Inputs) != len(st.uses) {
		p.failAt(off, "%s has %d operands, but its type lists %d", st.op.Name, len(st.uses), len(fn.Inputs))
	}
	if single && len(fn.Results) != 1 {
		p.failAt(off, "expected single output")
	}
	for i, t := range fn.Inputs {
		st.declare(i, t, off)
	}
	st.results = fn.Results
}
