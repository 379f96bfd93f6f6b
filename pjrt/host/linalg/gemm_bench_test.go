package linalg

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// gemmBenchShapes are the products the side-by-side table runs: square
// matrices, and the MLP's layers (batch 64, 784-512-512-10, x·Wᵀ with the
// weight [out, in] read transposed).
var gemmBenchShapes = []struct {
	name    string
	m, n, k int
	tb      bool
}{
	{"sq256", 256, 256, 256, false},
	{"sq512", 512, 512, 512, false},
	{"sq1024", 1024, 1024, 1024, false},
	{"mlp64x784x512", 64, 512, 784, true},
	{"mlp64x512x512", 64, 512, 512, true},
	{"mlp64x512x10", 64, 10, 512, true},
	{"head64x96x512", 64, 96, 512, false},
	{"skinny2048x64x64", 2048, 64, 64, false},
	{"skinny64x2048x64", 64, 2048, 64, false},
}

var benchWorkers = flag.Int("gemm.workers", 0, "BenchmarkGemm: split products for this many workers (0: kernel.Workers())")

// BenchmarkGemm times the f32 GEMM alone (C preallocated, overwritten) on
// kernel.Workers() goroutines, with B packed per call ("pack") and with B
// packed once and kept, as for a stable weight ("kept"), and reports
// GFLOP/s. Run it with GOMAXPROCS=1 under taskset for the single-thread
// rate, beside bench/fmapeak's peak; there, -gemm.workers=2 runs the tasks
// of a two-way split one after the other on that thread, which prices the
// split (its re-reads of A, its per-task costs) without the noise of a
// second core shared with other work.
func BenchmarkGemm(b *testing.B) {
	for _, s := range gemmBenchShapes {
		kern := bestF32().forColumns(s.n) // as dot_general picks it
		for _, mode := range []string{"pack", "kept"} {
			b.Run(fmt.Sprintf("%s/%s", s.name, mode), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				a := randMatrix[float32](r, 1, s.m, s.k, false)
				bm := randMatrix[float32](r, 1, s.k, s.n, s.tb)
				c := make([]float32, s.m*s.n)
				workers := kernel.Workers()
				if *benchWorkers > 0 {
					workers = *benchWorkers
				}
				if s.m*s.n*s.k < gemmParallelMin {
					workers = 1
				}
				o := &gemmOpts[float32]{overwrite: true}
				if mode == "kept" {
					o.keepB, o.packedB = true, make([][]float32, 1)
					gemm2D(kern, s.m, s.n, s.k, a.data, a.off[0], a.rs, a.cs, bm.data, bm.off[0], bm.rs, bm.cs, c, 0, s.n, workers, o, 0)
					o.keepB = false
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					gemm2D(kern, s.m, s.n, s.k, a.data, a.off[0], a.rs, a.cs, bm.data, bm.off[0], bm.rs, bm.cs, c, 0, s.n, workers, o, 0)
				}
				b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
