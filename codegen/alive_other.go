//go:build !unix

package codegen

import "os"

// processAlive reports whether process pid may still be running: false
// only when the system says it is not (on Windows, FindProcess fails for
// a process that does not exist).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
