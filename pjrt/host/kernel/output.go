package kernel

import (
	"io"
	"os"
	"sync"
)

// Printed output. interpreter.print writes through the run's check log, so
// that a test runner can capture what a program prints (the reference
// interpreter's stdout, which FileCheck reads) while other runs print to
// the process's stdout. Each Print is written whole, so the prints of
// concurrent devices never interleave within one another.

type outputSink struct {
	mu sync.Mutex
	w  io.Writer
}

// SetOutput sends what the run prints to w instead of os.Stdout.
func (l *CheckLog) SetOutput(w io.Writer) {
	l.out.mu.Lock()
	defer l.out.mu.Unlock()
	l.out.w = w
}

// Print writes s to the log's output (os.Stdout unless SetOutput chose
// another writer).
func (l *CheckLog) Print(s string) error {
	l.out.mu.Lock()
	defer l.out.mu.Unlock()
	w := l.out.w
	if w == nil {
		w = os.Stdout
	}
	_, err := io.WriteString(w, s)
	return err
}
