//go:build !windows

package atomicfile

import (
	"io"

	"github.com/google/renameio/v2"
)

// Write creates or replaces path with what write writes. The file appears
// at path only once write has returned nil and the data are closed; on an
// error or a panic in write, path is as it was and the temporary file is
// gone. A new file gets 0666 less the umask, as os.Create gives; a
// replaced file keeps its permissions.
func Write(path string, write func(w io.Writer) error) error {
	f, err := renameio.NewPendingFile(path, renameio.WithExistingPermissions(), renameio.WithPermissions(0o666))
	if err != nil {
		return err
	}
	defer f.Cleanup() // a no-op once replaced
	if err := write(f); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}
