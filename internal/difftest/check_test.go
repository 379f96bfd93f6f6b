package difftest

import (
	"testing"

	"github.com/xlajit/xlajit/jit"
)

// In a program with a host op of data-dependent shape a call may run
// lazily (the op's result changed shape), but a graph break the analysis
// did not predict is still a failure: the checker let every such break
// pass, so a Restore after NonZero that stopped compiling went unnoticed.
func TestStatsCheckSeesUnpredictedBreakWithHostOps(t *testing.T) {
	st := &state{hostDyn: true}
	ref := &modeRun{mode: Lazy, calls: []callObs{{sig: "v0"}}}
	r := &modeRun{mode: Jit, calls: []callObs{{sig: "v0", stats: jit.Stats{Calls: 1, GraphBreaks: 1}}}}
	if f := checkStats(st, ref, r); f == nil || f.Family != "stats/jit/unpredicted-graph-break" {
		t.Errorf("a graph break nothing predicted: %v, want an unpredicted-graph-break failure", f)
	}
	r.calls[0].stats = jit.Stats{Calls: 1, Traces: 1}
	if f := checkStats(st, ref, r); f != nil {
		t.Errorf("a traced call that ran lazily: %v, want no failure", f)
	}
	ref.calls[0].reads = 1
	r.calls[0].stats = jit.Stats{Calls: 1, GraphBreaks: 1}
	if f := checkStats(st, ref, r); f != nil {
		t.Errorf("a predicted graph break: %v, want no failure", f)
	}
}
