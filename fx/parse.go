package fx

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// ParseError is a syntax or reference error in graph text.
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return fmt.Sprintf("fx:%d:%d: %s", e.Line, e.Col, e.Msg) }

// Parse reads the text form printed by Graph.String. Capture placeholders
// come back without their tensors (Graph.Captures is nil).
func Parse(text string) (*Graph, error) {
	g := &Graph{}
	byName := map[string]*Node{}
	for i, line := range strings.Split(text, "\n") {
		p := &lineParser{s: line, line: i + 1}
		p.skipSpace()
		if p.eof() || p.peek() == '#' {
			continue
		}
		n, err := p.node(byName)
		if err != nil {
			return nil, err
		}
		if n.Kind != Output {
			if byName[n.Name] != nil {
				return nil, &ParseError{i + 1, 1, fmt.Sprintf("%%%s defined twice", n.Name)}
			}
			byName[n.Name] = n
		}
		if g.Output() != nil {
			return nil, &ParseError{i + 1, 1, "node after output"}
		}
		n.ID = len(g.Nodes)
		g.Nodes = append(g.Nodes, n)
	}
	if g.Output() == nil {
		return nil, &ParseError{len(strings.Split(text, "\n")), 1, "missing output(...) line"}
	}
	return g, nil
}

type lineParser struct {
	s    string
	pos  int
	line int
}

func (p *lineParser) eof() bool { return p.pos >= len(p.s) }
func (p *lineParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.pos]
}

func (p *lineParser) skipSpace() {
	for !p.eof() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *lineParser) errf(format string, args ...any) error {
	return &ParseError{p.line, p.pos + 1, fmt.Sprintf(format, args...)}
}

func (p *lineParser) expect(tok string) error {
	p.skipSpace()
	if !strings.HasPrefix(p.s[p.pos:], tok) {
		return p.errf("expected %q, found %q", tok, p.rest())
	}
	p.pos += len(tok)
	return nil
}

