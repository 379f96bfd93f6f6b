package conform

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// ParseArgs reads an argument list in the reference interpreter's --args
// syntax: `[dense<1> : tensor<2xi32>, dense<[1, 2]> : tensor<2xi64>]` (the
// brackets may be left out). Each element is an MLIR dense literal with its
// type; the hlo parser reads them as the values of constant ops.
func ParseArgs(s string) ([]*hlo.Literal, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	elems := splitTop(s, ',')
	if len(elems) == 0 {
		return nil, nil
	}
	var src strings.Builder
	var types []string
	for i, e := range elems {
		e = strings.TrimSpace(e)
		colon := splitTop(e, ':')
		if len(colon) != 2 || !strings.HasPrefix(strings.TrimSpace(colon[0]), "dense<") {
			return nil, fmt.Errorf("--args element %d: want `dense<...> : tensor<...>`, got %q", i, e)
		}
		types = append(types, strings.TrimSpace(colon[1]))
		fmt.Fprintf(&src, "  %%a%d = stablehlo.constant %s\n", i, e)
	}
	text := "func.func @args() -> (" + strings.Join(types, ", ") + ") {\n" + src.String() + "  return"
	for i := range elems {
		if i > 0 {
			text += ","
		}
		text += fmt.Sprintf(" %%a%d", i)
	}
	text += " : " + strings.Join(types, ", ") + "\n}\n"
	m, err := parseChunk("--args", text, 1)
	if err != nil {
		return nil, fmt.Errorf("--args: %w", err)
	}
	var out []*hlo.Literal
	for _, op := range m.Funcs[0].Body.Blocks[0].Ops {
		if op.Name != "stablehlo.constant" {
			continue
		}
		d, ok := op.Attr("value").(*hlo.DenseElementsAttr)
		if !ok {
			return nil, fmt.Errorf("--args element %d: not a dense literal", len(out))
		}
		lit, err := argLiteral(d)
		if err != nil {
			return nil, fmt.Errorf("--args element %d: %w", len(out), err)
		}
		out = append(out, lit)
	}
	return out, nil
}

// argLiteral returns an argument's elements; a splat (kept compact by the
// parser) is expanded only when it fits the embedded device's memory limit.
func argLiteral(d *hlo.DenseElementsAttr) (*hlo.Literal, error) {
	if d.Splat != nil && d.Type != nil {
		limit, err := host.MemoryLimit()
		if err != nil {
			return nil, err
		}
		if n, ok := hlo.ByteSize(d.Splat.DType, d.Type.Dims); !ok || n > limit {
			return nil, &pjrt.OutOfMemoryError{Op: "splat argument", Shape: d.Type.ShapeString(), Bytes: n, Limit: limit, Setting: host.MemoryLimitEnv + " sets the limit"}
		}
	}
	return d.Literal()
}

// splitTop splits s at sep where it is not nested in (), [], <>, {} or a
// string.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '(' || c == '[' || c == '<' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '>' || c == '}':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" || len(out) > 0 {
		out = append(out, s[start:])
	}
	return out
}
