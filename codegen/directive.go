package codegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"strings"
	"unicode"

	"github.com/xlajit/xlajit/codegen/gentrace"
)

// DirectivePrefix starts every xlajit comment directive.
const DirectivePrefix = "//xlajit:"

// TraceDirective marks a function for ahead-of-time tracing.
const TraceDirective = DirectivePrefix + "trace"

// ParamShape is one item of a directive: NAME=SHAPE for a tensor
// parameter, or NAME=CALL for any parameter, a Go call expression of the
// package giving an example value (a model from its constructor).
type ParamShape struct {
	Name  string
	Shape string // as written, validated by gentrace.ParseShape; or the call
	Expr  bool   // Shape is a Go call expression
}

// ParseShapes reads the items of a trace directive (the text after
// //xlajit:trace, or the -shapes flag of xlajit dump): NAME=DTYPE[D0,...]
// or NAME=CALL(...) separated by spaces; spaces inside brackets and
// parentheses are allowed.
func ParseShapes(text string) ([]ParamShape, error) {
	var out []ParamShape
	for _, item := range splitItems(text) {
		name, shape, ok := strings.Cut(item, "=")
		if !ok || !isIdent(name) || shape == "" {
			return nil, fmt.Errorf("bad item %q (want NAME=DTYPE[D0,D1,...], e.g. x=f32[64,784], or NAME=CALL(), e.g. m=newModel())", item)
		}
		if strings.HasSuffix(shape, ")") {
			e, err := parser.ParseExpr(shape)
			if _, call := e.(*ast.CallExpr); err != nil || !call {
				return nil, fmt.Errorf("%s: %q is not a Go call expression", name, shape)
			}
			out = append(out, ParamShape{Name: name, Shape: shape, Expr: true})
			continue
		}
		shape, err := squeeze(shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if _, err := gentrace.ParseShape(shape); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, ParamShape{Name: name, Shape: shape})
	}
	return out, nil
}

// squeeze drops the spaces of a shape, which may stand around brackets
// and commas but not inside a word or number: "f32[64 784]" is a missing
// comma, not f32[64784].
func squeeze(shape string) (string, error) {
	notWord := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }
	fields := strings.Fields(shape)
	for i := 1; i < len(fields); i++ {
		before := fields[i-1][strings.LastIndexFunc(fields[i-1], notWord)+1:]
		after := fields[i]
		if k := strings.IndexFunc(after, notWord); k >= 0 {
			after = after[:k]
		}
		if before != "" && after != "" {
			return "", fmt.Errorf("shape %q: a space inside %q (separate dimensions with commas)", shape, before+" "+after)
		}
	}
	return strings.Join(fields, ""), nil
}

// splitItems splits at spaces outside brackets.
func splitItems(s string) []string {
	var items []string
	var cur strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[' || r == '(':
			depth++
		case r == ']' || r == ')':
			depth--
		case unicode.IsSpace(r) && depth <= 0:
			if cur.Len() > 0 {
				items = append(items, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		items = append(items, cur.String())
	}
	return items
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// matchParams orders the items by the function's parameters: every
// parameter needs exactly one item, and every item a parameter.
func matchParams(params []string, items []ParamShape) ([]ParamShape, error) {
	byName := map[string]ParamShape{}
	for _, it := range items {
		if _, dup := byName[it.Name]; dup {
			return nil, fmt.Errorf("parameter %s is given twice", it.Name)
		}
		byName[it.Name] = it
		found := false
		for _, p := range params {
			found = found || p == it.Name
		}
		if !found {
			have := "none"
			if len(params) > 0 {
				have = strings.Join(params, ", ")
			}
			return nil, fmt.Errorf("no parameter %s (parameters: %s)", it.Name, have)
		}
	}
	shapes := make([]ParamShape, len(params))
	var missing []string
	for i, p := range params {
		s, ok := byName[p]
		if !ok {
			missing = append(missing, p)
		}
		shapes[i] = s
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no shape for parameter %s (add %s=DTYPE[D0,...])", strings.Join(missing, ", "), missing[0])
	}
	return shapes, nil
}
