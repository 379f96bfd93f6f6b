package jit_test

import (
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// The first call of a new function (trace, lower, verify, plan, run)
// allocates a bounded number of objects per traced op, the same for long
// and short graphs: each op is three IR nodes (a scalar constant, its
// broadcast, the elementwise op), and every stage keeps its per-op
// records in few allocations. (105 objects per op before the stages
// shared cells and dense tables, 57 before the trace's IR was copied
// rather than recorded again and lowering and planning cut their lists
// from shared arrays, 31 before ops, fx calls and copies came from chunks
// and a number's constant, a broadcast's attributes and elementwise
// shapes took fewer objects (8.2 measured); the bound leaves a little
// room.)
func TestFirstCallAllocationsPerOp(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector changes allocation counts")
	}
	x := lazy.FromSlice([]float32{1, 2, 3, 4})
	k := 0
	perOp := func(n int) float64 {
		return testing.AllocsPerRun(2, func() {
			k++
			kk := float64(k)
			f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return chain(n)(x).AddScalar(kk) })
			if err := lazy.Sync(f(x)); err != nil {
				t.Fatal(err)
			}
		}) / float64(n)
	}
	short, long := perOp(500), perOp(4000)
	t.Logf("objects per op: %.1f at 500 ops, %.1f at 4000", short, long)
	const bound = 10
	if long > bound {
		t.Errorf("a first call of a 4000-op chain allocates %.1f objects per op, want at most %d", long, bound)
	}
	if long > short*1.1 {
		t.Errorf("allocations per op grow with the graph: %.1f at 500 ops, %.1f at 4000", short, long)
	}
}
