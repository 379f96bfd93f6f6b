// Package atomicfile writes a file whole or not at all: data.WriteRecords
// and nn.SaveTensors write through it, so a write that fails (an error, a
// panic, a crash) leaves what was at the path as it was. It is a leaf of
// the module's import graph: any room may import it, and it imports none.
// On Unix it is github.com/google/renameio (a temporary file beside the
// target, renamed over it once complete); Windows, which renameio does not
// support, gets the same steps with os.CreateTemp and os.Rename.
package atomicfile
