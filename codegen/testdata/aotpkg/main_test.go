package main

import (
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

// The tracing program builds this file too: the wrappers it calls are
// stubs there.
func TestNoisy(t *testing.T) {
	if _, _, err := NoisyAOT(lazy.Zeros(lazy.F32, 4)); err != nil {
		t.Fatal(err)
	}
}