func (p *lineParser) accept(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *lineParser) rest() string {
	r := p.s[p.pos:]
	if len(r) > 20 {
		r = r[:20] + "..."
	}
	if r == "" {
		return "end of line"
	}
	return r
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *lineParser) ident() string {
	p.skipSpace()
	start := p.pos
	for !p.eof() && isIdent(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *lineParser) node(byName map[string]*Node) (*Node, error) {
	if p.accept("output(") {
		return p.output(byName)
	}
	if err := p.expect("%"); err != nil {
		return nil, err
	}
	n := &Node{Name: p.ident()}
	if n.Name == "" {
		return nil, p.errf("expected a node name")
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	shapes, err := p.shapes()
	if err != nil {
		return nil, err
	}
	n.Shapes = shapes
	if err := p.expect("="); err != nil {
		return nil, err
	}
	op := p.ident()
	if op == "placeholder" {
		n.Kind = Placeholder
		if err := p.expect("["); err != nil {
			return nil, err
		}
		switch k := p.ident(); k {
		case "arg":
			n.Input = Arg
		case "capture":
			n.Input = Capture
		default:
			return nil, p.errf("expected arg or capture, found %q", k)
		}
		p.skipSpace()
		at := p.pos
		idx, err := p.int()
		if err != nil {
			return nil, err
		}
		if idx < 0 || int64(int(idx)) != idx {
			p.pos = at // the error points at the index
			return nil, p.errf("placeholder index %d out of range", idx)
		}
		n.Index = int(idx)
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		if p.accept("sharding=") {
			if n.Sharding, err = p.sharding(); err != nil {
				return nil, err
			}
		}
		return n, p.trailer(n)
	}
	if op == "" {
		return nil, p.errf("expected an op name, found %q", p.rest())
	}
	n.Kind, n.Op = Call, lazy.LookupOp(op)
	if n.Op == nil {
		return nil, p.errf("unknown op %q", op)
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	for !p.accept(")") {
		if len(n.Args)+len(n.Attrs) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		p.skipSpace()
		if p.peek() == '%' {
			if len(n.Attrs) > 0 {
				return nil, p.errf("operand after attributes")
			}
			r, err := p.ref(byName)
			if err != nil {
				return nil, err
			}
			n.Args = append(n.Args, r)
			continue
		}
		key := p.ident()
		if key == "" {
			return nil, p.errf("expected an operand or key=value, found %q", p.rest())
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Attrs = append(n.Attrs, lazy.Attr{Key: key, Val: v})
	}
	return n, p.trailer(n)
}

func (p *lineParser) output(byName map[string]*Node) (*Node, error) {
	n := &Node{Name: "output", Kind: Output}
	for {
		p.skipSpace()
		if p.peek() != '%' {
			break
		}
		r, err := p.ref(byName)
		if err != nil {
			return nil, err
		}
		n.Args = append(n.Args, r)
		if !p.accept(",") {
			break
		}
	}
	if p.accept(";") {
		for {
			if err := p.expect("%"); err != nil {
				return nil, err
			}
			name := p.ident()
			t := byName[name]
			if t == nil || t.Kind != Placeholder {
				return nil, p.errf("mutation target %%%s is not a placeholder", name)
			}
			if err := p.expect("<-"); err != nil {
				return nil, err
			}
			p.skipSpace()
			r, err := p.ref(byName)
			if err != nil {
				return nil, err
			}
			n.Mutations = append(n.Mutations, Mutation{Target: t, Value: r})
			if !p.accept(",") {
				break
			}
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return n, p.trailer(n)
}

// trailer reads an optional "# device 1, site" comment.
func (p *lineParser) trailer(n *Node) error {
	p.skipSpace()
	if p.eof() {
		return nil
	}
	if p.peek() != '#' {
		return p.errf("unexpected %q", p.rest())
	}
	for _, part := range strings.Split(strings.TrimSpace(p.s[p.pos+1:]), ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == "host":
			n.Partition = -1
		case strings.HasPrefix(part, "device "):
			k, err := strconv.Atoi(strings.TrimPrefix(part, "device "))
			if err != nil {
				return p.errf("bad partition %q", part)
			}
			n.Partition = k
		default:
			n.Site = part
		}
	}
	p.pos = len(p.s)
	return nil
}

func (p *lineParser) ref(byName map[string]*Node) (Ref, error) {
	if err := p.expect("%"); err != nil {
		return Ref{}, err
	}
	name := p.ident()
	n := byName[name]
	if n == nil {
		return Ref{}, p.errf("undefined node %%%s", name)
	}
	idx := 0
	if !p.eof() && p.peek() == '#' {
		p.pos++
		k, err := p.int()
		if err != nil {
			return Ref{}, err
		}
		idx = int(k)
	}
	if idx < 0 || idx >= len(n.Shapes) {
		return Ref{}, p.errf("%%%s has no output %d", name, idx)
	}
	return Ref{n, idx}, nil
}

func (p *lineParser) int() (int64, error) {
	p.skipSpace()
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	for !p.eof() && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	v, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
	if err != nil {
		p.pos = start
		return 0, p.errf("expected an integer, found %q", p.rest())
	}
	return v, nil
}

func (p *lineParser) shapes() ([]lazy.Shape, error) {
	if p.accept("(") {
		var out []lazy.Shape
		for {
			s, err := p.shape()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			if !p.accept(",") {
				break
			}
		}
		return out, p.expect(")")
	}
	s, err := p.shape()
	return []lazy.Shape{s}, err
}

func (p *lineParser) dtype() (lazy.DType, error) {
	p.skipSpace()
	start := p.pos
	for !p.eof() && (isIdent(p.s[p.pos]) || p.s[p.pos] == '<' || p.s[p.pos] == '>') {
		p.pos++
	}
	dt, ok := lazy.DTypeByName(p.s[start:p.pos])
	if !ok {
		p.pos = start
		return 0, p.errf("expected an element type, found %q", p.rest())
	}
	return dt, nil
}

func (p *lineParser) shape() (lazy.Shape, error) {
	dt, err := p.dtype()
	if err != nil {
		return lazy.Shape{}, err
	}
	if err := p.expect("["); err != nil {
		return lazy.Shape{}, err
	}
	dims := []int64{}
	for !p.accept("]") {
		if len(dims) > 0 {
			if err := p.expect(","); err != nil {
				return lazy.Shape{}, err
			}
		}
		d, err := p.int()
		if err != nil {
			return lazy.Shape{}, err
		}
		dims = append(dims, d)
	}
	s, err := lazy.NewShapeE(dt, dims...)
	if err != nil {
		return lazy.Shape{}, p.errf("%v", err)
	}
	return s, nil
}

func (p *lineParser) value() (any, error) {
	p.skipSpace()
	switch {
	case p.accept("["):
		xs := []int64{}
		for !p.accept("]") {
			if len(xs) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			v, err := p.int()
			if err != nil {
				return nil, err
			}
			xs = append(xs, v)
		}
		return xs, nil
	case p.peek() == '"':
		start := p.pos
		p.pos++
		for !p.eof() && p.s[p.pos] != '"' {
			if p.s[p.pos] == '\\' {
				p.pos++
			}
			p.pos++
		}
		p.pos++
		if p.pos > len(p.s) {
			return nil, p.errf("unterminated string")
		}
		return strconv.Unquote(p.s[start:p.pos])
	case p.accept("dtype("):
		dt, err := p.dtype()
		if err != nil {
			return nil, err
		}
		return dt, p.expect(")")
	case p.accept("lit("):
		return p.literal()
	case p.accept("true"):
		return true, nil
	case p.accept("false"):
		return false, nil
	case p.accept("nan"):
		return math.NaN(), nil
	case p.accept("inf"):
		return math.Inf(1), nil
	case p.accept("-inf"):
		return math.Inf(-1), nil
	}
	start := p.pos
	for !p.eof() && strings.IndexByte("+-0123456789.eE", p.s[p.pos]) >= 0 {
		p.pos++
	}
	tok := p.s[start:p.pos]
	if strings.ContainsAny(tok, ".eE") {
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			p.pos = start
			return nil, p.errf("bad number %q", tok)
		}
		return f, nil
	}
	v, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		p.pos = start
		return nil, p.errf("expected a value, found %q", p.rest())
	}
	return v, nil
}

func (p *lineParser) literal() (*lazy.Literal, error) {
	l, n, err := lazy.ParseLiteral("lit(" + p.s[p.pos:])
	if err != nil {
		return nil, p.errf("%v", err)
	}
	p.pos += n - len("lit(")
	return l, nil
}

// sharding reads a sharding text: a brace-balanced "{...}".
func (p *lineParser) sharding() (*lazy.Sharding, error) {
	start, depth := p.pos, 0
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case '{':
			depth++
		case '}':
			depth--
		}
		p.pos++
		if depth == 0 {
			break
		}
	}
	if depth != 0 || p.pos == start {
		return nil, p.errf("expected a sharding {...}")
	}
	s, err := lazy.ParseSharding(p.s[start:p.pos])
	if err != nil {
		return nil, p.errf("%v", err)
	}
	return s, nil
}
