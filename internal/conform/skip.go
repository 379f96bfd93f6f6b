package conform

import (
	"regexp"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// SkipReason names why a case is not run. The list is closed: every skip the
// runner produces is one of these, each backed by a rule of the corpus README
// and detected from the case's content, never from a file or function name.
type SkipReason string

const (
	// SkipProbe: the case reads interpreter.probe values back with
	// check.expect_serialized_eq and runs through the device seam. The
	// embedded device keeps probe values in the run's check log (in memory,
	// where upstream writes NumPy files); through the seam they stay inside
	// the device's execution, where the host's check cannot read them.
	SkipProbe SkipReason = "probe"
	// SkipPrint: the case uses interpreter.print and runs through the
	// device seam. The embedded device sends what a program prints to the
	// run's check log (the runner reads it for FileCheck); through the seam
	// it would go to the device's stdout instead.
	SkipPrint SkipReason = "print"
	// SkipFileCheck: the case is verified by FileCheck directives on the
	// interpreter's stdout in a form the runner does not reproduce (a
	// directive outside CHECK / CHECK-NEXT, regex syntax, an unknown RUN
	// line option); the reason names it. See filecheck.go.
	SkipFileCheck SkipReason = "filecheck"
	// SkipRoundTrip: the entry takes arguments with dynamic dimensions and
	// the case has no check op: a parse/print round-trip file that need not
	// execute. It still has to parse.
	SkipRoundTrip SkipReason = "roundtrip"
)

// SkipReasons documents every skip reason, in report order.
var SkipReasons = []struct {
	Reason SkipReason
	Doc    string
}{
	{SkipProbe, "reads interpreter.probe values with check.expect_serialized_eq, which the device seam cannot carry back (the embedded device runs these cases)"},
	{SkipPrint, "uses interpreter.print, whose output the device seam cannot carry back (the embedded device runs these cases)"},
	{SkipFileCheck, "verified by FileCheck in a form the runner does not reproduce"},
	{SkipRoundTrip, "dynamic-shape entry arguments and no check op (parse round-trip file; must parse)"},
}

// SkipDoc returns the documentation of a skip reason ("" if unknown).
func SkipDoc(r SkipReason) string {
	for _, s := range SkipReasons {
		if s.Reason == r {
			return s.Doc
		}
	}
	return ""
}

// checkedByFileCheck reports whether a file's RUN lines verify the
// interpreter's or iree-run-mlir's stdout with FileCheck.
func checkedByFileCheck(src string) bool { return len(fileCheckRuns(src)) > 0 }

// disabledRun matches a RUN line that upstream has disabled, with the
// reason in parentheses: `// RUN-DISABLED(inaccurate): stablehlo-opt ...`.
var disabledRun = regexp.MustCompile(`^//\s*RUN-DISABLED(\([^)]*\))?:?\s*(.*)$`)

// upstreamDisabled returns "RUN-DISABLED(reason)" when a file's only
// interpreter RUN lines are disabled upstream: the reference interpreter
// does not run it (its expectations come from XLA and upstream knows them
// to be out of the interpreter's reach). Such a case still runs here; the
// note travels with its failure so that nobody chases it as a regression.
func upstreamDisabled(src string) string {
	note := ""
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "//") {
			continue
		}
		if m := disabledRun.FindStringSubmatch(line); m != nil {
			if strings.Contains(m[2], "--interpret") && note == "" {
				note = "RUN-DISABLED" + m[1]
			}
			continue
		}
		if strings.Contains(line, "RUN:") && strings.Contains(line, "--interpret") {
			return ""
		}
	}
	return note
}

// skipReason classifies a parsed case by its content; "" means it runs
// (FileCheck cases are classified by the runner, which reads their
// directives). seam is set when the case runs through a pjrt.Client.
func skipReason(m *hlo.Module, entry *hlo.Func, seam bool) SkipReason {
	info := scan(m)
	switch {
	case info.readsProbes && seam:
		return SkipProbe
	case info.prints && seam:
		return SkipPrint
	case info.checks == 0 && entry != nil && hasDynamicArg(entry):
		return SkipRoundTrip
	}
	return ""
}

func hasDynamicArg(f *hlo.Func) bool {
	for _, a := range f.Args {
		if t, ok := a.Type.(*hlo.TensorType); ok && !t.IsStatic() {
			return true
		}
	}
	return false
}

// moduleInfo is what the classifier needs to know about a module's content.
type moduleInfo struct {
	readsProbes bool // check.expect_serialized_eq
	prints      bool // interpreter.print
	checks      int  // check ops anywhere (check.* ops and custom_call @check.*)
}

func scan(m *hlo.Module) moduleInfo {
	var info moduleInfo
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *hlo.Op) bool {
			switch op.Name {
			case "check.expect_serialized_eq":
				info.readsProbes = true
			case "interpreter.print":
				info.prints = true
			}
			if isCheckOp(op) {
				info.checks++
			}
			return true
		})
	}
	return info
}
