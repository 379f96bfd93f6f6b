//go:build unix

package codegen

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether process pid may still be running: false
// only when the system says it is not.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
