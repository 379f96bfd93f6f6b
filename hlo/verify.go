package hlo

import (
	"fmt"
	"strings"
)

// VerifyError is one problem Verify found, at the location of the op (or
// function) it concerns.
type VerifyError struct {
	Loc  Loc
	Func string // enclosing function, without '@'
	Msg  string
}

func (e *VerifyError) Error() string {
	if e.Loc.Line == 0 && e.Loc.File == "" {
		return fmt.Sprintf("@%s: %s", e.Func, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Loc, e.Msg)
}

// VerifyErrors lists every problem of a module, in program order.
type VerifyErrors []*VerifyError

func (es VerifyErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Verify checks a module and returns nil or a VerifyErrors holding every
// problem found:
//   - SSA: every operand is defined before its use, in its block or an
//     enclosing one (regions may read values of enclosing regions, never of
//     other functions); results belong to their op;
//   - types: each StableHLO op's declared result types are compatible with
//     InferResultTypesFrom (dynamic dimensions match static ones; quantized
//     element types are compared by shape only), which also checks region
//     signatures and stablehlo.return types against what the op expects;
//   - terminators: function bodies end with func.return of the function's
//     result types, StableHLO regions with stablehlo.return, and neither
//     appears before the end of a block;
//   - func.call targets exist and match the callee's signature, as do
//     composite decompositions;
//   - sizes: the element count and byte size of every tensor type fit in
//     an int64 (CheckSize).
//
// Ops of other dialects (check.*, interpreter.*, chlo.*, ...) are checked
// for SSA structure only.
func Verify(m *Module) error {
	// args and res start non-nil: an op with no results declares an empty
	// list, which rules tell from "not declared" (nil).
	v := &verifier{m: m, funcs: map[string]*Func{}, args: make([]Type, 0, 4), res: make([]Type, 0, 4)}
	for _, f := range m.Funcs {
		if _, dup := v.funcs[f.Name]; dup {
			v.report(f.Loc, f.Name, "function @%s is defined twice", f.Name)
		}
		v.funcs[f.Name] = f
	}
	for _, f := range m.Funcs {
		v.fn(f)
	}
	if len(v.errs) == 0 {
		return nil
	}
	return v.errs
}

type verifier struct {
	m     *Module
	funcs map[string]*Func
	errs  VerifyErrors
	cur   *Func
	// ic, args and res are reused by types for every op (nested regions
	// are verified before their op's types).
	ic        inferCtx
	args, res []Type
}

func (v *verifier) report(loc Loc, fn string, format string, args ...any) {
	v.errs = append(v.errs, &VerifyError{Loc: loc, Func: fn, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) opErr(op *Op, format string, args ...any) {
	v.report(op.Loc, v.cur.Name, format, args...)
}

// regionKind says what terminates a region's blocks.
type regionKind int

const (
	funcBody    regionKind = iota // func.return
	hloRegion                     // stablehlo.return
	otherRegion                   // anything (ops of other dialects)
)

// scopes is the stack of value sets visible at a point.
type scopes []map[*Value]bool

func (s scopes) visible(x *Value) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i][x] {
			return true
		}
	}
	return false
}

func (v *verifier) fn(f *Func) {
	v.cur = f
	if f.Body == nil {
		return
	}
	if len(f.Body.Blocks) == 0 {
		v.report(f.Loc, f.Name, "function @%s has an empty body", f.Name)
		return
	}
	for i, a := range f.Args {
		if a != nil {
			if err := CheckTypeSize(a.Type); err != nil {
				v.report(f.Loc, f.Name, "function @%s argument #%d: %v", f.Name, i, err)
			}
		}
	}
	for i, t := range f.ResultTypes {
		if err := CheckTypeSize(t); err != nil {
			v.report(f.Loc, f.Name, "function @%s result #%d: %v", f.Name, i, err)
		}
	}
	entry := f.Body.Blocks[0]
	if len(entry.Args) != len(f.Args) {
		v.report(f.Loc, f.Name, "function @%s has %d arguments but its entry block takes %d", f.Name, len(f.Args), len(entry.Args))
	}
	v.region(f.Body, scopes{}, funcBody)
}

func (v *verifier) region(r *Region, outer scopes, kind regionKind) {
	for _, b := range r.Blocks {
		local := make(map[*Value]bool, len(b.Args)+len(b.Ops))
		for i, a := range b.Args {
			if a == nil || a.Type == nil {
				v.report(Loc{}, v.cur.Name, "block argument #%d has no type", i)
				continue
			}
			local[a] = true
			if err := CheckTypeSize(a.Type); err != nil {
				v.report(Loc{}, v.cur.Name, "block argument #%d: %v", i, err)
			}
		}
		v.block(b, append(outer, local), kind)
	}
}

func isTerminator(name string) bool { return name == "func.return" || name == "stablehlo.return" }

func (v *verifier) block(b *Block, sc scopes, kind regionKind) {
	local := sc[len(sc)-1]
	for i, op := range b.Ops {
		last := i == len(b.Ops)-1
		ok := true
		for j, x := range op.Operands {
			switch {
			case x == nil:
				v.opErr(op, "%s: operand #%d is missing", op.Name, j)
				ok = false
			case !sc.visible(x):
				v.opErr(op, "%s: operand #%d %s is used before its definition or outside its scope", op.Name, j, describeValue(x))
				ok = false
			}
		}
		if isTerminator(op.Name) && !last {
			v.opErr(op, "%s must be the last op of its block", op.Name)
		}
		sub := otherRegion
		if op.Dialect() == "stablehlo" {
			sub = hloRegion
		}
		for _, r := range op.Regions {
			if r != nil {
				v.region(r, sc, sub)
			}
		}
		for j, res := range op.Results {
			if res == nil || res.Type == nil {
				v.opErr(op, "%s: result #%d has no type", op.Name, j)
				ok = false
				continue
			}
			if res.Def != op || res.Index != j {
				v.opErr(op, "%s: result #%d %s belongs to another op", op.Name, j, describeValue(res))
			}
			if local[res] || sc.visible(res) {
				v.opErr(op, "%s: result %s is defined twice", op.Name, describeValue(res))
			}
			local[res] = true
			if err := CheckTypeSize(res.Type); err != nil {
				v.opErr(op, "%s: result #%d: %v", op.Name, j, err)
				ok = false
			}
		}
		if ok {
			v.types(op, kind)
		}
	}
	v.terminator(b, kind)
}

// terminator checks how a block ends.
func (v *verifier) terminator(b *Block, kind regionKind) {
	var last *Op
	if len(b.Ops) > 0 {
		last = b.Ops[len(b.Ops)-1]
	}
	switch kind {
	case funcBody:
		if last == nil || last.Name != "func.return" {
			name := "nothing"
			loc := v.cur.Loc
			if last != nil {
				name, loc = last.Name, last.Loc
			}
			v.report(loc, v.cur.Name, "function @%s ends with %s, want func.return", v.cur.Name, name)
		}
	case hloRegion:
		if last == nil || last.Name != "stablehlo.return" {
			name := "nothing"
			loc := v.cur.Loc
			if last != nil {
				name, loc = last.Name, last.Loc
			}
			v.report(loc, v.cur.Name, "region of a stablehlo op ends with %s, want stablehlo.return", name)
		}
	}
}

func describeValue(x *Value) string {
	if x.Name != "" {
		return "%" + x.Name
	}
	if x.Def != nil {
		return fmt.Sprintf("(result #%d of %s)", x.Index, x.Def.Name)
	}
	return fmt.Sprintf("(block argument #%d)", x.Index)
}

// typesInto appends the types of xs to dst.
func typesInto(dst []Type, xs []*Value) []Type {
	for _, x := range xs {
		dst = append(dst, x.Type)
	}
	return dst
}

func valueTypes(xs []*Value) []Type {
	ts := make([]Type, len(xs))
	for i, x := range xs {
		ts[i] = x.Type
	}
	return ts
}

// types checks one op whose operands are all defined.
func (v *verifier) types(op *Op, kind regionKind) {
	switch op.Name {
	case "func.return":
		if kind != funcBody {
			v.opErr(op, "func.return outside a function body")
			return
		}
		got := valueTypes(op.Operands)
		if !typesCompatibleList(got, v.cur.ResultTypes) {
			v.opErr(op, "func.return types (%s) differ from the result types (%s) of @%s", typeList(got), typeList(v.cur.ResultTypes), v.cur.Name)
		}
		return
	case "stablehlo.return":
		if kind == funcBody {
			v.opErr(op, "stablehlo.return outside the region of a stablehlo op")
		}
		return
	case "func.call":
		v.call(op)
	case "stablehlo.composite":
		v.composite(op)
	case "stablehlo.custom_call":
		v.calledComputations(op)
	}
	if op.Dialect() != "stablehlo" && op.Name != "func.call" {
		return
	}
	declared := typesInto(v.res[:0], op.Results)
	v.res = declared
	operands := typesInto(v.args[:0], op.Operands)
	v.args = operands
	got, err := inferWith(&v.ic, op.Name, operands, op.Attrs, op.Regions, declared)
	if err != nil {
		v.opErr(op, "%v", err)
		return
	}
	if len(got) != len(declared) {
		v.opErr(op, "%s: op has %d results, want %d (%s)", op.Name, len(declared), len(got), typeList(got))
		return
	}
	for i := range got {
		if !TypesCompatible(declared[i], got[i]) {
			v.opErr(op, "%s: result #%d has type %s, inferred %s from operands (%s)", op.Name, i, declared[i], got[i], typeList(valueTypes(op.Operands)))
		}
	}
}

// symbol resolves a flat symbol reference attribute to a function.
func (v *verifier) symbol(op *Op, attr string) *Func {
	ref, ok := op.Attr(attr).(SymbolRefAttr)
	if !ok {
		return nil
	}
	f := v.funcs[ref.Name]
	if f == nil || len(ref.Nested) > 0 {
		v.opErr(op, "%s: %s @%s is not a function of this module", op.Name, attr, ref.Name)
		return nil
	}
	return f
}

// checkSignature compares an op's operands and results with a function's.
func (v *verifier) checkSignature(op *Op, f *Func, what string) {
	args := valueTypes(op.Operands)
	if !typesCompatibleList(args, f.ArgTypes()) {
		v.opErr(op, "%s: operand types (%s) do not match the arguments (%s) of %s @%s", op.Name, typeList(args), typeList(f.ArgTypes()), what, f.Name)
	}
	res := valueTypes(op.Results)
	if !typesCompatibleList(res, f.ResultTypes) {
		v.opErr(op, "%s: result types (%s) do not match the results (%s) of %s @%s", op.Name, typeList(res), typeList(f.ResultTypes), what, f.Name)
	}
}

func (v *verifier) call(op *Op) {
	if f := v.symbol(op, "callee"); f != nil {
		v.checkSignature(op, f, "callee")
	}
}

func (v *verifier) composite(op *Op) {
	if f := v.symbol(op, "decomposition"); f != nil {
		v.checkSignature(op, f, "decomposition")
	}
}

// calledComputations checks that a custom call's called_computations name
// functions of the module.
func (v *verifier) calledComputations(op *Op) {
	arr, _ := op.Attr("called_computations").(ArrayAttr)
	for _, a := range arr {
		ref, ok := a.(SymbolRefAttr)
		if ok && v.funcs[ref.Name] == nil {
			v.opErr(op, "%s: called computation @%s is not a function of this module", op.Name, ref.Name)
		}
	}
}
