package jit_test

import (
	"fmt"
	"slices"
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
// executable run directly); replay overhead = replay - execute, which
// BenchmarkReplayOverhead measures without the execution's variation.
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
			// The call's host-side cost: the call minus the device
			// execution it contains (ExecuteTime, measured in the same
			// calls). BenchmarkReplayOverhead compares it with a direct run.
			_, exec1 := lazy.TimerData(lazy.MetricExecuteTime)
			b.ReportMetric(float64((b.Elapsed()-(exec1-exec0)).Nanoseconds())/float64(b.N), "host-ns/op")
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
			_, exec0 := lazy.TimerData(lazy.MetricExecuteTime)
			for b.Loop() {
				if _, err := exe.Run(ins); err != nil {
					b.Fatal(err)
				}
			}
			_, exec1 := lazy.TimerData(lazy.MetricExecuteTime)
			b.ReportMetric(float64((b.Elapsed()-(exec1-exec0)).Nanoseconds())/float64(b.N), "host-ns/op")
		})
	}
}

// BenchmarkReplayOverhead measures the jit's own cost per call for chains
// of n cheap ops: each iteration times a jit call and a direct run of the
// same cached executable (the execute-only baseline), in alternating order
// so both see the same cache state, and takes from each the device
// execution it contains (ExecuteTime, read around the same call). What is
// left is the host-side cost of the call; overhead = jit call - direct run.
// Subtracting the execution in each call, not in separate benchmarks,
// keeps the execution's run-to-run variation (microseconds at n = 1000)
// out of a difference of some hundred nanoseconds.
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
			host := func(call func()) time.Duration {
				_, e0 := lazy.TimerData(lazy.MetricExecuteTime)
				t0 := time.Now()
				call()
				d := time.Since(t0)
				_, e1 := lazy.TimerData(lazy.MetricExecuteTime)
				return d - (e1 - e0)
			}
			jitCall := func() { f(x) }
			direct := func() {
				if _, err := exe.Run(ins); err != nil {
					b.Fatal(err)
				}
			}
			var replay, run time.Duration
			diffs := make([]time.Duration, 0, 1<<16)
			i := 0
			for b.Loop() {
				var r, d time.Duration
				if i++; i&1 == 0 {
					r = host(jitCall)
					d = host(direct)
				} else {
					d = host(direct)
					r = host(jitCall)
				}
				replay, run = replay+r, run+d
				diffs = append(diffs, r-d)
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
			b.ReportMetric(per(replay-run), "overhead-ns/op")
			b.ReportMetric(per(replay), "jit-host-ns/op")
			b.ReportMetric(per(run), "run-host-ns/op")
			// The median pair: robust to an interrupt or GC pause landing in
			// one of the two windows (the mean above is the cost per call).
			slices.Sort(diffs)
			b.ReportMetric(float64(diffs[len(diffs)/2].Nanoseconds()), "overhead-median-ns/op")
		})
	}
}
