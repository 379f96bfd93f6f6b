package plugin

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoCgo is returned by every loader of a binary built with CGO_ENABLED=0.
var ErrNoCgo = errors.New("pjrt/plugin: built without cgo (CGO_ENABLED=0): PJRT plugins cannot be loaded; rebuild with CGO_ENABLED=1 and a C compiler")

// LoadError reports why the file at Path cannot be used as a PJRT plugin.
type LoadError struct {
	Path  string
	Cause error
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("pjrt/plugin: %s: %s", e.Path, strings.TrimPrefix(e.Cause.Error(), "pjrt/plugin: "))
}

func (e *LoadError) Unwrap() error { return e.Cause }

func loadErr(path string, format string, args ...any) error {
	return &LoadError{Path: path, Cause: fmt.Errorf(format, args...)}
}

// NotFoundError reports that no plugin matched a PJRT_DEVICE spec.
type NotFoundError struct {
	Spec  string
	Tried []string // directories and patterns that were searched
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("pjrt/plugin: no PJRT plugin found for PJRT_DEVICE=%q", e.Spec)
	if len(e.Tried) > 0 {
		msg += "; searched:"
		for _, t := range e.Tried {
			msg += "\n  " + t
		}
	}
	return msg + "\n(set PJRT_DEVICE to the plugin's absolute path, or PJRT_PLUGIN_LIBRARY_PATH to the directories holding it)"
}
