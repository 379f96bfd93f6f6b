package linalg_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/internal/conform"
)

// linalgOps are the ops this package implements.
var linalgOps = []string{
	"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.dynamic_conv",
	"stablehlo.fft", "stablehlo.triangular_solve", "stablehlo.cholesky", "stablehlo.rng_bit_generator",
	"stablehlo.batch_norm_training", "stablehlo.batch_norm_inference", "stablehlo.batch_norm_grad",
}

// corpusPrefixes name the corpus files about these ops.
var corpusPrefixes = []string{
	"interpret/dot_general.mlir", "interpret/convolution.mlir", "interpret/dynamic_conv.mlir",
	"interpret/fft.mlir", "interpret/triangular_solve.mlir", "interpret/cholesky.mlir",
	"interpret/rng_bit_generator.mlir",
	"testdata/dot_general_", "testdata/conv_general_dilated_", "testdata/fft_",
	"testdata/triangular_solve_", "testdata/cholesky_", "testdata/rng_bit_generator_",
}

func isLinalgOp(op string) bool {
	for _, o := range linalgOps {
		if op == o {
			return true
		}
	}
	return false
}

// TestCorpus runs the conformance files of this package's ops (and reports
// on every other corpus file that uses them) on the embedded device. A
// failing case of an own file, or any failure attributed to an own op,
// fails the test; failures another op family causes are only logged.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	wd, _ := os.Getwd()
	root, err := conform.FindCorpus(wd)
	if err != nil {
		t.Skipf("conformance corpus not found: %v", err)
	}
	own := map[string]bool{}
	var files []string
	for _, sub := range []string{"interpret", "testdata"} {
		entries, err := os.ReadDir(filepath.Join(root, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".mlir") {
				continue
			}
			rel := sub + "/" + e.Name()
			mine := false
			for _, p := range corpusPrefixes {
				if strings.HasPrefix(rel, p) {
					mine = true
				}
			}
			uses := mine
			if !mine && sub == "testdata" {
				src, err := os.ReadFile(filepath.Join(root, rel))
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range linalgOps {
					if strings.Contains(string(src), op+" ") || strings.Contains(string(src), op+"\"") {
						uses = true
					}
				}
			}
			if uses {
				files = append(files, filepath.Join(root, rel))
				own[rel] = mine
			}
		}
	}
	results, err := conform.RunFiles(conform.Options{Root: root}, files)
	if err != nil {
		t.Fatal(err)
	}
	// Cases the conformance runner lists as expected failures are reported,
	// not failed: that list is the project's one record of known gaps.
	expected, err := conform.ReadExpected(filepath.Join(wd, "..", "..", "..", "internal", "conform", "testdata", "expected_failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var pass, fail, skip, ownPass, ownTotal int
	others := map[string]int{}
	for _, r := range results {
		if own[r.File] {
			ownTotal++
		}
		switch r.Status {
		case conform.Pass:
			pass++
			if own[r.File] {
				ownPass++
			}
		case conform.Skip:
			skip++
		default:
			fail++
			switch {
			case expected[r.ID()] != "":
				t.Logf("expected failure: %s: %s", r.Name(), firstLine(r.Reason))
			case isLinalgOp(r.Op):
				t.Errorf("%s: %s failure in %s: %s", r.Name(), r.Kind, r.Op, r.Reason)
			case own[r.File] && (r.Kind == conform.KindCheck || r.Kind == conform.KindNoCheck || r.Kind == conform.KindTimeout || r.Kind == conform.KindPanic):
				t.Errorf("%s: %s: %s", r.Name(), r.Kind, r.Reason)
			default:
				key := string(r.Kind) + " " + r.Op
				others[key]++
				t.Logf("not linalg: %s: %s %s: %s", r.Name(), r.Kind, r.Op, firstLine(r.Reason))
			}
		}
	}
	keys := make([]string, 0, len(others))
	for k := range others {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%d cases: %d passed, %d failed, %d skipped; own files %d/%d passed; failures of other families: %v",
		len(results), pass, fail, skip, ownPass, ownTotal, keys)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
