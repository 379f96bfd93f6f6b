package conform

import (
	"fmt"
	"strconv"
	"strings"
)

// FileCheck-verified files. Some tests check what a tool prints with
// FileCheck, not with check ops. The StableHLO interpreter's tests check
// what `stablehlo-translate --interpret` prints (the entry's results):
//
//	// RUN: stablehlo-translate --interpret --split-input-file %s | FileCheck %s
//	// CHECK:      tensor<4xi8> {
//	// CHECK-NEXT:   [1, 2, -3, -4]
//	// CHECK-NEXT: }
//
// IREE's programs check what `iree-run-mlir` prints: every exported (public)
// function, or the one --function names, runs in order with the --input
// values as arguments, printing `EXEC @name` and its results (ireeio.go):
//
//	// RUN: iree-run-mlir --Xcompiler,iree-input-type=stablehlo %s --input="2xf32=1 2" | FileCheck %s
//	// CHECK-LABEL: EXEC @double
//	// CHECK: 2xf32=2 4
//
// The runner reproduces such a RUN line when all of it is understood: the
// interpreter stage may carry --args (the entry's arguments) and
// --interpreter-print-dense (results as dense<...> : type, FormatLiteral,
// else the interpreter's own layout, FormatTensor); iree-run-mlir may carry
// --input, --function, --output_max_element_count and the compiler options
// that choose an input type or target (they do not change the results);
// FileCheck may carry --check-prefix(es). The directives are
// filecheck_match.go's subset. Each case is checked against its own output
// with the directives written in its own split part (upstream checks the
// concatenated output of all parts with all directives in order; per part
// is the same test, localized). A case whose directives need more
// (CHECK-DAG, {{regex}}, an unknown RUN option) stays skipped as
// SkipFileCheck, with the reason. RUN lines that start with `not` check the
// upstream tool's own diagnostics and are not reproduced.

// Tools whose output a RUN line checks.
const (
	toolInterpret = "interpret"     // stablehlo-translate --interpret
	toolIREERun   = "iree-run-mlir" // IREE's compile-and-run tool
)

// fcRun is one RUN line piping a tool into FileCheck.
type fcRun struct {
	line     int    // the RUN line's number in the file
	tool     string // toolInterpret or toolIREERun
	args     string // the --args value
	hasArgs  bool
	dense    bool     // --interpreter-print-dense
	inputs   []string // iree-run-mlir's --input values, in order
	function string   // iree-run-mlir's --function ("" runs every exported one)
	maxElems int      // iree-run-mlir's --output_max_element_count
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
// for a command that is not a run of the interpreter or of iree-run-mlir
// checked by FileCheck.
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
	// `(tool ...) | FileCheck` runs the tool in a subshell: the same.
	if st := stages[0]; strings.HasPrefix(st[0], "(") && strings.HasSuffix(st[len(st)-1], ")") {
		st = append([]string(nil), st...)
		st[0] = strings.TrimPrefix(st[0], "(")
		st[len(st)-1] = strings.TrimSuffix(st[len(st)-1], ")")
		if st[0] == "" {
			st = st[1:]
		}
		if len(st) > 0 && st[len(st)-1] == "" {
			st = st[:len(st)-1]
		}
		stages[0] = st
	}
	if len(stages[0]) == 0 {
		return r, false
	}
	for _, st := range stages[:len(stages)-1] {
		for _, w := range st {
			if w == "--interpret" || w == "-interpret" {
				r.tool = toolInterpret
			}
		}
	}
	if stages[0][0] == toolIREERun {
		r.tool = toolIREERun
	}
	if r.tool == "" {
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
	if r.tool == toolIREERun {
		parseIREERunOptions(&r, stages[0][1:], bad)
	} else {
		parseInterpretOptions(&r, stages[0], bad)
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

// parseInterpretOptions reads stablehlo-translate's words.
func parseInterpretOptions(r *fcRun, tool []string, bad func(string)) {
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
}

// ireeIgnoredOptions are iree-run-mlir's options that choose how the
// program is compiled (input dialect, target) without changing its
// results; with --Xcompiler, the compiler option after the comma counts.
var ireeIgnoredOptions = map[string]bool{
	"iree-input-type": true, "iree-hal-target-backends": true, "iree-hal-target-device": true,
	"iree-hal-local-target-device-backends": true, "device": true, "split-input-file": true,
}

// parseIREERunOptions reads iree-run-mlir's options (after its name).
func parseIREERunOptions(r *fcRun, words []string, bad func(string)) {
	r.maxElems = defaultMaxElements
	for i := 0; i < len(words); i++ {
		w := words[i]
		opt, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if c, ok := strings.CutPrefix(opt, "Xcompiler,"); ok {
			opt = c
		}
		switch {
		case w == "%s":
		case !strings.HasPrefix(w, "-"):
			bad("argument " + w)
		case (opt == "input" || opt == "function-input") && hasVal:
			r.inputs = append(r.inputs, val)
		case (opt == "input" || opt == "function-input") && i+1 < len(words):
			i++
			r.inputs = append(r.inputs, words[i])
		case opt == "function" && hasVal:
			r.function = strings.TrimPrefix(val, "@")
		case opt == "output_max_element_count" && hasVal:
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				bad("option " + w)
			}
			r.maxElems = n
		case ireeIgnoredOptions[opt]:
		default:
			bad("option " + w)
		}
	}
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
