package chlo_test

import (
	"path/filepath"
	"sort"
	"testing"

	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
)

// expectedFailures lists parts known to fail, with the reason.
var expectedFailures = map[string]string{
	"random_gamma_float64_chlo.mlir#0": "12 ULP off XLA's value: the sampler's small-alpha boost (u^(1/alpha), alpha = 0.0246) " +
		"magnifies the last-bit differences between our float64 log/exp/pow and XLA's about 40-fold; no CHLO op is involved in the difference",
}

// TestChloCorpus runs the corpus's CHLO files (the interpreter's chlo
// tests and the JAX-exported programs that use CHLO ops) end to end and
// requires every check to pass.
func TestChloCorpus(t *testing.T) {
	root := CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(root, "interpret", "chlo", "*.mlir"))
	data, _ := filepath.Glob(filepath.Join(root, "testdata", "*_chlo*.mlir"))
	files = append(files, data...)
	sort.Strings(files)
	RunCorpus(t, "chlo", files, expectedFailures)
}
