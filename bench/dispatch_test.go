package bench

// Warm dispatch of a tiny compiled graph (x+1 on a 1-element f32): the
// xlajit jit replay and GoMLX's graph.Exec on its pure-Go backend
// (simplego), default and ops_sequential, in one run.
//
//	go test -bench Dispatch -count 10 | benchstat -

import (
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

func BenchmarkDispatch(b *testing.B) {
	b.Run("impl=xlajit-jit", func(b *testing.B) {
		f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) })
		x := lazy.FromSlice([]float32{1})
		f(x)
		b.ReportAllocs()
		for b.Loop() {
			f(x)
		}
	})
	for _, cfg := range []string{"", "ops_sequential"} {
		name := "impl=gomlx-simplego"
		if cfg != "" {
			name += "-" + cfg
		}
		b.Run(name, func(b *testing.B) {
			backend, err := simplego.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			exec, err := graph.NewExec(backend, func(x *graph.Node) *graph.Node { return graph.AddScalar(x, float32(1)) })
			if err != nil {
				b.Fatal(err)
			}
			x := tensors.FromFlatDataAndDimensions([]float32{1}, 1)
			if _, err := exec.Exec1(x); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := exec.Exec1(x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
