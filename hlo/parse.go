package hlo

// The text parser. It reads what stablehlo-opt and JAX print and what the
// StableHLO interpreter tests are written in:
//
//   - modules (`module @name attributes {..} {..}`) or bare func.func lists;
//     attribute and type aliases; trailing loc(...) (ignored: Loc is the
//     source position of each op);
//   - the pretty form of every stablehlo, chlo, check, interpreter and func
//     op that has one (parse_forms.go, table in FORMS.md), and the generic
//     form "name"(%a) <{props}> ({regions}) {attrs} : (T) -> T of any op,
//     known or not;
//   - all attribute kinds of attr.go; anything else is kept verbatim as
//     OpaqueAttr / OpaqueType (on one line);
//   - dense literals in every spelling MLIR accepts (parse_dense.go).
//
// Attributes are stored under their generic names whatever the syntax, op
// names fully qualified (`return` is func.return), every value typed, and
// uses are checked against the types the syntax declares for them.

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError is a syntax or resolution error at a source position. Its
// message reads "file:line:col: expected <what>, found <token>" for syntax
// errors and "file:line:col: <problem>" otherwise.
type ParseError struct {
	Loc Loc
	Msg string
}

func (e *ParseError) Error() string { return e.Loc.String() + ": " + e.Msg }

// ParseModule parses one module in MLIR text form: either
// `module @name attributes {...} { ... }` or a bare list of func.func (an
// anonymous module). Both the pretty forms of the stablehlo, chlo, check,
// interpreter and func ops and the generic form of any op are accepted.
// Errors are *ParseError.
func ParseModule(filename string, src []byte) (*Module, error) {
	return ParseModuleAt(filename, src, 1)
}

// ParseModuleAt is ParseModule for text that starts at line firstLine of
// the file (a chunk of SplitInputFile), so that positions in errors and
// Locs are file positions.
func ParseModuleAt(filename string, src []byte, firstLine int) (m *Module, err error) {
	p := newParser(filename, src, firstLine)
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*ParseError)
			if !ok {
				panic(r)
			}
			m, err = nil, pe
		}
	}()
	return p.parseTop(), nil
}

type parser struct {
	file  string
	src   []byte
	lines lineIndex
	tok   token
	// lastEnd is the end offset of the last consumed token.
	lastEnd int

	typeAliases map[string]Type
	// lastDenseType is the type of the last dense attribute kept opaque.
	lastDenseType Type
	attrAliases   map[string]Attr
	scope         *scope
	// depth counts nested attributes, types and regions, to fail cleanly
	// on absurdly deep input instead of exhausting the stack.
	depth int
}

func newParser(file string, src []byte, firstLine int) *parser {
	p := &parser{file: file, src: src, lines: lineIndex{src: src, firstLine: firstLine}}
	p.tok = lexAt(src, 0)
	return p
}

// --- tokens -----------------------------------------------------------------

func (p *parser) next() {
	p.lastEnd = p.tok.end
	p.tok = lexAt(p.src, p.tok.end)
}

// resetTo re-lexes from byte offset pos.
func (p *parser) resetTo(pos int) {
	p.lastEnd = pos
	p.tok = lexAt(p.src, pos)
}

// prevEnd is the end offset of the last consumed token.
func (p *parser) prevEnd() int { return p.lastEnd }

// spanText returns the source between start and end with every gap that
// holds a newline or a comment collapsed to one space, so that text kept
// verbatim (opaque attributes and types) prints on one line.
func (p *parser) spanText(start, end int) string {
	var b strings.Builder
	pos := start
	var prev byte
	for pos < end {
		t := lexAt(p.src, pos)
		if t.start >= end || t.kind == tEOF {
			break
		}
		gap := p.src[pos:t.start]
		if strings.ContainsAny(string(gap), "\n/") {
			// Drop the gap inside brackets and before closing
			// punctuation, keep one space elsewhere.
			next := p.src[t.start]
			if pos > start && !strings.ContainsRune("<([", rune(prev)) && !strings.ContainsRune(">)],", rune(next)) {
				b.WriteByte(' ')
			}
		} else {
			b.Write(gap)
		}
		b.Write(p.src[t.start:t.end])
		prev = p.src[t.end-1]
		pos = t.end
	}
	return b.String()
}

func (p *parser) text() string { return string(p.src[p.tok.start:p.tok.end]) }

