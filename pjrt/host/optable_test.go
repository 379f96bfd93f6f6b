package host

import (
	"sort"
	"testing"

	"github.com/xlajit/xlajit/hlo/optable"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// TestKernelsMatchOpTable checks the embedded device against hlo's op table
// (hlo/optable): every op of the table has a kernel or says why not
// (NoKernel), no op with a kernel carries a stale reason, every kernel runs
// an op of the table, and a kernel the planner fuses as elementwise runs an
// op whose table class is elementwise. The table lists every op hlo reads: the
// StableHLO, CHLO, check, interpreter and func ops and IREE's test helpers
// (iree_check.*), so a kernel whose name is in none of them is a typo or an
// op hlo cannot parse.
func TestKernelsMatchOpTable(t *testing.T) {
	ops := optable.Ops()
	if len(ops) < 150 {
		t.Fatalf("the op table has %d rows", len(ops))
	}
	for _, o := range ops {
		e := kernel.Lookup(o.Name)
		has := e != nil
		if has && e.Elementwise != nil && o.Class == optable.NotElementwise {
			t.Errorf("%s: the kernel fuses it as elementwise, but the op table's class says it is not", o.Name)
		}
		switch {
		case !has && o.NoKernel == "":
			t.Errorf("%s has no kernel in the embedded device and the op table gives no reason (NoKernel)", o.Name)
		case has && o.NoKernel != "":
			t.Errorf("%s has a kernel, but the op table says it has none: %q", o.Name, o.NoKernel)
		}
	}
	names := kernel.Names()
	sort.Strings(names)
	for _, n := range names {
		if _, ok := optable.Lookup(n); !ok {
			t.Errorf("kernel %s runs an op that is not in hlo's op table (hlo/optable)", n)
		}
	}
}
