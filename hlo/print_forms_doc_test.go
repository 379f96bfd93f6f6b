package hlo

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// TestFormsDoc keeps FORMS.md (the table of pretty forms and the attribute
// names they fill) in sync with the format table; -update regenerates it.
func TestFormsDoc(t *testing.T) {
	got := formsDoc()
	if *update {
		if err := os.WriteFile("FORMS.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("FORMS.md")
	if err != nil {
		t.Fatalf("%v (run go test -run TestFormsDoc -update)", err)
	}
	if string(want) != got {
		t.Errorf("FORMS.md is stale (run go test -run TestFormsDoc -update):\n%s", firstDiff(string(want), got))
	}
}

var attrKindDoc = map[string]string{
	"i64":      "IntAttr (i64)",
	"i32":      "IntAttr (i32)",
	"ui64":     "IntAttr (ui64)",
	"ui32":     "IntAttr (ui32)",
	"bool":     "BoolAttr",
	"str":      "StringAttr",
	"f64":      "FloatAttr (f64)",
	"arr":      "*DenseArrayAttr (i64)",
	"elements": "*DenseElementsAttr",
	"symref":   "SymbolRefAttr",
}

var customDoc = map[string]struct{ syntax, attrs string }{
	"slice":      {"[start:limit(:stride)?, ...]", "`start_indices`, `limit_indices`, `strides`: *DenseArrayAttr (i64); stride 1 when omitted"},
	"convdims":   {"[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "`dimension_numbers`: *ConvDimsAttr"},
	"window":     {"stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..], reverse = [0|1, ..]", "`window_strides`, `lhs_dilation`, `rhs_dilation`: *DenseArrayAttr (i64); `padding`: *DenseElementsAttr i64 Nx2; `window_reversal`: *DenseArrayAttr (i1); each only when given"},
	"precision":  {"[, precision = [DEFAULT, HIGH, ...]]", "`precision_config`: ArrayAttr of EnumAttr{stablehlo, precision, V}"},
	"precalg":    {"[, precision = [..]][, algorithm = <...>]", "`precision_config` as for dot; `algorithm`: OpaqueAttr `#stablehlo.dot_algorithm<...>`"},
	"dotdims":    {"[batching_dims = [..] x [..], ]contracting_dims = [..] x [..]", "`dot_dimension_numbers`: *DotDimsAttr"},
	"expman":     {"eEmM", "`exponent_bits`, `mantissa_bits`: IntAttr (i32)"},
	"calltarget": {"@target or @\"quoted-target\"", "`call_target_name`: StringAttr"},
}

func formsDoc() string {
	var b strings.Builder
	b.WriteString(`# Pretty op forms and the attributes they fill

Generated from the format table in parse_forms.go by
` + "`go test -run TestFormsDoc -update ./hlo`" + `; do not edit.

The parser stores every attribute under its MLIR (generic form) name,
whichever form the source used, so executors can read ` + "`op.Attr(name)`" + `
without caring about syntax. Enum values written bare in pretty forms
(` + "`GT`, `FLOAT`, `DEFAULT`" + `) become ` + "`EnumAttr{Dialect: \"stablehlo\", Kind, Value}`" + `,
exactly as ` + "`#stablehlo<comparison_direction GT>`" + ` would. Integer attributes
carry their type as a rank-0 tensor type tag (nil for i64, the MLIR
default); floats likewise (nil for f64).

Syntax legend: ` + "`%x`" + ` one operand, ` + "`%xs`" + ` the remaining operands
(comma separated), ` + "`%xs,`" + ` the remaining operands each followed by a comma,
` + "`<name>`" + ` an attribute, ` + "`[...]`" + ` an optional group (` + "`|`" + ` its
alternative), ` + "`{attrs}`" + ` the dictionary of the other attributes, ` + "`TYPES`" + `
a type directive (see the end). Ops without a pretty form print in the
generic form ` + "`\"name\"(%a) <{props}> ({regions}) {attrs} : (T) -> T`" + `.

| op | pretty form | attributes |
| --- | --- | --- |
`)
	names := make([]string, 0, len(formTable))
	for n := range formTable {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := formTable[n]
		syntax, attrs := describeForm(f)
		if sp, ok := spelledAs[n]; ok {
			syntax = sp + " " + syntax
		}
		b.WriteString("| `" + n + "` | `" + strings.ReplaceAll(syntax, "|", "\\|") + "` | " + attrs + " |\n")
	}
	b.WriteString(`
Hand-written forms:

- ` + "`stablehlo.constant {attrs} dense<...> : T`" + `: ` + "`value`" + ` (*DenseElementsAttr); when
  the value type is not the result type (quantized constants) MLIR prints
  ` + "`stablehlo.constant() <{value = ...}> : () -> T`" + `.
- ` + "`stablehlo.while(%iterArg = %init, ...) : T, ... [attributes {..}] cond {..} do {..}`" + `:
  no attributes of its own; both regions take the iteration arguments.
- ` + "`stablehlo.reduce(%in init: %init), ... applies stablehlo.add across dimensions = [..] {attrs} : (T..) -> T..`" + `
  or ` + "`... across dimensions = [..] : (..) -> (..) reducer(%a: T, %b: T) (%c: T, %d: T) {..}`" + `:
  ` + "`dimensions`" + ` (*DenseArrayAttr i64); the compact form builds the region
  ` + "`^bb0(%a, %b): %r = stablehlo.add %a, %b; stablehlo.return %r`" + `.
- ` + "`chlo.scan(%in) inits (%init) dimension=N [attributes {..}] {region} : (..) -> (..)`" + `:
  ` + "`dimension`" + ` (IntAttr i64), ` + "`operandSegmentSizes`, `resultSegmentSizes`" + `
  (*DenseArrayAttr i32).
- ` + "`util.unfoldable_constant {attrs} V`, `arith.constant {attrs} V`" + `: ` + "`value`" + `, a
  *DenseElementsAttr (the result has its type) or a typed scalar such as
  ` + "`1 : i32`" + ` (IntAttr, FloatAttr, BoolAttr; the result is that scalar type, an
  OpaqueType).
- IREE's check ops are written ` + "`check.NAME(...)`" + ` (operands in parentheses
  right after the name) and parsed as ` + "`iree_check.NAME`" + `, apart from StableHLO's
  check ops of the same names; the printer writes them as they were spelled
  (the table shows the spelling before the form).
- ` + "`return`/`call`" + ` without a dialect are ` + "`func.return`/`func.call`" + `.

Type directives: ` + "`same`" + ` one type for all operands and the result, or a
function type when they differ; ` + "`fn`" + ` a function type; ` + "`complex`" + ` the complex
result type (operands are its real parts) or a function type; ` + "`select`" + `
` + "`pred_type, result_type`" + ` or a function type; ` + "`tuple`" + ` the tuple result type;
` + "`pairwise`" + ` the operand types, equal to the result types; ` + "`results`/`operands`" + `
a type list; ` + "`alltypes`" + ` one type for every operand; ` + "`same1`" + ` the type of the
single operand and result; ` + "`valuetype`" + ` nothing (the value attribute's type is
the result type); ` + "`tN`/`rN`" + ` the type of operand/result N.
`)
	return b.String()
}

func describeForm(f *opForm) (string, string) {
	if f.elems == nil {
		return "(hand-written, see below)", ""
	}
	var syn []string
	var attrs []string
	var walk func(es []felem)
	walk = func(es []felem) {
		for _, e := range es {
			switch e.kind {
			case fLit:
				syn = append(syn, e.text)
			case fOperand:
				syn = append(syn, "%x")
			case fOperands:
				syn = append(syn, "%xs")
			case fOperandsComma:
				syn = append(syn, "%xs,")
			case fAttr:
				syn = append(syn, "<"+e.attr+">")
				d := attrKindDoc[e.akind]
				if e.akind == "enum" {
					d = "EnumAttr{stablehlo, " + e.enumKind + ", V}"
				}
				if e.def != "" {
					d += ", default " + e.def
				}
				attrs = append(attrs, "`"+e.attr+"`: "+d)
			case fAttrDict:
				syn = append(syn, "{attrs}")
			case fAttrDictKw:
				syn = append(syn, "[attributes {attrs}]")
			case fNoSpace:
			case fCustom:
				c := customDoc[e.text]
				syn = append(syn, c.syntax)
				attrs = append(attrs, c.attrs)
			case fType:
				t := strings.TrimPrefix(e.text, "T:")
				syn = append(syn, "TYPES:"+t)
			case fGroup:
				syn = append(syn, "[")
				walk(e.group)
				if e.alt != nil {
					syn = append(syn, "|")
					walk(e.alt)
				}
				syn = append(syn, "]")
			}
		}
	}
	walk(f.elems)
	s := strings.Join(syn, " ")
	for _, r := range []struct{ a, b string }{{" ,", ","}, {"[ ", "["}, {" ]", "]"}, {"( ", "("}, {" )", ")"}} {
		s = strings.ReplaceAll(s, r.a, r.b)
	}
	if len(f.defaults) > 0 {
		keys := make([]string, 0, len(f.defaults))
		for k := range f.defaults {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			attrs = append(attrs, "`"+k+"` elided when `"+f.defaults[k]+"`")
		}
	}
	return s, strings.Join(attrs, "; ")
}
