package conform

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/internal/corpusdir"
)

// Files expands paths (files or directories, walked recursively) into the
// sorted list of .mlir files they hold. A named file is taken whatever its
// extension.
func Files(paths ...string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".mlir") && !seen[path] {
				seen[path] = true
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// CorpusDir is the corpus location relative to an ancestor directory.
const CorpusDir = corpusdir.StableHLO

// IREECorpusDir is the location of IREE's end-to-end op tests, likewise.
const IREECorpusDir = corpusdir.IREE

// FindCorpus walks up from dir to the first directory holding
// shared/conformance/stablehlo and returns that corpus root.
func FindCorpus(dir string) (string, error) { return FindCorpusDir(dir, CorpusDir) }

// FindCorpusDir walks up from dir to the first directory holding rel and
// returns that directory's rel.
func FindCorpusDir(dir, rel string) (string, error) {
	c, err := corpusdir.Find(dir, rel)
	if err != nil {
		return "", fmt.Errorf("conform: %w", err)
	}
	return c, nil
}

// relName returns path relative to root with forward slashes when it lies
// inside root, otherwise path unchanged.
func relName(root, path string) string {
	if root == "" {
		return filepath.ToSlash(path)
	}
	ar, err1 := filepath.Abs(root)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(ar, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}
