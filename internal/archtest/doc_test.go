package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasDocGo checks the style rule that each package states
// its place in the flow in a doc.go: every package of the module with
// non-test Go files has a doc.go that holds its package comment, and no
// other file of the package holds one.
func TestEveryPackageHasDocGo(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, b := range docViolations(strings.Split(strings.TrimSpace(string(out)), "\n")) {
		t.Error(b)
	}
}

// TestDocViolationsDetected makes sure the check can fail.
func TestDocViolationsDetected(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := writeFile(filepath.Join(dir, name), src); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "// Package p is documented in the wrong file.\npackage p\n")
	write("doc.go", "package p\n")
	got := docViolations([]string{module + "/p " + dir + " a.go doc.go", module + "/q " + dir + " a.go"})
	if len(got) != 4 {
		t.Fatalf("got %d violations, want 4 (p: doc.go without the comment and the comment in a.go; q: the comment in a.go and no doc.go): %v", len(got), got)
	}
}

// docViolations checks `go list` lines ("importpath dir file...").
func docViolations(lines []string) []string {
	var bad []string
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue // no non-test Go files
		}
		pkg, dir, files := f[0], f[1], f[2:]
		hasDoc := false
		for _, name := range files {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				bad = append(bad, pkg+": "+err.Error())
				continue
			}
			commented := file.Doc != nil && strings.TrimSpace(file.Doc.Text()) != ""
			switch {
			case name == "doc.go":
				hasDoc = true
				if !commented {
					bad = append(bad, pkg+": doc.go has no package comment")
				}
			case commented:
				bad = append(bad, pkg+": "+name+" holds a package comment (it belongs in doc.go)")
			}
		}
		if !hasDoc {
			bad = append(bad, pkg+": no doc.go")
		}
	}
	return bad
}

func writeFile(name, src string) error { return os.WriteFile(name, []byte(src), 0o644) }
