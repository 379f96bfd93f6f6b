package check_test

import (
	"testing"

	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
)

// TestCheckCorpus runs the corpus's file of the check dialect end to end
// and requires every check to pass.
func TestCheckCorpus(t *testing.T) {
	RunCorpus(t, "check", InterpretFiles(CorpusDir(t), "check"), nil)
}
