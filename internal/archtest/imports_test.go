// Package archtest checks the one-way import rules of DESIGN.md §2: imports,
// and string literals that name a higher package (strings_test.go).
package archtest

import (
	"os/exec"
	"path"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/xlajit/xlajit"

// rooms maps each room (a top-level package path inside the module) to the
// rooms it may import directly. Sub-packages belong to their room.
var rooms = map[string][]string{
	"hlo":                 {},
	"pjrt":                {"hlo"},
	"lazy":                {"hlo", "pjrt"},
	"spmd":                {"lazy", "pjrt"},
	"fx":                  {"lazy"},
	"partitioner":         {"fx", "lazy"},
	"bridge":              {"fx", "lazy"},
	"jit":                 {"bridge", "partitioner", "fx", "lazy"},
	"codegen":             {"jit", "fx", "lazy", "hlo"},
	"nn":                  {"jit", "lazy"},
	"optim":               {"jit", "lazy"},
	"data":                {"jit", "lazy"},
	"internal/conform":    {"hlo", "pjrt"},
	"internal/archtest":   {},
	"internal/atomicfile": {},
	"internal/corpusdir":  {},
	"internal/refs":       {},
	"internal/slab":       {},
	"internal/difftest":   {"jit", "lazy", "hlo", "spmd", "optim"},
	"cmd":                 nil, // anything
	"examples":            nil, // anything
	"bench":               nil, // separate module
}

// roomOf returns the room of a module package path (relative).
func roomOf(rel string) string {
	best := ""
	for r := range rooms {
		if (rel == r || strings.HasPrefix(rel, r+"/")) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// leaves are rooms that import no room of the module and that every
// room may import (test helpers such as the corpus finder).
var leaves = map[string]bool{"internal/atomicfile": true, "internal/corpusdir": true, "internal/refs": true, "internal/slab": true}

// Only these rooms may import code-generation dependencies.
var genDeps = []string{"github.com/dave/jennifer", "golang.org/x/tools"}
var genRooms = map[string]bool{"codegen": true, "cmd": true}

func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, b := range append(violations(lines), familyViolations(lines)...) {
		t.Error(b)
	}
}

// TestViolationsDetected makes sure the check can fail: an upward import,
// an import from a room not allowed, a package in no room and a code
// generator dependency outside codegen and cmd are all reported.
func TestViolationsDetected(t *testing.T) {
	lines := []string{
		module + "/hlo " + module + "/lazy",
		module + "/lazy " + module + "/jit",
		module + "/lazy " + module + "/hlo " + module + "/pjrt/host",
		module + "/fx golang.org/x/tools/go/packages",
		module + "/mystery fmt",
		module + "/nn " + module + "/optim",
		module + "/data/mnist " + module + "/data " + module + "/lazy",
	}
	got := violations(lines)
	want := []string{"hlo imports " + module + "/lazy", "lazy imports " + module + "/jit", "fx imports golang.org/x/tools", "mystery: package is in no room",
		"nn imports " + module + "/optim"}
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("violation %q not reported; got %v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d violations, want %d: %v", len(got), len(want), got)
	}
}

// violations checks `go list` lines ("pkg imp1 imp2 ...") against the rooms.
func violations(lines []string) []string {
	var bad []string
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		room := roomOf(pkg)
		if room == "" {
			bad = append(bad, pkg+": package is in no room of DESIGN.md §2 (add it to archtest)")
			continue
		}
		allowed := rooms[room]
		for _, imp := range f[1:] {
			for _, g := range genDeps {
				if strings.HasPrefix(imp, g) && !genRooms[room] {
					bad = append(bad, pkg+" imports "+imp+" (only codegen and cmd may)")
				}
			}
			if !strings.HasPrefix(imp, module+"/") || allowed == nil {
				continue
			}
			ir := roomOf(strings.TrimPrefix(imp, module+"/"))
			if ir == room {
				continue
			}
			ok := leaves[ir]
			for _, a := range allowed {
				if a == ir {
					ok = true
				}
			}
			if !ok {
				bad = append(bad, pkg+" imports "+path.Clean(imp)+" (room "+room+" may import "+strings.Join(allowed, ", ")+")")
			}
		}
	}
	sort.Strings(bad)
	return bad
}
