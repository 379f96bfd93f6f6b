package main

import (
	"sort"
	"strings"

	"github.com/xlajit/xlajit/hlo/optable"
)

// FORMS.md: the table of pretty forms and the attribute names they fill.

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

func formsDoc(ops []optable.Op) string {
	var b strings.Builder
	b.WriteString(`# Pretty op forms and the attributes they fill

Generated from the op table (hlo/optable) by ` + "`go generate ./hlo`" + `
(cmd/hlogen); do not edit.

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
	for _, o := range ops {
		if o.Form == "" && o.HandSyntax == "" {
			continue
		}
		syntax, attrs := describeForm(o)
		if o.Spelled != "" {
			syntax = o.Spelled + " " + syntax
		}
		b.WriteString("| `" + o.Name + "` | `" + strings.ReplaceAll(syntax, "|", "\\|") + "` | " + attrs + " |\n")
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

// plainTokens are the format tokens that stand for fixed legend text.
var plainTokens = map[string]string{
	"$": "%x", "$$": "%xs", "$$,": "%xs,", "attrs": "{attrs}", "attrs-kw": "[attributes {attrs}]",
	"~": "", "[[": "[", "||": "|", "]]": "]",
}

// describeForm returns the legend-style syntax of o's form and the
// attributes it fills.
func describeForm(o optable.Op) (string, string) {
	if o.Form == "" {
		return "(hand-written, see below)", ""
	}
	var syn []string
	var attrs []string
	for _, t := range strings.Fields(o.Form) {
		if text, ok := plainTokens[t]; ok {
			if text != "" {
				syn = append(syn, text)
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "@"):
			spec, def, _ := strings.Cut(t[1:], "=")
			name, kind, _ := strings.Cut(spec, ":")
			syn = append(syn, "<"+name+">")
			d := attrKindDoc[kind]
			if enum, ok := strings.CutPrefix(kind, "enum."); ok {
				d = "EnumAttr{stablehlo, " + enum + ", V}"
			}
			if def != "" {
				d += ", default " + def
			}
			attrs = append(attrs, "`"+name+"`: "+d)
		case strings.HasPrefix(t, "!"):
			c := customDoc[t[1:]]
			syn = append(syn, c.syntax)
			attrs = append(attrs, c.attrs)
		case strings.HasPrefix(t, "T:"):
			syn = append(syn, "TYPES:"+t[2:])
		case len(t) == 2 && (t[0] == 't' || t[0] == 'r') && t[1] >= '0' && t[1] <= '9':
			syn = append(syn, "TYPES:"+t)
		default:
			syn = append(syn, t)
		}
	}
	s := strings.Join(syn, " ")
	for _, r := range []struct{ a, b string }{{" ,", ","}, {"[ ", "["}, {" ]", "]"}, {"( ", "("}, {" )", ")"}} {
		s = strings.ReplaceAll(s, r.a, r.b)
	}
	keys := make([]string, 0, len(o.Defaults))
	for k := range o.Defaults {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attrs = append(attrs, "`"+k+"` elided when `"+o.Defaults[k]+"`")
	}
	return s, strings.Join(attrs, "; ")
}
