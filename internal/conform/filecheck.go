package conform

import (
	"fmt"
	"strings"
)

// FileCheck-verified files. Some interpreter tests check what
// `stablehlo-translate --interpret` prints (the entry's results) with
// FileCheck, not with check ops:
//
//	// RUN: stablehlo-translate --interpret --split-input-file %s | FileCheck %s
//	// CHECK:      tensor<4xi8> {
//	// CHECK-NEXT:   [1, 2, -3, -4]
//	// CHECK-NEXT: }
//
// The runner reproduces such a RUN line when all of it is understood: the
// interpreter stage may carry --args (the entry's arguments) and
// --interpreter-print-dense (results as dense<...> : type, FormatLiteral,
// else the interpreter's own layout, FormatTensor), FileCheck may carry
// --check-prefix(es). Directives are CHECK and CHECK-NEXT, optionally
// {LITERAL}, with FileCheck's whitespace rule (runs of spaces and tabs
// compare as one space) and no regex or variable syntax. Each case is
// checked against its own output with the directives written in its own
// split part (upstream checks the concatenated output of all parts with all
// directives in order; per part is the same test, localized). A case whose
// directives need more (CHECK-SAME, CHECK-NOT, {{regex}}, an unknown RUN
// option) stays skipped as SkipFileCheck, with the reason. RUN lines that
// start with `not` check the upstream tool's own diagnostics for malformed
// options and are not reproduced.

// fcRun is one RUN line piping the interpreter into FileCheck.
type fcRun struct {
	line     int    // the RUN line's number in the file
	args     string // the --args value
	hasArgs  bool
	dense    bool     // --interpreter-print-dense
	prefixes []string // FileCheck's check prefixes
	// unsupported says why the RUN line cannot be reproduced ("" if it
	// can); it matters only to cases that hold directives for its prefixes.
	unsupported string
}

// fileCheckRuns returns the RUN lines of a file that pipe the interpreter's
// output into FileCheck (not those starting with `not`).
func fileCheckRuns(src string) []fcRun {
	var out []fcRun
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "//") {
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, "//"))
		if !strings.HasPrefix(t, "RUN:") {
			continue
		}
		first := i
		cmd := strings.TrimSpace(strings.TrimPrefix(t, "RUN:"))
		// A trailing backslash continues the command on the next RUN line.
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "//"))
			cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(strings.TrimPrefix(next, "RUN:"))
		}
		if r, ok := parseFileCheckRun(cmd); ok {
			r.line = first + 1
			out = append(out, r)
		}
	}
	return out
}

// parseFileCheckRun reads `tool options | FileCheck options`; ok is false
// for a command that is not an interpreter run checked by FileCheck.
func parseFileCheckRun(cmd string) (fcRun, bool) {
	var r fcRun
	stages := splitStages(shellWords(cmd))
	if len(stages) < 2 || len(stages[0]) == 0 || stages[0][0] == "not" {
		return r, false
	}
	last := stages[len(stages)-1]
	if len(last) == 0 || last[0] != "FileCheck" {
		return r, false
	}
	interp := false
	for _, st := range stages[:len(stages)-1] {
		for _, w := range st {
			if w == "--interpret" || w == "-interpret" {
				interp = true
			}
		}
	}
	if !interp {
		return r, false
	}
	// The first reason the line cannot be reproduced is kept.
	bad := func(why string) {
		if r.unsupported == "" {
			r.unsupported = why
		}
	}
	if len(stages) != 2 {
		bad(fmt.Sprintf("a pipeline of %d stages", len(stages)))
	}
	tool := stages[0]
	if tool[0] != "stablehlo-translate" {
		bad("tool " + tool[0])
	}
	for i := 1; i < len(tool); i++ {
		w := tool[i]
		opt, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case w == "%s":
		case !strings.HasPrefix(w, "-"):
			bad("argument " + w)
		case opt == "interpret" || opt == "split-input-file":
		case opt == "interpreter-print-dense" && !hasVal:
			r.dense = true
		case opt == "args" && hasVal:
			r.args, r.hasArgs = val, true
		case opt == "args" && i+1 < len(tool):
			i++
			r.args, r.hasArgs = tool[i], true
		default:
			bad("option " + w)
		}
	}
	for _, w := range last[1:] {
		opt, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case w == "%s":
		case (opt == "check-prefix" || opt == "check-prefixes") && hasVal:
			r.prefixes = append(r.prefixes, strings.Split(val, ",")...)
		default:
			bad("FileCheck option " + w)
		}
	}
	if len(r.prefixes) == 0 {
		r.prefixes = []string{"CHECK"}
	}
	return r, true
}

// shellWords splits a command into words as a shell would for the forms RUN
// lines use: blanks separate, quotes group and are removed, `|` is a word.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var quote byte
	flush := func() {
		if in {
			out = append(out, cur.String())
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '|':
			flush()
			out = append(out, "|")
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return out
}

func splitStages(words []string) [][]string {
	stages := [][]string{nil}
	for _, w := range words {
		if w == "|" {
			stages = append(stages, nil)
			continue
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], w)
	}
	return stages
}

// caseCheck is one RUN line's verification of one case.
type caseCheck struct {
	run  fcRun
	dirs []directive
}

// caseFileChecks collects, for every RUN line, the directives of its
// prefixes written in one case (text starting at file line first). RUN
// lines without directives in the case are left out. The error says why a
// case's directives cannot be verified.
func caseFileChecks(runs []fcRun, text string, first int) ([]caseCheck, error) {
	var out []caseCheck
	for _, r := range runs {
		dirs, err := directives(text, first, r.prefixes)
		if err != nil {
			return nil, err
		}
		if len(dirs) == 0 {
			continue
		}
		if r.unsupported != "" {
			return nil, fmt.Errorf("RUN line %d: %s is not reproduced", r.line, r.unsupported)
		}
		out = append(out, caseCheck{run: r, dirs: dirs})
	}
	return out, nil
}
