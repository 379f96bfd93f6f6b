package control_test

import (
	"testing"

	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
)

// TestControlCorpus runs the corpus files of this package's ops end to end
// and requires every check to pass.
func TestControlCorpus(t *testing.T) {
	files := InterpretFiles(CorpusDir(t), "while", "if", "case", "call", "composite", "tuple_and_get_tuple_element",
		"optimization_barrier", "after_all")
	RunCorpus(t, "control", files, nil)
}
