package corpusdir

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The corpora's locations relative to an ancestor directory.
const (
	StableHLO = "shared/conformance/stablehlo"
	IREE      = "shared/conformance/iree"
)

// Find walks up from dir to the first directory holding rel and returns
// that directory's rel.
func Find(dir, rel string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		c := filepath.Join(d, filepath.FromSlash(rel))
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no %s above %s", rel, dir)
		}
		d = up
	}
}

// Require returns rel found above the working directory, or skips t
// saying what was looked for.
func Require(t testing.TB, rel string) string {
	t.Helper()
	c, err := Find(".", rel)
	if err != nil {
		t.Skipf("conformance corpus not found: %v", err)
	}
	return c
}
