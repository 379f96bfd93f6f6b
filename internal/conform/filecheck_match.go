package conform

import (
	"fmt"
	"strconv"
	"strings"
)

// FileCheck directives and their matching. The subset: CHECK, CHECK-NEXT,
// CHECK-SAME, CHECK-EMPTY, CHECK-NOT, CHECK-LABEL and CHECK-COUNT-n
// (n CHECKs), each optionally {LITERAL}, with plain-text patterns and
// FileCheck's whitespace rule (runs of spaces and tabs compare as one
// space). CHECK-DAG, regex {{...}} and variables [[...]] are outside it.

// directive is one directive line.
type directive struct {
	kind    string // "", "NEXT", "SAME", "EMPTY", "NOT" or "LABEL"
	pattern string // whitespace-canonical
	line    int    // in the file
	text    string // as written, for messages
}

// directives extracts the directives of prefixes from text, in order.
func directives(text string, first int, prefixes []string) ([]directive, error) {
	var out []directive
	positive := false
	for n, line := range strings.Split(text, "\n") {
		ds, err := lineDirective(line, prefixes)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", first+n, err)
		}
		for _, d := range ds {
			d.line = first + n
			switch d.kind {
			case "NEXT", "SAME", "EMPTY":
				if !positive {
					return nil, fmt.Errorf("line %d: %s comes before any CHECK", d.line, d.text)
				}
			case "":
				positive = true
			case "LABEL":
				positive = true
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// lineDirective finds the first directive of a line: a prefix at a word
// start followed by ":" or "-KIND:" (either with {LITERAL} before the
// colon). A prefix followed by a suffix FileCheck knows but the subset
// lacks is an error; one followed by anything else is not a directive
// (CHECK-DENSE: is no CHECK directive). CHECK-COUNT-n gives n directives.
func lineDirective(line string, prefixes []string) ([]directive, error) {
	var d directive
	count := 1
	best := -1
	for _, p := range prefixes {
		for from := 0; ; {
			i := strings.Index(line[from:], p)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(p)
			if at > 0 && isWordByte(line[at-1]) {
				continue
			}
			rest := line[at+len(p):]
			kind, n, literal, body, known := directiveSuffix(rest)
			if !known {
				continue
			}
			if best >= 0 && at >= best {
				break
			}
			switch kind {
			case "", "NEXT", "SAME", "EMPTY", "NOT", "LABEL", "COUNT":
			default:
				return nil, fmt.Errorf("%s-%s is outside the supported FileCheck subset (CHECK, -NEXT, -SAME, -EMPTY, -NOT, -LABEL, -COUNT)", p, kind)
			}
			pat := strings.TrimSpace(body)
			switch {
			case kind == "EMPTY" && pat != "":
				return nil, fmt.Errorf("%s has a pattern; CHECK-EMPTY takes none", strings.TrimSpace(line[at:]))
			case kind != "EMPTY" && pat == "":
				return nil, fmt.Errorf("%s has an empty pattern", strings.TrimSpace(line[at:]))
			case kind == "COUNT" && n < 1:
				return nil, fmt.Errorf("%s needs a positive count", strings.TrimSpace(line[at:]))
			case !literal && (strings.Contains(pat, "{{") || strings.Contains(pat, "[[")):
				return nil, fmt.Errorf("%q uses FileCheck regex or variable syntax, outside the supported subset", pat)
			}
			best = at
			count = 1
			if kind == "COUNT" {
				kind, count = "", n
			}
			d = directive{kind: kind, pattern: canonicalSpace(pat), text: strings.TrimSpace(line[at:])}
			break
		}
	}
	if best < 0 {
		return nil, nil
	}
	out := make([]directive, count)
	for i := range out {
		out[i] = d
	}
	return out, nil
}

// directiveSuffix reads what follows a prefix: kind "" for a plain check,
// or a FileCheck suffix (n is COUNT's number); body is the text after the
// colon.
func directiveSuffix(rest string) (kind string, n int, literal bool, body string, known bool) {
	if r, ok := strings.CutPrefix(rest, "{LITERAL}"); ok {
		rest, literal = r, true
	}
	if strings.HasPrefix(rest, ":") {
		return "", 0, literal, rest[1:], true
	}
	if !strings.HasPrefix(rest, "-") {
		return "", 0, false, "", false
	}
	for _, k := range []string{"NEXT", "SAME", "NOT", "DAG", "LABEL", "EMPTY", "COUNT"} {
		s := rest[1:]
		if !strings.HasPrefix(s, k) {
			continue
		}
		s = s[len(k):]
		if k == "COUNT" {
			s = strings.TrimPrefix(s, "-")
			j := 0
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n, _ = strconv.Atoi(s[:j])
			s = s[j:]
		}
		if r, ok := strings.CutPrefix(s, "{LITERAL}"); ok {
			s, literal = r, true
		}
		if strings.HasPrefix(s, ":") {
			return k, n, literal, s[1:], true
		}
	}
	return "", 0, false, "", false
}

func isWordByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// canonicalSpace collapses runs of spaces and tabs into one space, as
// FileCheck does to its input and patterns without --strict-whitespace.
func canonicalSpace(s string) string {
	var b strings.Builder
	blank := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' {
			if !blank {
				b.WriteByte(' ')
			}
			blank = true
			continue
		}
		blank = false
		b.WriteByte(c)
	}
	return b.String()
}

// pos is a position in the output: line and byte column, from 0.
type pos struct{ line, col int }

func (p pos) before(q pos) bool { return p.line < q.line || p.line == q.line && p.col < q.col }

// search is the output being matched.
type search struct{ lines []string }

// find returns the first occurrence of pat starting at or after from and
// ending at or before limit.
func (s search) find(pat string, from, limit pos) (pos, bool) {
	for l := from.line; l < len(s.lines) && l <= limit.line; l++ {
		c := 0
		if l == from.line {
			c = from.col
		}
		if c > len(s.lines[l]) {
			continue
		}
		i := strings.Index(s.lines[l][c:], pat)
		if i < 0 {
			continue
		}
		m := pos{l, c + i}
		if l == limit.line && m.col+len(pat) > limit.col {
			return pos{}, false
		}
		return m, true
	}
	return pos{}, false
}

// matchDirectives runs the directives over output as FileCheck does:
// CHECK-LABELs are matched first, in order, and split the output into
// blocks that the directives between them must match within; in a block
// each CHECK matches the first occurrence after the previous match,
// CHECK-NEXT must match on the line after it, CHECK-SAME on its line,
// CHECK-EMPTY needs that next line empty, and a CHECK-NOT pattern must not
// occur between the matches around it.
func matchDirectives(output string, dirs []directive) error {
	s := search{lines: strings.Split(canonicalSpace(output), "\n")}
	end := pos{len(s.lines) - 1, len(s.lines[len(s.lines)-1])}
	// Labels first.
	type label struct {
		at, end pos
		idx     int
	}
	var labels []label
	cur := pos{}
	for i, d := range dirs {
		if d.kind != "LABEL" {
			continue
		}
		m, ok := s.find(d.pattern, cur, end)
		if !ok {
			return fmt.Errorf("line %d: %s: not found in the output after output line %d", d.line, d.text, cur.line+1)
		}
		e := pos{m.line, m.col + len(d.pattern)}
		labels = append(labels, label{m, e, i})
		cur = e
	}
	// Then the blocks around them.
	start, prevLine, from := pos{}, -1, 0
	for k := 0; k <= len(labels); k++ {
		limit, to := end, len(dirs)
		if k < len(labels) {
			limit, to = labels[k].at, labels[k].idx
		}
		if err := s.block(dirs[from:to], start, limit, prevLine); err != nil {
			return err
		}
		if k < len(labels) {
			start, prevLine, from = labels[k].end, labels[k].at.line, labels[k].idx+1
		}
	}
	return nil
}

// block matches directives (no labels) within [start, limit); prevLine is
// the line of the match before start (-1 for none).
func (s search) block(dirs []directive, start, limit pos, prevLine int) error {
	cur := start
	var nots []directive
	checkNots := func(upTo pos) error {
		for _, n := range nots {
			if m, ok := s.find(n.pattern, cur, upTo); ok {
				return fmt.Errorf("line %d: %s: found at output line %d", n.line, n.text, m.line+1)
			}
		}
		nots = nil
		return nil
	}
	for _, d := range dirs {
		var m, e pos
		switch d.kind {
		case "NOT":
			nots = append(nots, d)
			continue
		case "EMPTY":
			l := prevLine + 1
			if l >= len(s.lines) || l > limit.line || s.lines[l] != "" {
				return fmt.Errorf("line %d: %s: output line %d is not empty", d.line, d.text, l+1)
			}
			m, e = pos{l, 0}, pos{l, 0}
		default:
			var ok bool
			m, ok = s.find(d.pattern, cur, limit)
			switch {
			case !ok:
				return fmt.Errorf("line %d: %s: not found in the output after output line %d", d.line, d.text, cur.line+1)
			case d.kind == "NEXT" && m.line != prevLine+1:
				return fmt.Errorf("line %d: %s: matched output line %d, not the line after the previous match (%d)", d.line, d.text, m.line+1, prevLine+1)
			case d.kind == "SAME" && m.line != prevLine:
				return fmt.Errorf("line %d: %s: matched output line %d, not the line of the previous match (%d)", d.line, d.text, m.line+1, prevLine+1)
			}
			e = pos{m.line, m.col + len(d.pattern)}
		}
		if err := checkNots(m); err != nil {
			return err
		}
		cur, prevLine = e, m.line
	}
	return checkNots(limit)
}
