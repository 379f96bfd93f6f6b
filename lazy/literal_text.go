package lazy

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// Literal is a host tensor value (the hlo one), as held by Constant
// attributes and Go kernels.
type Literal = hlo.Literal

// DTypeByName returns the element type spelled name ("f32", "i64").
func DTypeByName(name string) (DType, bool) { return hlo.DTypeByName(name) }

// FormatLiteral prints l in the text form of graphs: `lit(f32[2], [1.5, 2.0])`,
// or the raw bytes in hex beyond 16 elements: `lit(f32[100], 0x...)`.
func FormatLiteral(l *Literal) string {
	var b strings.Builder
	b.WriteString("lit(" + l.ShapeString() + ", ")
	n := l.NumElements()
	if n > 16 {
		fmt.Fprintf(&b, "0x%X)", l.Data)
		return b.String()
	}
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(l.ElemString(i))
	}
	b.WriteString("])")
	return b.String()
}

// ParseLiteral reads FormatLiteral's form at the start of s and returns the
// literal and the number of bytes consumed.
func ParseLiteral(s string) (*Literal, int, error) {
	p := &litParser{s: s}
	l, err := p.literal()
	return l, p.pos, err
}

type litParser struct {
	s   string
	pos int
}

func (p *litParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *litParser) accept(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *litParser) errf(format string, args ...any) error {
	return fmt.Errorf("literal at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *litParser) span(chars string) string {
	p.space()
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte(chars, p.s[p.pos]) >= 0 {
		p.pos++
	}
	return p.s[start:p.pos]
}

const hexDigits = "0123456789abcdefABCDEF"

func (p *litParser) literal() (*Literal, error) {
	if !p.accept("lit(") {
		return nil, p.errf("expected lit(")
	}
	p.space()
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] != '[' {
		p.pos++
	}
	dt, ok := hlo.DTypeByName(p.s[start:p.pos])
	if !ok || p.pos >= len(p.s) {
		return nil, p.errf("unknown element type %q", p.s[start:p.pos])
	}
	p.pos++
	dims := []int64{}
	for !p.accept("]") {
		if len(dims) > 0 && !p.accept(",") {
			return nil, p.errf("expected ,")
		}
		d, err := strconv.ParseInt(p.span("0123456789"), 10, 64)
		if err != nil || d > 1<<24 {
			return nil, p.errf("bad dimension")
		}
		dims = append(dims, d)
	}
	if !p.accept(",") {
		return nil, p.errf("expected ,")
	}
	if n := hlo.NumElements(dims); checkDims(dt, dims) != nil || n > 1<<24 {
		return nil, p.errf("literal too large")
	}
	l := hlo.NewLiteral(dt, dims...)
	if p.accept("0x") {
		raw, err := hex.DecodeString(p.span(hexDigits))
		if err != nil || len(raw) != len(l.Data) {
			return nil, p.errf("a literal of %s needs %d bytes of hex", l.ShapeString(), len(l.Data))
		}
		copy(l.Data, raw)
	} else {
		if !p.accept("[") {
			return nil, p.errf("expected [")
		}
		for i := 0; i < l.NumElements(); i++ {
			if i > 0 && !p.accept(",") {
				return nil, p.errf("expected ,")
			}
			if err := p.elem(l, i); err != nil {
				return nil, err
			}
		}
		if !p.accept("]") {
			return nil, p.errf("expected ]")
		}
	}
	if !p.accept(")") {
		return nil, p.errf("expected )")
	}
	return l, nil
}

// elem parses one element as hlo.Literal.ElemString prints it.
func (p *litParser) elem(l *Literal, i int) error {
	dt := l.DType
	switch {
	case dt.IsComplex():
		if !p.accept("(") {
			return p.errf("expected (")
		}
		re, err := p.float(dt.ComplexPart())
		if err != nil {
			return err
		}
		if !p.accept(",") {
			return p.errf("expected ,")
		}
		im, err := p.float(dt.ComplexPart())
		if err != nil {
			return err
		}
		l.SetComplex(i, complex(re, im))
		if !p.accept(")") {
			return p.errf("expected )")
		}
	case dt.IsBool():
		switch {
		case p.accept("true"):
			l.SetInt(i, 1)
		case p.accept("false"):
			l.SetInt(i, 0)
		default:
			return p.errf("expected true or false")
		}
	case dt.IsFloat():
		if p.accept("0x") {
			bits, err := strconv.ParseUint(p.span(hexDigits), 16, 64)
			if err != nil {
				return p.errf("bad hex float")
			}
			l.SetBits(i, bits)
			return nil
		}
		f, err := p.float(dt)
		if err != nil {
			return err
		}
		l.SetFloat(i, f)
	case dt.IsUnsigned():
		v, err := strconv.ParseUint(p.span("0123456789"), 10, 64)
		if err != nil {
			return p.errf("bad unsigned integer")
		}
		l.SetBits(i, v)
	default:
		v, err := strconv.ParseInt(p.span("-0123456789"), 10, 64)
		if err != nil {
			return p.errf("bad integer")
		}
		l.SetInt(i, v)
	}
	return nil
}

func (p *litParser) float(dt DType) (float64, error) {
	if p.accept("0x") {
		bits, err := strconv.ParseUint(p.span(hexDigits), 16, 64)
		if err != nil {
			return 0, p.errf("bad hex float")
		}
		return hlo.FloatBitsToFloat64(dt, bits), nil
	}
	tok := p.span("+-0123456789.eE")
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		return 0, p.errf("bad float %q", tok)
	}
	return f, nil
}
