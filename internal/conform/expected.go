package conform

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Expected is an expected-failures list: case ID ("path#case") → reason.
type Expected map[string]string

// ReadExpected reads a list: one `path#case reason` per line; blank lines
// and lines starting with "//" are ignored. A missing file is an empty list.
func ReadExpected(path string) (Expected, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return Expected{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseExpected(f)
}

// ParseExpected parses the list format of ReadExpected.
func ParseExpected(r io.Reader) (Expected, error) {
	e := Expected{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		if !strings.Contains(id, "#") {
			return nil, fmt.Errorf("expected failures, line %d: %q is not path#case", n, id)
		}
		if _, dup := e[id]; dup {
			return nil, fmt.Errorf("expected failures, line %d: %s listed twice", n, id)
		}
		e[id] = strings.TrimSpace(reason)
	}
	return e, sc.Err()
}

// Diff compares results with the list: regressions fail but are not listed,
// stale entries are listed but no longer fail (they pass or are skipped),
// unknown entries name no case that ran.
func (e Expected) Diff(rs []*Result) (regressions []*Result, stale, unknown []string) {
	seen := map[string]bool{}
	for _, r := range rs {
		id := r.ID()
		seen[id] = true
		_, listed := e[id]
		switch {
		case r.Status == Fail && !listed:
			regressions = append(regressions, r)
		case r.Status != Fail && listed:
			stale = append(stale, id)
		}
	}
	for id := range e {
		if !seen[id] {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(stale)
	sort.Strings(unknown)
	return regressions, stale, unknown
}

// Updated returns the list for results: every failing case, keeping the
// reason already written for a case that was listed.
func (e Expected) Updated(rs []*Result) Expected {
	out := Expected{}
	for _, r := range rs {
		if r.Status != Fail {
			continue
		}
		id := r.ID()
		if old, ok := e[id]; ok && old != "" {
			out[id] = old
		} else {
			out[id] = OneLine(r)
		}
	}
	return out
}

// Write writes the list sorted by case ID (natural case order in a file),
// after a header.
func (e Expected) Write(w io.Writer, header string) error {
	ids := make([]string, 0, len(e))
	for id := range e {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return lessID(ids[i], ids[j]) })
	bw := bufio.NewWriter(w)
	for _, l := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		fmt.Fprintf(bw, "// %s\n", l)
	}
	for _, id := range ids {
		fmt.Fprintf(bw, "%s %s\n", id, e[id])
	}
	return bw.Flush()
}

func lessID(a, b string) bool {
	fa, ca, _ := strings.Cut(a, "#")
	fb, cb, _ := strings.Cut(b, "#")
	if fa != fb {
		return fa < fb
	}
	if len(ca) != len(cb) {
		return len(ca) < len(cb)
	}
	return ca < cb
}

// OneLine is a result's reason on one short line: kind, op and the first
// line of the message.
func OneLine(r *Result) string {
	msg := r.Reason
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.Join(strings.Fields(msg), " ")
	// The case's own file name adds nothing to its line; keep line:col.
	msg = strings.TrimPrefix(msg, r.File+":")
	const max = 160
	if len(msg) > max {
		msg = msg[:max] + "..."
	}
	head := string(r.Kind)
	if r.Op != "" {
		head += " " + r.Op
	}
	if r.Upstream != "" {
		head += " [upstream " + r.Upstream + "]"
	}
	return head + ": " + msg
}