// is reports whether the current token is the punctuation or keyword s.
func (p *parser) is(s string) bool {
	return (p.tok.kind == tPunct || p.tok.kind == tBare) && string(p.src[p.tok.start:p.tok.end]) == s
}

// accept consumes s if it is the current token.
func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.next()
		return true
	}
	return false
}

// expect consumes s or fails with "expected 's'".
func (p *parser) expect(s string) {
	if !p.accept(s) {
		p.failExpected("'" + s + "'")
	}
}

func (p *parser) loc(off int) Loc {
	line, col := p.lines.pos(off)
	return Loc{File: p.file, Line: line, Col: col}
}

// fail stops parsing with an error at byte offset off.
func (p *parser) failAt(off int, format string, args ...any) {
	panic(&ParseError{Loc: p.loc(off), Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) failExpected(what string) {
	p.failAt(p.tok.start, "expected %s, found %s", what, p.describeTok())
}

func (p *parser) describeTok() string {
	switch p.tok.kind {
	case tEOF:
		return "end of input"
	case tBad:
		if p.tok.end > p.tok.start && p.src[p.tok.start] == '"' || p.tok.end > p.tok.start+1 && p.src[p.tok.start+1] == '"' {
			return "unterminated string"
		}
	}
	s := p.text()
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return "'" + s + "'"
}

// bareKeyword returns the keyword text if the current token is a bare
// identifier, else "".
func (p *parser) bareKeyword() string {
	if p.tok.kind != tBare {
		return ""
	}
	return p.text()
}

// parseInt parses an optionally negative decimal or hex integer.
func (p *parser) parseInt() int64 {
	neg := p.accept("-")
	if p.tok.kind != tInt {
		p.failExpected("integer")
	}
	v, ok := parseIntText(p.src[p.tok.start:p.tok.end], neg)
	if !ok {
		p.failAt(p.tok.start, "integer %s out of range", p.text())
	}
	p.next()
	return v
}

// parseIntText parses decimal or 0x-hex digits into an int64 (hex and
// values up to 2^64-1 wrap, as MLIR keeps raw bits for unsigned types).
func parseIntText(b []byte, neg bool) (int64, bool) {
	var u uint64
	var err error
	if len(b) > 2 && b[0] == '0' && b[1] == 'x' {
		u, err = strconv.ParseUint(string(b[2:]), 16, 64)
	} else {
		u, err = strconv.ParseUint(string(b), 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	return int64(u), true
}

// enter guards recursion depth; callers defer p.leave().
func (p *parser) enter() {
	p.depth++
	if p.depth > maxNesting {
		p.failAt(p.tok.start, "nesting deeper than %d levels", maxNesting)
	}
}

func (p *parser) leave() { p.depth-- }

const maxNesting = 256

// --- SSA scopes --------------------------------------------------------------

// scope maps value names of one region to their values. Function bodies
// start a fresh chain: a function cannot see the names of another.
type scope struct {
	names  map[string][]*Value
	parent *scope
}

func (p *parser) pushScope(isolated bool) {
	s := &scope{names: map[string][]*Value{}}
	if !isolated {
		s.parent = p.scope
	}
	p.scope = s
}

func (p *parser) popScope(saved *scope) { p.scope = saved }

func (p *parser) lookupName(name string) []*Value {
	for s := p.scope; s != nil; s = s.parent {
		if vs, ok := s.names[name]; ok {
			return vs
		}
	}
	return nil
}

// define binds a value name (without '%') in the current scope.
func (p *parser) define(name string, vs []*Value, off int) {
	if p.lookupName(name) != nil {
		p.failAt(off, "redefinition of SSA value %%%s", name)
	}
	p.scope.names[name] = vs
}

// parseUse parses `%name` or `%name#N` and returns the value.
func (p *parser) parseUse() *Value {
	if p.tok.kind != tValue {
		p.failExpected("SSA value")
	}
	start := p.tok.start
	name := string(p.src[p.tok.start+1 : p.tok.end])
	idx := 0
	end := p.tok.end
	if end < len(p.src) && p.src[end] == '#' {
		q := end + 1
		for q < len(p.src) && isDigit(p.src[q]) {
			q++
		}
		if q == end+1 {
			p.failAt(end, "expected result number after '#'")
		}
		n, err := strconv.Atoi(string(p.src[end+1 : q]))
		if err != nil {
			p.failAt(end, "result number %s out of range", p.src[end+1:q])
		}
		idx = n
		end = q
	}
	vs := p.lookupName(name)
	if vs == nil {
		p.failAt(start, "use of undefined value %%%s", name)
	}
	if idx >= len(vs) {
		p.failAt(start, "%%%s has %d results, %%%s#%d is out of range", name, len(vs), name, idx)
	}
	p.resetTo(end)
	return vs[idx]
}

// checkType reports a mismatch between a value's type and the type a use
// of it declares.
func (p *parser) checkType(v *Value, t Type, off int, name string) {
	if v.Type == nil {
		v.Type = t
		return
	}
	if !TypesEqual(v.Type, t) {
		p.failAt(off, "type mismatch for %s: declared %s here, but the value has type %s", name, t, v.Type)
	}
}

func valueName(v *Value) string {
	if v.Name == "" {
		return "operand"
	}
	return "%" + v.Name
}

// --- top level ---------------------------------------------------------------

func (p *parser) parseTop() *Module {
	m := &Module{Loc: p.loc(p.tok.start)}
	p.parseAliases()
	if p.is("module") {
		p.parseModuleOp(m)
		p.parseAliases()
		if p.tok.kind != tEOF {
			p.failExpected("end of input after the module")
		}
		return m
	}
	for p.tok.kind != tEOF {
		if p.is("module") {
			p.failAt(p.tok.start, "a module must be the only top-level operation")
		}
		p.parseTopItem(m)
		p.parseAliases()
	}
	return m
}

// parseAliases parses `#name = attr` and `!name = type` definitions.
func (p *parser) parseAliases() {
	for p.tok.kind == tHash || p.tok.kind == tBang {
		save := p.tok
		name := p.text()
		p.next()
		if !p.is("=") {
			p.tok = save
			return
		}
		p.next()
		if save.kind == tHash && p.is("loc") {
			// Location aliases (#loc1 = loc(...)) carry no semantics here.
			p.skipTrailingLoc()
			continue
		}
		if save.kind == tHash {
			if p.attrAliases == nil {
				p.attrAliases = map[string]Attr{}
			}
			p.attrAliases[name] = p.parseAttr()
		} else {
			if p.typeAliases == nil {
				p.typeAliases = map[string]Type{}
			}
			if p.text() == "!quant.uniform" {
				p.typeAliases[name] = &quantAlias{p.parseQuantType()}
			} else {
				p.typeAliases[name] = p.parseType()
			}
		}
	}
}

func (p *parser) parseModuleOp(m *Module) {
	m.Loc = p.loc(p.tok.start)
	p.next()
	if p.tok.kind == tSymbol {
		m.Name = p.symbolName()
	}
	if p.accept("attributes") {
		m.Attrs = p.parseAttrDict()
	}
	p.expect("{")
	for !p.is("}") {
		if p.tok.kind == tEOF {
			p.failExpected("'}' closing the module")
		}
		if p.is("module") {
			p.failAt(p.tok.start, "nested modules are not supported")
		}
		p.parseTopItem(m)
	}
	p.next()
	p.skipTrailingLoc()
}

func (p *parser) parseTopItem(m *Module) {
	if p.is("func.func") {
		m.Funcs = append(m.Funcs, p.parseFunc())
		return
	}
	saved := p.scope
	p.pushScope(true)
	op := p.parseOp()
	p.popScope(saved)
	if op.Name == "func.func" {
		m.Funcs = append(m.Funcs, p.funcFromGeneric(op))
		return
	}
	m.Other = append(m.Other, op)
}

// symbolName parses @name or @"name" and returns name.
func (p *parser) symbolName() string {
	if p.tok.kind != tSymbol {
		p.failExpected("symbol name")
	}
	b := p.src[p.tok.start+1 : p.tok.end]
	var s string
	if len(b) > 0 && b[0] == '"' {
		var ok bool
		s, ok = unquote(b)
		if !ok {
			p.failAt(p.tok.start, "invalid string escape in symbol name")
		}
	} else {
		s = string(b)
	}
	p.next()
	return s
}

// skipTrailingLoc skips an optional `loc(...)`.
func (p *parser) skipTrailingLoc() {
	if !p.is("loc") {
		return
	}
	p.next()
	if !p.is("(") {
		p.failExpected("'(' after loc")
	}
	p.skipBalanced()
}

// skipBalanced skips a parenthesized, bracketed or braced group starting at
// the current opening token, including nested groups, and returns its text.
func (p *parser) skipBalanced() string {
	start := p.tok.start
	depth := 0
	for {
		switch {
		case p.tok.kind == tEOF || p.tok.kind == tBad:
			p.failExpected("closing bracket")
		case p.tok.kind == tPunct:
			switch p.src[p.tok.start] {
			case '(', '[', '{', '<':
				depth++
			case ')', ']', '}', '>':
				depth--
			case '-':
				// "->" is one token; its '>' closes nothing.
			}
		}
		end := p.tok.end
		p.next()
		if depth == 0 {
			return p.spanText(start, end)
		}
	}
}

// --- functions -----------------------------------------------------------------

func (p *parser) parseFunc() *Func {
	f := &Func{Loc: p.loc(p.tok.start)}
	p.next()
	if k := p.bareKeyword(); k == "public" || k == "private" || k == "nested" {
		f.Visibility = k
		p.next()
	}
	f.Name = p.symbolName()
	saved := p.scope
	p.pushScope(true)
	defer p.popScope(saved)

	p.expect("(")
	hasNames := p.tok.kind == tValue
	var argAttrs []*DictAttr
	anyArgAttr := false
	for !p.is(")") {
		if len(f.Args) > 0 {
			p.expect(",")
		}
		v := &Value{Index: len(f.Args)}
		if hasNames {
			off := p.tok.start
			if p.tok.kind != tValue {
				p.failExpected("argument name")
			}
			v.Name = string(p.src[p.tok.start+1 : p.tok.end])
			p.next()
			p.expect(":")
			v.Type = p.parseType()
			p.define(v.Name, []*Value{v}, off)
		} else {
			v.Type = p.parseType()
		}
		var da *DictAttr
		if p.is("{") {
			d := DictAttr(p.parseAttrDict())
			da = &d
			anyArgAttr = true
		}
		argAttrs = append(argAttrs, da)
		p.skipTrailingLoc()
		f.Args = append(f.Args, v)
	}
	p.next()
	if anyArgAttr {
		f.ArgAttrs = argAttrs
	}
	if p.accept("->") {
		f.ResultTypes, f.ResultAttrs = p.parseResultList()
	}
	if p.accept("attributes") {
		f.Attrs = p.parseAttrDict()
	}
	if p.is("{") {
		if !hasNames && len(f.Args) > 0 {
			p.failAt(p.tok.start, "a function with a body needs named arguments")
		}
		f.Body = p.parseRegionBody(f.Args, true, "func.func")
		if len(f.Body.Blocks) == 0 {
			// An empty body region is an external declaration.
			f.Body = nil
		}
	}
	p.skipTrailingLoc()
	return f
}

// parseResultList parses a function result list: a single type, or a
// parenthesized list of types each with an optional attribute dict.
func (p *parser) parseResultList() ([]Type, []*DictAttr) {
	if !p.is("(") {
		return []Type{p.parseType()}, nil
	}
	// A parenthesized function type as a single result is not allowed in
	// MLIR here, so '(' always opens the list.
	p.next()
	var types []Type
	var attrs []*DictAttr
	any := false
	for !p.is(")") {
		if len(types) > 0 {
			p.expect(",")
		}
		types = append(types, p.parseType())
		var da *DictAttr
		if p.is("{") {
			d := DictAttr(p.parseAttrDict())
			da = &d
			any = true
		}
		attrs = append(attrs, da)
		p.skipTrailingLoc()
	}
	p.next()
	if !any {
		attrs = nil
	}
	if types == nil {
		types = []Type{}
	}
	return types, attrs
}

// funcFromGeneric converts a generic "func.func"() <{...}> ({...}) op.
func (p *parser) funcFromGeneric(op *Op) *Func {
	f := &Func{Loc: op.Loc}
	name, ok := LookupAttr(op.Attrs, "sym_name").(StringAttr)
	if !ok {
		p.failAt(p.offsetOf(op.Loc), "generic func.func needs a sym_name string attribute")
	}
	f.Name = string(name)
	if v, ok := LookupAttr(op.Attrs, "sym_visibility").(StringAttr); ok {
		f.Visibility = string(v)
	}
	ft, ok := LookupAttr(op.Attrs, "function_type").(TypeAttr)
	if !ok {
		p.failAt(p.offsetOf(op.Loc), "generic func.func needs a function_type attribute")
	}
	fn, _ := ft.Type.(*FunctionType)
	if fn == nil {
		p.failAt(p.offsetOf(op.Loc), "function_type of func.func must be a function type")
	}
	f.ResultTypes = fn.Results
	if len(op.Regions) == 1 && len(op.Regions[0].Blocks) > 0 {
		f.Body = op.Regions[0]
		f.Args = f.Body.Blocks[0].Args
	} else {
		for i, t := range fn.Inputs {
			f.Args = append(f.Args, &Value{Type: t, Index: i})
		}
	}
	if a, ok := LookupAttr(op.Attrs, "arg_attrs").(ArrayAttr); ok {
		f.ArgAttrs = dictList(a)
	}
	if a, ok := LookupAttr(op.Attrs, "res_attrs").(ArrayAttr); ok {
		f.ResultAttrs = dictList(a)
	}
	for _, na := range op.Attrs {
		switch na.Name {
		case "sym_name", "sym_visibility", "function_type", "arg_attrs", "res_attrs":
		default:
			f.Attrs = append(f.Attrs, na)
		}
	}
	return f
}

func dictList(a ArrayAttr) []*DictAttr {
	out := make([]*DictAttr, len(a))
	for i, e := range a {
		if d, ok := e.(DictAttr); ok && len(d) > 0 {
			dd := d
			out[i] = &dd
		}
	}
	return out
}

// offsetOf finds the byte offset of a Loc produced by this parser (used
// only for error reporting on already-parsed ops).
func (p *parser) offsetOf(l Loc) int {
	line := l.Line - p.lines.firstLine
	off := 0
	for i := 0; i < line && off < len(p.src); i++ {
		nl := strings.IndexByte(string(p.src[off:]), '\n')
		if nl < 0 {
			return len(p.src)
		}
		off += nl + 1
	}
	return off + l.Col - 1
}

// --- regions and blocks --------------------------------------------------------

// parseRegionBody parses `{ ... }`. entryArgs, when non-nil, are the entry
// block's arguments supplied by the enclosing syntax (function arguments,
// while iterArgs); they must already be defined in the current scope when
// isolated is true, and are defined in the new region scope otherwise.
// parent is the name of the op owning the region (for name resolution).
func (p *parser) parseRegionBody(entryArgs []*Value, argsDefined bool, parent string) *Region {
	p.enter()
	defer p.leave()
	p.expect("{")
	saved := p.scope
	if !argsDefined {
		p.pushScope(false)
		defer p.popScope(saved)
		for _, a := range entryArgs {
			if a.Name != "" {
				p.define(a.Name, []*Value{a}, p.tok.start)
			}
		}
	}
	r := &Region{}
	var cur *Block
	if !p.is("^") && p.tok.kind != tCaret {
		cur = &Block{Args: entryArgs}
		if entryArgs == nil {
			cur.Args = nil
		}
		r.Blocks = append(r.Blocks, cur)
	} else if entryArgs != nil && len(entryArgs) > 0 {
		p.failAt(p.tok.start, "block arguments are given by the op syntax; a ^bb label is not allowed here")
	}
	for !p.is("}") {
		if p.tok.kind == tEOF {
			p.failExpected("'}' closing the region")
		}
		if p.tok.kind == tCaret {
			cur = p.parseBlockHeader()
			r.Blocks = append(r.Blocks, cur)
			continue
		}
		op := p.parseOpIn(parent)
		cur.Ops = append(cur.Ops, op)
	}
	p.next()
	// `{}` is a region without blocks, as in MLIR.
	if len(r.Blocks) == 1 && r.Blocks[0].Label == "" && len(r.Blocks[0].Ops) == 0 && len(r.Blocks[0].Args) == 0 {
		r.Blocks = nil
	}
	return r
}

// parseBlockHeader parses `^bb0(%a: T loc(...), ...):`.
func (p *parser) parseBlockHeader() *Block {
	b := &Block{Label: string(p.src[p.tok.start+1 : p.tok.end])}
	p.next()
	if p.accept("(") {
		for !p.is(")") {
			if len(b.Args) > 0 {
				p.expect(",")
			}
			if p.tok.kind != tValue {
				p.failExpected("block argument")
			}
			off := p.tok.start
			v := &Value{Name: string(p.src[p.tok.start+1 : p.tok.end]), Index: len(b.Args)}
			p.next()
			p.expect(":")
			v.Type = p.parseType()
			p.skipTrailingLoc()
			p.define(v.Name, []*Value{v}, off)
			b.Args = append(b.Args, v)
		}
		p.next()
	}
	p.expect(":")
	return b
}

// --- operations -------------------------------------------------------------------

// resultDef is one `%name` or `%name:N` on the left of an op.
type resultDef struct {
	name  string
	count int
	off   int
}

func (p *parser) parseOp() *Op { return p.parseOpIn("") }

// parseOpIn parses one operation inside a region owned by parent.
func (p *parser) parseOpIn(parent string) *Op {
	start := p.tok.start
	var defs []resultDef
	nres := 0
	if p.tok.kind == tValue {
		for {
			if p.tok.kind != tValue {
				p.failExpected("result name")
			}
			d := resultDef{name: string(p.src[p.tok.start+1 : p.tok.end]), count: 1, off: p.tok.start}
			p.next()
			if p.accept(":") {
				if p.tok.kind != tInt {
					p.failExpected("result count")
				}
				n, err := strconv.Atoi(p.text())
				if err != nil || n < 1 {
					p.failAt(p.tok.start, "invalid result count %s", p.text())
				}
				d.count = n
				p.next()
			}
			defs = append(defs, d)
			nres += d.count
			if !p.accept(",") {
				break
			}
		}
		p.expect("=")
	}
	op := &Op{Loc: p.loc(start)}
	switch p.tok.kind {
	case tString:
		name, ok := unquote(p.src[p.tok.start:p.tok.end])
		if !ok || name == "" {
			p.failAt(p.tok.start, "invalid op name %s", p.text())
		}
		op.Name = name
		p.next()
		p.parseGenericBody(op)
	case tBare:
		op.Name = p.text()
		if !strings.Contains(op.Name, ".") {
			op.Name = "func." + op.Name
		}
		nameOff := p.tok.start
		p.next()
		var form *opForm
		op.Name, form = p.syntaxVariant(op.Name)
		if form == nil {
			p.failAt(nameOff, "unknown operation %s: only the generic form \"%s\"(...) is supported for it", op.Name, op.Name)
		}
		form.parse(p, op)
	default:
		p.failExpected("operation")
	}
	p.skipTrailingLoc()
	if len(op.Results) != nres {
		if len(defs) == 0 {
			p.failAt(start, "%s produces %d results, but none are named", op.Name, len(op.Results))
		}
		p.failAt(start, "%s produces %d results, but %d are named", op.Name, len(op.Results), nres)
	}
	k := 0
	for _, d := range defs {
		vs := op.Results[k : k+d.count]
		for i, v := range vs {
			v.Name = d.name
			if d.count > 1 {
				v.Name = d.name + "#" + strconv.Itoa(i)
			}
		}
		p.define(d.name, vs, d.off)
		k += d.count
	}
	return op
}

// newResults creates op's results with the given types.
func newResults(op *Op, types []Type) {
	op.Results = make([]*Value, len(types))
	for i, t := range types {
		op.Results[i] = &Value{Type: t, Def: op, Index: i}
	}
}

// parseGenericBody parses the rest of `"name"(%a, %b) <{props}> ({regions})
// {attrs} : (types) -> types` after the name.
func (p *parser) parseGenericBody(op *Op) {
	p.expect("(")
	type use struct {
		v   *Value
		off int
	}
	var uses []use
	for !p.is(")") {
		if len(uses) > 0 {
			p.expect(",")
		}
		off := p.tok.start
		uses = append(uses, use{p.parseUse(), off})
	}
	p.next()
	if p.is("[") {
		p.failAt(p.tok.start, "block successors are not supported")
	}
	if p.is("<") {
		p.next()
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
		p.expect(">")
	}
	if p.is("(") {
		p.next()
		for {
			op.Regions = append(op.Regions, p.parseRegionBody(nil, false, op.Name))
			if !p.accept(",") {
				break
			}
		}
		p.expect(")")
	}
	if p.is("{") {
		op.Attrs = append(op.Attrs, p.parseAttrDict()...)
	}
	p.expect(":")
	fnOff := p.tok.start
	ft := p.parseFunctionType()
	if len(ft.Inputs) != len(uses) {
		p.failAt(fnOff, "%s has %d operands, but its type lists %d", op.Name, len(uses), len(ft.Inputs))
	}
	for i, u := range uses {
		p.checkType(u.v, ft.Inputs[i], u.off, valueName(u.v))
		op.Operands = append(op.Operands, u.v)
	}
	newResults(op, ft.Results)
}
