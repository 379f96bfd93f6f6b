package linalg

import (
	"math/rand/v2"
	"testing"
)

// A warm product allocates nothing, on one worker or several, with partial
// tiles at the edges and as a batch of small products: its tasks, their
// runner and the partial tile are pooled.
func TestGemmAllocatesNothingWhenWarm(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector drops sync.Pool entries at random")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, kern := range kernelsF32() {
		for _, c := range []struct{ batch, m, n, k, workers int }{
			{1, 64, 128, 784, 1},
			{1, 70, 130, 300, 2}, // partial row panels and column tiles
			{1, 512, 40, 64, 2},  // split by rows, B packed whole
			{8, 12, 20, 16, 2},   // one small product per task
		} {
			a := randMatrix[float32](r, c.batch, c.m, c.k, false)
			b := randMatrix[float32](r, c.batch, c.k, c.n, true)
			out := randMatrix[float32](r, c.batch, c.m, c.n, false)
			run := func() {
				if c.batch > 1 {
					gemmEx(kern, c.batch, c.m, c.n, c.k, a, b, out, &gemmOpts[float32]{overwrite: true})
					return
				}
				gemm2D(kern, c.m, c.n, c.k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, out.data, 0, out.rs, c.workers, &gemmOpts[float32]{overwrite: true}, 0)
			}
			run()
			if n := testing.AllocsPerRun(20, run); n > 0 {
				t.Errorf("%s %+v: a warm product allocates %.1f objects, want 0", kern.name, c, n)
			}
		}
	}
}
