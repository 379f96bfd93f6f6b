package hlo

import (
	"os"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser: it must never panic, and
// whatever it accepts must print to text that parses back and prints the
// same. Seeds are the small chunks of the conformance corpus (when
// present) and the golden inputs; crashers found so far live under
// testdata/fuzz/FuzzParse.
//
//	go test -run '^$' -fuzz FuzzParse ./hlo
func FuzzParse(f *testing.F) {
	if root := findCorpusRoot(); root != "" {
		for _, file := range mlirFilesUnder(root) {
			src, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			for _, c := range SplitInputFile(src) {
				if len(c.Text) <= 4096 {
					f.Add(c.Text)
				}
			}
		}
	}
	for _, g := range goldenInputs() {
		f.Add(g)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ParseModule("fuzz.mlir", []byte(src))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error is %T, not *ParseError: %v", err, err)
			}
			return
		}
		first := m.String()
		m2, err := ParseModule("printed.mlir", []byte(first))
		if err != nil {
			t.Fatalf("printed module does not parse: %v\n%s", err, first)
		}
		if second := m2.String(); second != first {
			t.Fatalf("print is not a fixed point:\n%s\n--- first:\n%s\n--- second:\n%s", firstDiff(first, second), first, second)
		}
	})
}
