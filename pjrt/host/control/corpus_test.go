package control_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// corpusDir finds shared/conformance/stablehlo by walking up from the
// package directory.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		c := filepath.Join(dir, "shared", "conformance", "stablehlo")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("conformance corpus (shared/conformance/stablehlo) not found above the package directory")
		}
		dir = parent
	}
}

// controlCorpus lists the corpus files that exercise this package's ops.
func controlCorpus(t *testing.T, root string) []string {
	var files []string
	for _, name := range []string{"while", "if", "case", "call", "composite", "tuple_and_get_tuple_element",
		"optimization_barrier", "after_all", "all_reduce", "all_gather", "all_to_all", "reduce_scatter",
		"collective_broadcast", "collective_permute", "collective_reduce", "replica_id", "partition_id",
		"send_recv", "infeed", "outfeed", "check"} {
		f := filepath.Join(root, "interpret", name+".mlir")
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	chlo, _ := filepath.Glob(filepath.Join(root, "interpret", "chlo", "*.mlir"))
	data, _ := filepath.Glob(filepath.Join(root, "testdata", "*_chlo*.mlir"))
	files = append(files, chlo...)
	files = append(files, data...)
	sort.Strings(files)
	return files
}

// corpusCase is one split part of a corpus file.
type corpusCase struct {
	name string
	src  string
}

// splitParts splits like MLIR's -split-input-file: on the substring
// "// -----".
func splitParts(path string, src string) []corpusCase {
	parts := strings.Split(src, "// -----")
	var out []corpusCase
	for i, p := range parts {
		out = append(out, corpusCase{name: fmt.Sprintf("%s#%d", filepath.Base(path), i), src: p})
	}
	return out
}

// runCase parses, compiles and runs one part; it returns the check log.
func runCase(path string, c corpusCase) (*kernel.CheckLog, error) {
	m, err := hlo.ParseModule(path, []byte(c.src))
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	p, err := host.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	log := &kernel.CheckLog{}
	cancel := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log, Cancel: cancel}, nil)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		close(cancel)
		err = <-done
		if errors.Is(err, kernel.ErrCanceled) {
			err = fmt.Errorf("timed out after 60s: %w", err)
		}
	}
	if err != nil {
		return log, fmt.Errorf("run: %w", err)
	}
	return log, nil
}

// corpusExpectedFailures lists parts known to fail, with the reason.
var corpusExpectedFailures = map[string]string{
	"random_gamma_float64_chlo.mlir#0": "12 ULP off XLA's value: the sampler's small-alpha boost (u^(1/alpha), alpha = 0.0246) " +
		"magnifies the last-bit differences between our float64 log/exp/pow and XLA's about 40-fold; no CHLO op is involved in the difference",
}

// TestControlCorpus runs the corpus files of this package's ops end to end
// (parser, planner, every op family) and requires every check to pass.
func TestControlCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	root := corpusDir(t)
	passed, failed, total := 0, 0, 0
	for _, path := range controlCorpus(t, root) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Upstream does not run RUN-DISABLED files; a failure there is
		// logged, not an error.
		first, _, _ := strings.Cut(string(src), "\n")
		disabled := strings.HasPrefix(first, "// RUN-DISABLED")
		for _, c := range splitParts(path, string(src)) {
			if strings.TrimSpace(stripComments(c.src)) == "" {
				continue
			}
			total++
			log, err := runCase(path, c)
			bad := err
			if err == nil && len(log.Failed) > 0 {
				bad = fmt.Errorf("%d of %d checks failed; first: %s", len(log.Failed), len(log.Failed)+log.Passed, log.Failed[0])
			}
			if why, expected := corpusExpectedFailures[c.name]; expected {
				if bad == nil {
					t.Errorf("%s: passes but is listed as an expected failure (%s)", c.name, why)
				}
				continue
			}
			if bad != nil && disabled {
				t.Logf("%s (upstream %s): fails: %v", c.name, strings.TrimPrefix(first, "// "), bad)
				continue
			}
			if bad != nil {
				failed++
				t.Errorf("%s: %v", c.name, bad)
				continue
			}
			passed++
		}
	}
	t.Logf("control corpus: %d parts, %d passed, %d failed, %d expected failures", total, passed, failed, len(corpusExpectedFailures))
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "//") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
