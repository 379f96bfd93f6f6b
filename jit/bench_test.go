package jit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// BenchmarkWarmTinyCall is one replayed call of x+1 on a 1-element f32.
func BenchmarkWarmTinyCall(b *testing.B) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) })
	x := lazy.FromSlice([]float32{1})
	f(x)
	b.ReportAllocs()
	for b.Loop() {
		f(x)
	}
}

func chain(n int) func(x *lazy.Tensor) *lazy.Tensor {
	return func(x *lazy.Tensor) *lazy.Tensor {
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				x = x.AddScalar(1)
			} else {
				x = x.MulScalar(0.5)
			}
		}
		return x
	}
}

// BenchmarkReplay measures calls of a chain of n cheap ops on a 1-element
// tensor: jit replay, lazy-mode retrace of the same function (build IR,
// hash, cached compile, execute), and the execute-only baseline (the cached
// executable run directly); replay overhead = replay - execute.
func BenchmarkReplay(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		fn := chain(n)
		x := lazy.FromSlice([]float32{1})
		b.Run(fmt.Sprintf("jit/ops=%d", n), func(b *testing.B) {
			f := jit.Compile(fn)
			f(x)
			b.ReportAllocs()
			_, exec0 := lazy.TimerData(lazy.MetricExecuteTime)
			for b.Loop() {
				f(x)
			}
			// The replay's own cost: the call minus the device execution
			// it contains (ExecuteTime, measured in the same calls).
			_, exec1 := lazy.TimerData(lazy.MetricExecuteTime)
			b.ReportMetric(float64((b.Elapsed()-(exec1-exec0)).Nanoseconds())/float64(b.N), "overhead-ns/op")
		})
		b.Run(fmt.Sprintf("lazy/ops=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				y := fn(x)
				if err := lazy.Sync(y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("execute/ops=%d", n), func(b *testing.B) {
			g := lazy.CollectGraph([]lazy.Value{fn(x).IR()})
			exe, _, err := lazy.CompileGraph(x.Device(), g, "bench")
			if err != nil {
				b.Fatal(err)
			}
			ins := []*lazy.Tensor{x}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := exe.Run(ins); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplayOverhead measures the jit's own cost per call: each
// iteration runs the cached executable directly (the execute-only
// baseline) and then the compiled function on the same input, so both see
// the same cache state; overhead = jit call - direct execution.
func BenchmarkReplayOverhead(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			fn := chain(n)
			x := lazy.FromSlice([]float32{1})
			f := jit.Compile(fn)
			f(x)
			g := lazy.CollectGraph([]lazy.Value{fn(x).IR()})
			exe, _, err := lazy.CompileGraph(x.Device(), g, "bench")
			if err != nil {
				b.Fatal(err)
			}
			ins := []*lazy.Tensor{x}
			var base, call time.Duration
			for b.Loop() {
				t0 := time.Now()
				f(x)
				t1 := time.Now()
				if _, err := exe.Run(ins); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				call += t1.Sub(t0)
				base += t2.Sub(t1)
			}
			b.ReportMetric(float64((call-base).Nanoseconds())/float64(b.N), "overhead-ns/op")
		})
	}
}
