//go:build windows

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write is the Unix Write's steps without renameio, which does not support
// Windows (where a rename over a file is not atomic): a temporary file
// beside path, renamed over it once write has returned nil and the file is
// closed.
func Write(path string, write func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	done = true
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
