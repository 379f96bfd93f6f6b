package conform

import (
	"strings"
)

// Test functions. A chunk with an entry (its only function, or @main) is
// one case. A chunk with several functions and no @main is IREE's layout:
// every public function is a test and runs as its own case, the function
// becoming the entry. The functions are found in the text before parsing
// (funcItems) so that the runner can make one job per function, and so
// that a function that does not parse fails alone: the others are parsed
// with it blanked out (parseWithout).

// funcItem is one top-level func.func of a chunk's text.
type funcItem struct {
	name       string
	visibility string // "", "public", "private" or "nested"
	start, end int    // byte range of the whole definition
	line       int    // line of `func.func` within the text, from 0
	hasBody    bool
}

// public reports whether IREE's runners would call the function: a public
// definition whose name does not mark it internal.
func (f funcItem) public() bool {
	return f.hasBody && (f.visibility == "" || f.visibility == "public") &&
		!strings.HasPrefix(f.name, "__") && !strings.Contains(f.name, "$")
}

// funcItems finds the func.func definitions of text that are not nested in
// another function, skipping comments and strings.
func funcItems(text string) []funcItem {
	var out []funcItem
	cur := -1     // index in out of the function being scanned, or -1
	braces := 0   // brace depth inside the current function
	parens := 0   // paren depth inside the current function's signature
	body := false // inside the current function's body
	lastWord := ""
	line := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			line++
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i--
			continue
		case c == '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				} else if text[i] == '\n' {
					line++
				}
			}
			lastWord = "\""
			continue
		case isWordByte(c) || c == '.':
			j := i
			for j < len(text) && (isWordByte(text[j]) || text[j] == '.') {
				j++
			}
			w := text[i:j]
			i = j - 1
			if w == "func.func" && (cur < 0 || !body && parens == 0) && (i+1-len(w) == 0 || !isWordByte(text[i-len(w)])) {
				if cur >= 0 {
					out[cur].end = i + 1 - len(w) // a declaration without body ends here
				}
				out = append(out, funcItem{start: i + 1 - len(w), end: len(text), line: line})
				cur = len(out) - 1
				braces, parens, body = 0, 0, false
				readFuncHeader(text[i+1:], &out[cur])
			}
			lastWord = w
			continue
		case cur < 0:
		case c == '(':
			parens++
		case c == ')':
			parens--
		case c == '{':
			if !body && parens == 0 && braces == 0 && lastWord != "attributes" {
				body = true
				out[cur].hasBody = true
			}
			braces++
		case c == '}' && braces == 0:
			// The enclosing module closes after a declaration.
			out[cur].end = i
			cur = -1
		case c == '}':
			braces--
			if body && braces == 0 {
				out[cur].end = i + 1
				cur = -1
			}
		}
		if c != ' ' && c != '\t' && c != '\r' {
			lastWord = string(c)
		}
	}
	return out
}

// readFuncHeader reads `[visibility] @name` after `func.func`.
func readFuncHeader(s string, f *funcItem) {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, v := range []string{"public", "private", "nested"} {
		if strings.HasPrefix(s, v) && len(s) > len(v) && !isWordByte(s[len(v)]) {
			f.visibility = v
			s = strings.TrimLeft(s[len(v):], " \t\r\n")
			break
		}
	}
	if !strings.HasPrefix(s, "@") {
		return
	}
	s = s[1:]
	if strings.HasPrefix(s, "\"") {
		if j := strings.IndexByte(s[1:], '"'); j >= 0 {
			f.name = s[1 : j+1]
		}
		return
	}
	j := 0
	for j < len(s) && (isWordByte(s[j]) || s[j] == '.' || s[j] == '$') {
		j++
	}
	f.name = s[:j]
}

// blank replaces text[start:end] by spaces, keeping newlines so that
// positions stay those of the file.
func blank(text string, start, end int) string {
	b := []byte(text)
	for i := start; i < end; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// testFuncs reports whether a chunk's cases are its functions (no @main
// and more than one function) and, if so, the test functions.
func testFuncs(items []funcItem) ([]funcItem, bool) {
	if len(items) <= 1 {
		return nil, false
	}
	for _, f := range items {
		if f.name == "main" {
			return nil, false
		}
	}
	var out []funcItem
	for _, f := range items {
		if f.public() {
			out = append(out, f)
		}
	}
	return out, len(out) > 0
}
