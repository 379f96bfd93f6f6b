package corpusdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindWalksUp(t *testing.T) {
	top := t.TempDir()
	want := filepath.Join(top, "shared", "conformance", "stablehlo")
	deep := filepath.Join(top, "a", "b")
	for _, d := range []string{want, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(deep, StableHLO)
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
	if _, err := Find(deep, IREE); err == nil {
		t.Fatal("Find of a missing corpus gave no error")
	}
}
