package hosttest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/internal/corpusdir"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// CorpusDir finds shared/conformance/stablehlo above the package directory,
// or skips.
func CorpusDir(t *testing.T) string { return corpusdir.Require(t, corpusdir.StableHLO) }

// InterpretFiles lists the corpus's interpret/NAME.mlir files that exist
// for the given names.
func InterpretFiles(root string, names ...string) []string {
	var files []string
	for _, name := range names {
		f := filepath.Join(root, "interpret", name+".mlir")
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	return files
}

// Case is one split part of a corpus file.
type Case struct {
	Name string // file#part
	Src  string
}

// SplitParts splits like MLIR's -split-input-file: on the substring
// "// -----".
func SplitParts(path string, src string) []Case {
	parts := strings.Split(src, "// -----")
	var out []Case
	for i, p := range parts {
		out = append(out, Case{Name: fmt.Sprintf("%s#%d", filepath.Base(path), i), Src: p})
	}
	return out
}

// RunCase parses, compiles and runs one part; it returns the check log.
func RunCase(path string, c Case) (*kernel.CheckLog, error) {
	m, err := hlo.ParseModule(path, []byte(c.Src))
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

// RunCorpus runs corpus files end to end (parser, planner, every op
// family) and requires every check of every part to pass, but for the
// parts listed in expected (name: reason), which must fail, and parts of
// files upstream does not run (RUN-DISABLED), whose failures are logged.
func RunCorpus(t *testing.T, label string, files []string, expected map[string]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("corpus run skipped in -short mode")
	}
	passed, failed, total := 0, 0, 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Upstream does not run RUN-DISABLED files; a failure there is
		// logged, not an error.
		first, _, _ := strings.Cut(string(src), "\n")
		disabled := strings.HasPrefix(first, "// RUN-DISABLED")
		for _, c := range SplitParts(path, string(src)) {
			if strings.TrimSpace(StripComments(c.Src)) == "" {
				continue
			}
			total++
			log, err := RunCase(path, c)
			bad := err
			if err == nil && len(log.Failed) > 0 {
				bad = fmt.Errorf("%d of %d checks failed; first: %s", len(log.Failed), len(log.Failed)+log.Passed, log.Failed[0])
			}
			if why, listed := expected[c.Name]; listed {
				if bad == nil {
					t.Errorf("%s: passes but is listed as an expected failure (%s)", c.Name, why)
				}
				continue
			}
			if bad != nil && disabled {
				t.Logf("%s (upstream %s): fails: %v", c.Name, strings.TrimPrefix(first, "// "), bad)
				continue
			}
			if bad != nil {
				failed++
				t.Errorf("%s: %v", c.Name, bad)
				continue
			}
			passed++
		}
	}
	t.Logf("%s corpus: %d parts, %d passed, %d failed, %d expected failures", label, total, passed, failed, len(expected))
}

// StripComments drops the comment lines of s.
func StripComments(s string) string {
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
