package collective_test

import (
	"testing"

	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
)

// TestCollectiveCorpus runs the corpus files of this package's ops end to
// end and requires every check to pass.
func TestCollectiveCorpus(t *testing.T) {
	files := InterpretFiles(CorpusDir(t), "all_reduce", "all_gather", "all_to_all", "reduce_scatter",
		"collective_broadcast", "collective_permute", "collective_reduce", "replica_id", "partition_id",
		"send_recv", "infeed", "outfeed")
	RunCorpus(t, "collective", files, nil)
}
