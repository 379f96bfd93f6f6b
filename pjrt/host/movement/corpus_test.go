package movement_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/internal/conform"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
	_ "github.com/xlajit/xlajit/pjrt/host/movement"
)

// The corpus files of this family's ops: the reference interpreter's tests
// named after them and the JAX programs built mostly from them.
var (
	interpretFiles = regexp.MustCompile(`^(broadcast_in_dim|concatenate|dynamic_broadcast_in_dim|dynamic_gather|dynamic_iota|dynamic_pad|dynamic_reshape|dynamic_slice|dynamic_update_slice|gather|get_dimension_size|map|pad|real_dynamic_slice|reduce|reduce_window|reshape|reverse|scatter|select_and_scatter|slice|sort|transpose)\.mlir$`)
	testdataFiles  = regexp.MustCompile(`^(argmax|argmin|broadcast_in_dim|concatenate|cum[a-z]+|dynamic_slice|dynamic_update_slice|gather|pad|reduce_(and|max|min|or|prod|sum|window)[a-z_]*|reduce|reshape|rev|scatter[a-z_]*|select_and_[a-z_]+|slice|sort|squeeze|transpose)_[a-z0-9_]*\.mlir$`)
)

// ownOps are the ops this package registers; a corpus failure attributed
// to one of them is this family's.
func ownOps() map[string]bool {
	own := map[string]bool{}
	for _, n := range []string{"broadcast_in_dim", "reshape", "transpose", "slice", "dynamic_slice", "dynamic_update_slice",
		"concatenate", "pad", "reverse", "gather", "scatter", "sort", "reduce", "reduce_window", "select_and_scatter", "map",
		"dynamic_broadcast_in_dim", "dynamic_iota", "dynamic_reshape", "real_dynamic_slice", "dynamic_gather", "dynamic_pad",
		"get_dimension_size", "broadcast"} {
		own["stablehlo."+n] = true
	}
	return own
}

// TestCorpus runs this family's corpus files on the embedded device. A
// failure attributed to one of this package's ops fails the test; other
// failures (parser, other op families) are logged.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	root, err := conform.FindCorpus(".")
	if err != nil {
		t.Skipf("conformance corpus not found: %v", err)
	}
	var files []string
	add := func(dir string, re *regexp.Regexp) {
		es, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if !e.IsDir() && re.MatchString(e.Name()) {
				files = append(files, filepath.Join(root, dir, e.Name()))
			}
		}
	}
	add("interpret", interpretFiles)
	add("testdata", testdataFiles)
	if len(files) == 0 {
		t.Skip("no corpus files for this family")
	}
	rs, err := conform.RunFiles(conform.Options{Root: root}, files)
	if err != nil {
		t.Fatal(err)
	}
	own := ownOps()
	var mine, others, disabled []string
	pass, skip := 0, 0
	byOp := map[string]int{}
	for _, r := range rs {
		switch r.Status {
		case conform.Pass:
			pass++
		case conform.Skip:
			skip++
		default:
			line := r.Name() + ": " + conform.OneLine(r)
			if disabledUpstream(filepath.Join(root, r.File)) {
				// Upstream disables the interpreter run of this file (its
				// expectation depends on XLA's unstable sort, or similar).
				disabled = append(disabled, line)
				continue
			}
			if own[r.Op] || (r.Kind == conform.KindUnsupported && anyOwn(r.Missing, own)) {
				mine = append(mine, line)
			} else {
				others = append(others, line)
				byOp[string(r.Kind)+" "+r.Op]++
			}
		}
	}
	t.Logf("%d files, %d cases: %d passed, %d skipped, %d failed (%d attributed to this family, %d in files whose interpreter run upstream disables)",
		len(files), len(rs), pass, skip, len(mine)+len(others)+len(disabled), len(mine), len(disabled))
	for _, l := range disabled {
		t.Log("disabled upstream: " + l)
	}
	if len(others) > 0 {
		var keys []string
		for k := range byOp {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %d\n", k, byOp[k])
		}
		t.Logf("failures outside this family, by kind and op:\n%s", b.String())
		if testing.Verbose() {
			for _, l := range others {
				t.Log(l)
			}
		}
	}
	for _, l := range mine {
		t.Error(l)
	}
}

// disabledUpstream reports whether the file's interpreter RUN line is
// disabled upstream (`// RUN-DISABLED(...)`).
func disabledUpstream(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.HasPrefix(first, "// RUN-DISABLED")
}

func anyOwn(ops []string, own map[string]bool) bool {
	for _, o := range ops {
		if own[o] {
			return true
		}
	}
	return false
}

// Every op this family claims is registered.
func TestRegistered(t *testing.T) {
	for op := range ownOps() {
		if kernel.Lookup(op) == nil {
			t.Errorf("%s is not registered", op)
		}
	}
}
