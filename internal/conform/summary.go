package conform

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Summary counts a run's results.
type Summary struct {
	Passed, Failed, Skipped int
	Skips                   map[SkipReason]int
	ByKind                  map[Kind]int
	// ByOp counts failures by the op they are attributed to; an
	// unsupported-op failure counts once for every op the case is missing.
	ByOp map[string]int
	// ByOpKind is ByOp split by kind: "op kind" → count.
	ByOpKind map[[2]string]int
}

// Summarize counts results.
func Summarize(rs []*Result) Summary {
	s := Summary{Skips: map[SkipReason]int{}, ByKind: map[Kind]int{}, ByOp: map[string]int{}, ByOpKind: map[[2]string]int{}}
	for _, r := range rs {
		switch r.Status {
		case Pass:
			s.Passed++
		case Skip:
			s.Skipped++
			s.Skips[r.Skip]++
		default:
			s.Failed++
			s.ByKind[r.Kind]++
			ops := r.Missing
			if len(ops) == 0 {
				op := r.Op
				if op == "" {
					op = "(" + string(r.Kind) + ")"
				}
				ops = []string{op}
			}
			for _, op := range ops {
				s.ByOp[op]++
				s.ByOpKind[[2]string{op, string(r.Kind)}]++
			}
		}
	}
	return s
}

// Line is the final line of a report.
func (s Summary) Line() string {
	return fmt.Sprintf("conform: %d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
}

// WriteSkips writes one line per skip reason with its count and meaning.
func (s Summary) WriteSkips(w io.Writer) {
	for _, sr := range SkipReasons {
		if n := s.Skips[sr.Reason]; n > 0 {
			fmt.Fprintf(w, "skipped %d %s: %s\n", n, sr.Reason, sr.Doc)
		}
	}
}

// WriteByOp writes the failures by op (most first) with their kinds, then
// the failures by kind.
func (s Summary) WriteByOp(w io.Writer) {
	type row struct {
		op string
		n  int
	}
	var rows []row
	for op, n := range s.ByOp {
		rows = append(rows, row{op, n})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		return rows[i].op < rows[j].op
	})
	fmt.Fprintln(w, "failures by op:")
	for _, r := range rows {
		var kinds []string
		for k, n := range s.ByOpKind {
			if k[0] == r.op {
				kinds = append(kinds, fmt.Sprintf("%s %d", k[1], n))
			}
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "  %5d  %-40s %s\n", r.n, r.op, strings.Join(kinds, ", "))
	}
	fmt.Fprintln(w, "failures by kind:")
	var ks []string
	for k := range s.ByKind {
		ks = append(ks, string(k))
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(w, "  %5d  %s\n", s.ByKind[Kind(k)], k)
	}
}

// Rate is the pass rate of one group of results, skips excluded.
type Rate struct {
	Group         string
	Passed, Total int // Total excludes skips
	Skipped       int
}

func (r Rate) Percent() float64 {
	if r.Total == 0 {
		return 100
	}
	return 100 * float64(r.Passed) / float64(r.Total)
}

func (r Rate) String() string {
	return fmt.Sprintf("%s: %d/%d = %.1f%% (%d skipped)", r.Group, r.Passed, r.Total, r.Percent(), r.Skipped)
}

// treeOf is the first path element of a result's file ("interpret").
func treeOf(file string) string {
	if i := strings.IndexByte(file, '/'); i >= 0 {
		return file[:i]
	}
	return "."
}

// CaseRates is the case pass rate per tree (first path element).
func CaseRates(rs []*Result) map[string]Rate {
	out := map[string]Rate{}
	for _, r := range rs {
		g := treeOf(r.File)
		x := out[g]
		x.Group = g
		switch r.Status {
		case Skip:
			x.Skipped++
		case Pass:
			x.Passed++
			x.Total++
		default:
			x.Total++
		}
		out[g] = x
	}
	return out
}

// FileRates is the file pass rate per tree: a file passes when all its
// cases that are not skipped pass; a file whose cases are all skipped is
// counted as skipped.
func FileRates(rs []*Result) map[string]Rate {
	type fileState struct{ run, failed bool }
	files := map[string]*fileState{}
	var order []string
	for _, r := range rs {
		f := files[r.File]
		if f == nil {
			f = &fileState{}
			files[r.File] = f
			order = append(order, r.File)
		}
		if r.Status != Skip {
			f.run = true
		}
		if r.Status == Fail {
			f.failed = true
		}
	}
	out := map[string]Rate{}
	for _, name := range order {
		f := files[name]
		g := treeOf(name)
		x := out[g]
		x.Group = g
		switch {
		case !f.run:
			x.Skipped++
		case f.failed:
			x.Total++
		default:
			x.Passed++
			x.Total++
		}
		out[g] = x
	}
	return out
}
