package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// An import is not the only way to depend on a package: code that matches
// a higher package's function names as strings (a stack frame's
// "github.com/xlajit/xlajit/jit.(*fnState).call") knows that package as
// surely, and go list cannot see it. These tests read every string
// literal of the module's non-test files and reject one that names a room
// above the file's own.

func TestNoStringMatchedUpwardDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	fset := token.NewFileSet()
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		room := roomOf(strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/"))
		for _, name := range f[2:] {
			file, err := parser.ParseFile(fset, filepath.Join(f[1], name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				if r := upwardRoomNamed(room, s); r != "" {
					bad = append(bad, fset.Position(lit.Pos()).String()+": "+room+" names "+r+" in "+lit.Value)
				}
				return true
			})
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestStringViolationsDetected makes sure the check can fail: lazy
// matching frames of jit, bridge, fx and partitioner by name (as its
// error sites once did) is reported; naming its own or a lower room, or a
// user-facing mention of an API, is not.
func TestStringViolationsDetected(t *testing.T) {
	for _, c := range []struct {
		room, lit string
		want      string
	}{
		{"lazy", "xlajit/xlajit/jit.", "jit"},
		{"lazy", "xlajit/xlajit/bridge.", "bridge"},
		{"lazy", module + "/fx", "fx"},
		{"lazy", "/partitioner.", "partitioner"},
		{"fx", "jit.(*fnState).call", "jit"},
		{"hlo", module + "/lazy.Apply", "lazy"},
		{"pjrt", "github.com/xlajit/xlajit/spmd", "spmd"},
		{"lazy", module + "/lazy.", ""},
		{"lazy", module + "/hlo", ""},
		{"jit", module + "/lazy.", ""},
		{"lazy", "wrap the step in jit.Compile", ""},
		{"hlo", "stablehlo.add", ""},
		{"cmd", module + "/jit.", ""},
	} {
		if got := upwardRoomNamed(c.room, c.lit); got != c.want {
			t.Errorf("%s: %q names %q, want %q", c.room, c.lit, got, c.want)
		}
	}
}

// upwardRoomNamed returns a room above room (one that imports it, directly
// or not) that the string s names as a package: its import path, the
// module-relative path followed by "." or "/", or a qualified name starting
// s or following a "/". It returns "" when s names none.
func upwardRoomNamed(room, s string) string {
	base := module[strings.LastIndexByte(module, '/')+1:] // "xlajit"
	for _, r := range above(room) {
		if strings.HasPrefix(s, r+".") || strings.Contains(s, "/"+r+".") || strings.HasSuffix(s, base+"/"+r) ||
			strings.Contains(s, base+"/"+r+"/") || strings.Contains(s, base+"/"+r+".") {
			return r
		}
	}
	return ""
}

// above lists the rooms that import room, directly or through others,
// longest name first (so "internal/difftest" is tried before shorter
// names it contains). Rooms that may import anything are not listed: no
// library code depends on them.
func above(room string) []string {
	var out []string
	for r, allowed := range rooms {
		if r != room && allowed != nil && reaches(r, room, map[string]bool{}) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// reaches reports whether room from may import room to, directly or not.
func reaches(from, to string, seen map[string]bool) bool {
	if seen[from] {
		return false
	}
	seen[from] = true
	for _, a := range rooms[from] {
		if a == to || reaches(a, to, seen) {
			return true
		}
	}
	return false
}
