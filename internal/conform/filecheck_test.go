package conform

import (
	"fmt"
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
// CHECK-ERROR-NOT-ARRAY: unknown suffix
// CHECK-SAME: s
// CHECK-EMPTY:
// CHECK-NOT: n
// CHECK-LABEL: l
// CHECK-COUNT-3: c`
	dirs, err := directives(text, 10, []string{"CHECK"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dirs {
		got = append(got, fmt.Sprintf("%d %s %q", d.line, d.kind, d.pattern))
	}
	want := []string{`10  "a b"`, `13 NEXT "[[1, 2]]"`, `16 SAME "s"`, `17 EMPTY ""`, `18 NOT "n"`, `19 LABEL "l"`, `20  "c"`, `20  "c"`, `20  "c"`}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("directives\n got %v\nwant %v", got, want)
	}
	dense, err := directives(text, 10, []string{"CHECK-DENSE", "DENSE"})
	if err != nil || len(dense) != 2 || dense[0].pattern != "not a CHECK directive" || dense[1].pattern != "{{x}}" {
		t.Fatalf("CHECK-DENSE, DENSE: %+v, %v", dense, err)
	}
	for text, want := range map[string]string{
		"// CHECK-DAG: x":                   "CHECK-DAG is outside",
		"// CHECK-DAG{LITERAL}: x":          "CHECK-DAG is outside",
		"// CHECK-COUNT-0: x":               "needs a positive count",
		"// CHECK: x\n// CHECK-EMPTY: y":    "CHECK-EMPTY takes none",
		"// CHECK: {{[0-9]+}}":              "regex or variable syntax",
		"// CHECK: [[X:.*]]":                "regex or variable syntax",
		"// CHECK:":                         "empty pattern",
		"// CHECK-NEXT: x\n// CHECK: y":     "comes before any CHECK",
		"// CHECK-NOT: x\n// CHECK-SAME: y": "comes before any CHECK",
		"// CHECK-EMPTY:\n// CHECK: y":      "comes before any CHECK",
	} {
		_, err := directives(text, 1, []string{"CHECK"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

func TestMatchDirectives(t *testing.T) {
	out := "a  b\n\t c d\ne\n\nf a\ng b\n"
	dir := func(kind, p string) directive {
		return directive{kind: kind, pattern: canonicalSpace(p), text: kind + ": " + p}
	}
	for _, c := range []struct {
		dirs []directive
		want string // "" for a match
	}{
		{[]directive{dir("", "a b"), dir("NEXT", "c"), dir("NEXT", "e")}, ""},
		{[]directive{dir("", "a"), dir("", "b"), dir("", "d")}, ""},         // same line, after the match
		{[]directive{dir("", "b"), dir("NEXT", "c  d")}, ""},                // whitespace runs are one space
		{[]directive{dir("", "a"), dir("NEXT", "e")}, "not the line after"}, // e is two lines on
		{[]directive{dir("", "a"), dir("NEXT", "b")}, "not the line after"}, // b is on the same line
		{[]directive{dir("", "e"), dir("", "a")}, ""},                       // a again on line 5
		{[]directive{dir("", "f"), dir("", "e")}, "not found"},              // order matters
		{[]directive{dir("", "c d e")}, "not found"},                        // a pattern stays on one line
		{[]directive{dir("", "x")}, "not found in the output after output line 1"},
		{[]directive{dir("", "c"), dir("SAME", "d")}, ""},
		{[]directive{dir("", "c"), dir("SAME", "e")}, "not the line of the previous match"},
		{[]directive{dir("", "e"), dir("EMPTY", "")}, ""},
		{[]directive{dir("", "d"), dir("EMPTY", "")}, "output line 3 is not empty"},
		{[]directive{dir("", "a"), dir("NOT", "x"), dir("", "e")}, ""},
		{[]directive{dir("", "a"), dir("NOT", "d"), dir("", "e")}, "NOT: d: found at output line 2"},
		{[]directive{dir("", "e"), dir("NOT", "b")}, "NOT: b: found at output line 6"}, // to the end
		{[]directive{dir("NOT", "z"), dir("", "a")}, ""},
		// Labels split the output: "b" after the label "f" must lie before
		// the label "g", where the only b is after it.
		{[]directive{dir("LABEL", "f"), dir("", "b"), dir("LABEL", "g")}, "not found"},
		{[]directive{dir("LABEL", "f"), dir("", "a"), dir("LABEL", "g"), dir("SAME", "b")}, ""},
		{[]directive{dir("LABEL", "a"), dir("NEXT", "c"), dir("LABEL", "e"), dir("EMPTY", "")}, ""},
		{[]directive{dir("LABEL", "g"), dir("LABEL", "f")}, "not found"},
		{[]directive{dir("", "c"), dir("LABEL", "a")}, "not found"}, // the label is found first, c must precede it
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
