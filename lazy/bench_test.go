package lazy_test

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

// BenchmarkIRBuild measures recording n elementwise ops (no execution);
// ns/node is the cost of one IR node (shape rule, hash, allocation).
func BenchmarkIRBuild(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			x := lazy.FromSlice([]float32{1, 2, 3, 4})
			y := lazy.FromSlice([]float32{5, 6, 7, 8})
			b.ReportAllocs()
			for b.Loop() {
				z := x
				for i := 0; i < n; i++ {
					if i%2 == 0 {
						z = z.Add(y)
					} else {
						z = z.Mul(y)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// BenchmarkCachedCut measures one cut of a tiny graph whose executable is
// cached: collect, hash, cache lookup, execute, fetch.
func BenchmarkCachedCut(b *testing.B) {
	x := lazy.FromSlice([]float32{1})
	x.AddScalar(1).Float32s()
	b.ReportAllocs()
	for b.Loop() {
		x.AddScalar(1).Float32s()
	}
}
