//go:build !windows

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A write that fails or panics leaves the old file, and no temporary file.
func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(w io.Writer) error { io.WriteString(w, "new"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	func() {
		defer func() { recover() }()
		Write(path, func(w io.Writer) error { io.WriteString(w, "new"); panic("read failed") })
	}()
	if got := read(t, path); got != "old" {
		t.Errorf("file holds %q, want old", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the directory, want the file only", len(ents))
	}
}

// A new file gets 0666 less the umask, as os.Create gives; a replaced one
// keeps its mode.
func TestPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	write := func(s string) {
		if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }); err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("new file: mode %v, want 0640 (0666 under umask 027)", fi.Mode().Perm())
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	write("b")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || read(t, path) != "b" {
		t.Errorf("replaced file: mode %v holding %q, want 0600 holding b", fi.Mode().Perm(), read(t, path))
	}
}
