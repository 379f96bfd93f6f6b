package archtest

import (
	"sort"
	"strings"
	"testing"
)

const hostPkg = module + "/pjrt/host"

// families maps each op family of the embedded device (a sub-package of
// pjrt/host that registers kernels) to the other packages of pjrt/host it
// may import: the kernel contract, and package elementwise for the
// families whose elementwise rows it declares. A family never imports the
// planner (pjrt/host) or another family's code otherwise; the test helpers
// of pjrt/host/internal/hosttest are for tests only. TestImportsPointDown
// checks these rules too (familyViolations).
var families = map[string][]string{
	"check":       {"kernel"},
	"chlo":        {"kernel", "elementwise"},
	"collective":  {"kernel"},
	"control":     {"kernel"},
	"elementwise": {"kernel"},
	"linalg":      {"kernel"},
	"movement":    {"kernel"},
}

// TestFamilyViolationsDetected makes sure the check can fail.
func TestFamilyViolationsDetected(t *testing.T) {
	lines := []string{
		hostPkg + "/chlo " + hostPkg + "/elementwise " + hostPkg + "/kernel",
		hostPkg + "/control " + hostPkg + "/check",
		hostPkg + "/collective " + hostPkg,
		hostPkg + "/movement " + hostPkg + "/internal/hosttest",
	}
	got := familyViolations(lines)
	want := []string{"pjrt/host/collective imports " + hostPkg + " ", "pjrt/host/control imports " + hostPkg + "/check ",
		"pjrt/host/movement imports " + hostPkg + "/internal/hosttest "}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("violation %d: got %q, want it to start with %q", i, got[i], w)
		}
	}
}

// familyViolations checks `go list` lines of pjrt/host's packages against
// the families table.
func familyViolations(lines []string) []string {
	var bad []string
	for _, line := range lines {
		path, imports, _ := strings.Cut(line, " ")
		pkg := strings.TrimPrefix(path, module+"/")
		fam, ok := strings.CutPrefix(path, hostPkg+"/")
		for _, imp := range strings.Fields(imports) {
			sub, inHost := strings.CutPrefix(imp, hostPkg)
			if !inHost || (sub != "" && sub[0] != '/') {
				continue
			}
			sub = strings.TrimPrefix(sub, "/")
			if sub == "internal/hosttest" {
				bad = append(bad, pkg+" imports "+imp+" (test helpers, for tests only)")
				continue
			}
			allowed, isFamily := families[fam]
			if !ok || !isFamily {
				continue
			}
			if sub == "" || !contains(allowed, sub) {
				bad = append(bad, pkg+" imports "+imp+" (family "+fam+" may import pjrt/host/"+strings.Join(allowed, ", pjrt/host/")+")")
			}
		}
	}
	sort.Strings(bad)
	return bad
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
