package hlo

import "bytes"

// The lexer works on the source bytes in place: a token is a kind and a
// byte range, so lexing allocates nothing. Sub-grammars that MLIR lexes
// specially (tensor shapes "2x3xf32", hex payloads, opaque attribute bodies)
// are scanned by the parser directly from the bytes.

type tokKind uint8

const (
	tEOF    tokKind = iota
	tBare           // foo, foo.bar, i32, x3xf32
	tValue          // %foo, %0 (without the #N suffix)
	tSymbol         // @foo, @"foo bar"
	tCaret          // ^bb0
	tHash           // #foo.bar, #stablehlo
	tBang           // !foo.bar
	tString         // "..."
	tInt            // 123, 0x1F
	tFloat          // 1.5, 1.5e-3
	tPunct          // ( ) [ ] { } < > , : = ? * + - -> :: |
	tBad            // a byte that starts no token, or an unterminated string
)

type token struct {
	kind       tokKind
	start, end int
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isBareStart and isBareChar follow MLIR's bare-id: (letter|_)(letter|digit|[_$.])*.
func isBareStart(c byte) bool { return isLetter(c) || c == '_' }
func isBareChar(c byte) bool  { return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.' }

// isSuffixChar is MLIR's suffix-id alphabet (value names, block labels).
func isSuffixChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.' || c == '-'
}

// skipSpace skips whitespace and // comments starting at pos.
func skipSpace(src []byte, pos int) int {
	for pos < len(src) {
		c := src[pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			pos++
		case c == '/' && pos+1 < len(src) && src[pos+1] == '/':
			nl := bytes.IndexByte(src[pos:], '\n')
			if nl < 0 {
				return len(src)
			}
			pos += nl + 1
		default:
			return pos
		}
	}
	return pos
}

// lexAt returns the token starting at or after pos.
func lexAt(src []byte, pos int) token {
	pos = skipSpace(src, pos)
	if pos >= len(src) {
		return token{tEOF, len(src), len(src)}
	}
	start := pos
	c := src[pos]
	switch {
	case isBareStart(c):
		pos++
		for pos < len(src) && isBareChar(src[pos]) {
			pos++
		}
		return token{tBare, start, pos}
	case isDigit(c):
		return lexNumber(src, pos)
	}
	switch c {
	case '%', '^':
		pos++
		for pos < len(src) && isSuffixChar(src[pos]) {
			pos++
		}
		if pos == start+1 {
			return token{tBad, start, pos}
		}
		if c == '%' {
			return token{tValue, start, pos}
		}
		return token{tCaret, start, pos}
	case '@':
		pos++
		if pos < len(src) && src[pos] == '"' {
			end, ok := scanString(src, pos)
			if !ok {
				return token{tBad, start, end}
			}
			return token{tSymbol, start, end}
		}
		for pos < len(src) && isSuffixChar(src[pos]) {
			pos++
		}
		if pos == start+1 {
			return token{tBad, start, pos}
		}
		return token{tSymbol, start, pos}
	case '#', '!':
		pos++
		for pos < len(src) && isSuffixChar(src[pos]) {
			pos++
		}
		if pos == start+1 {
			return token{tBad, start, pos}
		}
		if c == '#' {
			return token{tHash, start, pos}
		}
		return token{tBang, start, pos}
	case '"':
		end, ok := scanString(src, pos)
		if !ok {
			return token{tBad, start, end}
		}
		return token{tString, start, end}
	case '-':
		if pos+1 < len(src) && src[pos+1] == '>' {
			return token{tPunct, start, pos + 2}
		}
		return token{tPunct, start, pos + 1}
	case ':':
		if pos+1 < len(src) && src[pos+1] == ':' {
			return token{tPunct, start, pos + 2}
		}
		return token{tPunct, start, pos + 1}
	case '(', ')', '[', ']', '{', '}', '<', '>', ',', '=', '?', '*', '+', '|':
		return token{tPunct, start, pos + 1}
	}
	return token{tBad, start, pos + 1}
}

// lexNumber lexes an integer (decimal or 0x hex) or a float (digits '.'
// digits [eE [+-] digits]) starting at a digit.
func lexNumber(src []byte, pos int) token {
	start := pos
	if src[pos] == '0' && pos+2 < len(src) && src[pos+1] == 'x' && isHex(src[pos+2]) {
		pos += 2
		for pos < len(src) && isHex(src[pos]) {
			pos++
		}
		return token{tInt, start, pos}
	}
	for pos < len(src) && isDigit(src[pos]) {
		pos++
	}
	if pos >= len(src) || src[pos] != '.' {
		return token{tInt, start, pos}
	}
	pos++
	for pos < len(src) && isDigit(src[pos]) {
		pos++
	}
	if pos < len(src) && (src[pos] == 'e' || src[pos] == 'E') {
		q := pos + 1
		if q < len(src) && (src[q] == '+' || src[q] == '-') {
			q++
		}
		if q < len(src) && isDigit(src[q]) {
			for q < len(src) && isDigit(src[q]) {
				q++
			}
			pos = q
		}
	}
	return token{tFloat, start, pos}
}

// scanString returns the end of the string literal starting at the quote at
// pos, and whether it is terminated on the same line.
func scanString(src []byte, pos int) (int, bool) {
	pos++
	for pos < len(src) {
		switch src[pos] {
		case '"':
			return pos + 1, true
		case '\\':
			pos += 2
		case '\n':
			return pos, false
		default:
			pos++
		}
	}
	return len(src), false
}

// unquote decodes an MLIR string literal (with its quotes): \" \\ \n \t
// and two-digit hex escapes \XX.
func unquote(s []byte) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s), true
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case '"', '\\':
			out = append(out, s[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			if i+1 < len(s) && isHex(s[i]) && isHex(s[i+1]) {
				out = append(out, hexVal(s[i])<<4|hexVal(s[i+1]))
				i++
			} else {
				return "", false
			}
		}
	}
	return string(out), true
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// lineIndex converts byte offsets to 1-based line and column numbers. It
// scans forward from the last answer, so increasing offsets (the order the
// parser asks in) cost one pass over the source in total.
type lineIndex struct {
	src       []byte
	firstLine int
	off       int // offset of the start of line `line`
	line      int
}

func (x *lineIndex) pos(off int) (line, col int) {
	if off < x.off {
		x.off, x.line = 0, 0
	}
	if off > len(x.src) {
		off = len(x.src)
	}
	for {
		nl := bytes.IndexByte(x.src[x.off:off], '\n')
		if nl < 0 {
			break
		}
		x.off += nl + 1
		x.line++
	}
	return x.firstLine + x.line, off - x.off + 1
}
