package conform

import (
	"strings"
	"testing"
)

func TestFileCheckRuns(t *testing.T) {
	src := `// RUN: stablehlo-translate --interpret --split-input-file %s --args="[dense<[1, 2]> : tensor<2xi32>]" | FileCheck %s
// RUN: stablehlo-translate -interpret -interpreter-print-dense %s \
// RUN:   | FileCheck %s --check-prefixes=A,B
// RUN: not stablehlo-translate --interpret %s --args="oops" 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: stablehlo-translate --interpret --probe-output-dir=/tmp %s | FileCheck %s --check-prefix=P
// RUN: stablehlo-opt %s | stablehlo-translate --interpret | FileCheck %s --check-prefix=Q
// RUN: stablehlo-translate --interpret %s | FileCheck %s --strict-whitespace --check-prefix=S
// RUN: stablehlo-opt %s | FileCheck %s
// RUN-DISABLED: stablehlo-translate --interpret %s | FileCheck %s
`
	runs := fileCheckRuns(src)
	if len(runs) != 5 {
		t.Fatalf("%d runs, want 5: %+v", len(runs), runs)
	}
	r := runs[0]
	if r.line != 1 || !r.hasArgs || r.args != "[dense<[1, 2]> : tensor<2xi32>]" || r.dense || strings.Join(r.prefixes, ",") != "CHECK" || r.unsupported != "" {
		t.Errorf("run 0: %+v", r)
	}
	r = runs[1]
	if r.line != 2 || r.hasArgs || !r.dense || strings.Join(r.prefixes, ",") != "A,B" || r.unsupported != "" {
		t.Errorf("run 1 (continued line): %+v", r)
	}
	for i, want := range []string{"option --probe-output-dir=/tmp", "a pipeline of 3 stages", "FileCheck option --strict-whitespace"} {
		if r := runs[2+i]; !strings.Contains(r.unsupported, want) {
			t.Errorf("run %d: unsupported %q, want %q", 2+i, r.unsupported, want)
		}
	}
}

func TestDirectives(t *testing.T) {
	text := `// CHECK: a  b
// CHECK-DENSE: not a CHECK directive
// XCHECK: not at a word start
// CHECK-NEXT{LITERAL}: [[1, 2]]
// DENSE{LITERAL}: {{x}}
// CHECK-ERROR-NOT-ARRAY: unknown suffix`
	dirs, err := directives(text, 10, []string{"CHECK"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 || dirs[0].pattern != "a b" || dirs[0].next || dirs[0].line != 10 ||
		!dirs[1].next || dirs[1].pattern != "[[1, 2]]" || dirs[1].line != 13 {
		t.Fatalf("directives %+v", dirs)
	}
	dense, err := directives(text, 10, []string{"CHECK-DENSE", "DENSE"})
	if err != nil || len(dense) != 2 || dense[0].pattern != "not a CHECK directive" || dense[1].pattern != "{{x}}" {
		t.Fatalf("CHECK-DENSE, DENSE: %+v, %v", dense, err)
	}
	for text, want := range map[string]string{
		"// CHECK-NOT: x":               "CHECK-NOT is outside",
		"// CHECK-SAME{LITERAL}: x":     "CHECK-SAME is outside",
		"// CHECK-COUNT-2: x":           "CHECK-COUNT is outside",
		"// CHECK: {{[0-9]+}}":          "regex or variable syntax",
		"// CHECK: [[X:.*]]":            "regex or variable syntax",
		"// CHECK:":                     "empty pattern",
		"// CHECK-NEXT: x\n// CHECK: y": "comes before any CHECK",
	} {
		_, err := directives(text, 1, []string{"CHECK"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

func TestMatchDirectives(t *testing.T) {
	out := "a  b\n\t c d\ne\n"
	dir := func(next bool, p string) directive { return directive{next: next, pattern: canonicalSpace(p), text: p} }
	for _, c := range []struct {
		dirs []directive
		want string // "" for a match
	}{
		{[]directive{dir(false, "a b"), dir(true, "c"), dir(true, "e")}, ""},
		{[]directive{dir(false, "a"), dir(false, "b"), dir(false, "d")}, ""}, // same line, after the match
		{[]directive{dir(false, "b"), dir(true, "c  d")}, ""},                // whitespace runs are one space
		{[]directive{dir(false, "a"), dir(true, "e")}, "not the line after"}, // e is two lines on
		{[]directive{dir(false, "a"), dir(true, "b")}, "not the line after"}, // b is on the same line
		{[]directive{dir(false, "e"), dir(false, "a")}, "not found"},         // order matters
		{[]directive{dir(false, "c d e")}, "not found"},                      // a pattern stays on one line
		{[]directive{dir(false, "x")}, "not found in the output after output line 1"},
	} {
		err := matchDirectives(out, c.dirs)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.dirs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want %q", c.dirs, err, c.want)
		}
	}
}
