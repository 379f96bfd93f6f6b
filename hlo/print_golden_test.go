package hlo

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the printer golden files under testdata/print")

// TestPrintGolden prints each module under testdata/print and compares the
// result with its .golden file (go test -run TestPrintGolden -update
// rewrites them). The golden text must itself be a fixed point.
func TestPrintGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "print", "*.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs under testdata/print")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseModule(f, src)
			if err != nil {
				t.Fatal(err)
			}
			got := m.String()
			golden := strings.TrimSuffix(f, ".mlir") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("printed module differs from %s:\n%s", golden, firstDiff(string(want), got))
			}
			m2, err := ParseModule(golden, want)
			if err != nil {
				t.Fatalf("golden does not parse: %v", err)
			}
			if again := m2.String(); again != string(want) {
				t.Errorf("golden is not a fixed point:\n%s", firstDiff(string(want), again))
			}
		})
	}
}
