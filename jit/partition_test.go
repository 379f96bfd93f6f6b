package jit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
)

// deviceHostDevice computes on the device, picks the non-zero positions on
// the host, and computes on the device again.
func deviceHostDevice(x *lazy.Tensor) *lazy.Tensor {
	y := x.MulScalar(2).SubScalar(1)
	idx := y.GtScalar(0).NonZero() // i64[n, 1]
	return idx.Cast(lazy.F32).MulScalar(10).AddScalar(1).Sum()
}

func TestPartitionDeviceHostDevice(t *testing.T) {
	freshDevice(t)
	f := jit.Compile(deviceHostDevice)
	x := lazy.FromSlice([]float32{0, 1, 0.2, 3, -1, 2})
	var got []float32
	d := jittest.Delta(func() { got = f(x).Float32s() })
	if s := jit.StatsOf(f); s.Compiles != 2 || s.Traces != 1 || s.HostFallbacks != 1 || d[lazy.MetricUncachedCompile] != 2 {
		t.Errorf("call 1: stats %s (counters %v)", s, d)
	}
	lazy.SetEager(true)
	want := deviceHostDevice(x).Float32s()
	lazy.SetEager(false)
	if fmt.Sprint(got) != fmt.Sprint(want) || got[0] != (10+1)+(30+1)+(50+1) {
		t.Errorf("got %v, eager %v", got, want)
	}
	for i := 0; i < 3; i++ {
		jittest.ExpectCounters(t, map[string]int64{
			lazy.MetricUncachedCompile:                0,
			lazy.MetricExecuteCount:                   2,
			lazy.MetricHostFallbackPrefix + "NonZero": 1,
			lazy.MetricJITTrace:                       0,
		}, func() { got = f(x).Float32s() })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("replay %d: got %v, want %v", i, got, want)
		}
	}
	// New data with a different number of non-zeros: the host result has a
	// new shape, the recorded rest of the graph is stale, so the call runs
	// lazily, with the right result.
	x2 := lazy.FromSlice([]float32{1, 1, 1, 1, 1, 1})
	got = f(x2).Float32s()
	if got[0] != 1+11+21+31+41+51 {
		t.Errorf("x2: got %v", got)
	}
	if s := jit.StatsOf(f); s.Traces != 1 {
		t.Errorf("stats %s", s)
	}
}

func TestOneHostOpCompilesNothing(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Unique() })
	x := lazy.FromSlice([]int32{3, 1, 3, 2, 1})
	for i := 0; i < 3; i++ {
		var got []int32
		jittest.ExpectCompiles(t, 0, func() { got = f(x).Int32s() })
		if fmt.Sprint(got) != "[1 2 3]" {
			t.Errorf("got %v", got)
		}
	}
	if s := jit.StatsOf(f); s.Compiles != 0 || s.HostFallbacks != 3 {
		t.Errorf("stats %s", s)
	}
}

func TestHostFuncInsideCompiled(t *testing.T) {
	freshDevice(t)
	double := func(in []*hlo.Literal) ([]*hlo.Literal, error) {
		out := in[0].Clone()
		for i, v := range out.F32() {
			out.F32()[i] = 2 * v
		}
		return []*hlo.Literal{out}, nil
	}
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		y := lazy.HostFunc("double", double, x.Shape())(x.AddScalar(1.25))[0]
		return y.MulScalar(3)
	})
	x := lazy.FromSlice([]float32{1, 2, 0, 0, 0, 0, 0})
	var got []float32
	d := jittest.Delta(func() { got = f(x).Float32s() })
	// Declared output shapes: the trace records the host node without running it.
	if d[lazy.MetricHostFallbackPrefix+"HostFunc"] != 1 || d[lazy.MetricExecuteCount] != 2 {
		t.Errorf("call 1 counters %v", d)
	}
	if fmt.Sprint(got) != "[13.5 19.5 7.5 7.5 7.5 7.5 7.5]" {
		t.Errorf("got %v", got)
	}
	if s := jit.StatsOf(f); s.Compiles != 2 || s.HostFallbacks != 1 {
		t.Errorf("stats %s", s)
	}
}

func TestMaskedSelectInsideCompiled(t *testing.T) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		return x.MaskedSelect(x.GtScalar(0)).Square().Sum()
	})
	x := lazy.FromSlice([]float32{-1, 2, -3, 4})
	for i := 0; i < 2; i++ {
		if got := f(x).Float32s(); got[0] != 20 {
			t.Errorf("got %v", got)
		}
	}
}

// Sizes of host results read by Go code become constants of the trace: a
// call whose host result has another size must not replay them.
func TestHostResultSizeNotBakedIn(t *testing.T) {
	mean := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MaskedSelect(x.GtScalar(0)).Mean() })
	count := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return lazy.Full(lazy.F32, float64(x.NonZero().Dim(0))) })
	for _, tc := range []struct {
		x           []float32
		mean, count float32
	}{
		{[]float32{1, -1, 2}, 1.5, 3},
		{[]float32{1, 4, 2}, 7.0 / 3, 3},
		{[]float32{6, -1, -1}, 6, 3},
		{[]float32{0, 1, 1}, 1, 2},
	} {
		x := lazy.FromSlice(tc.x)
		if got := mean(x).Float32s()[0]; got != tc.mean {
			t.Errorf("mean(%v) = %v, want %v", tc.x, got, tc.mean)
		}
		if got := count(x).Float32s()[0]; got != tc.count {
			t.Errorf("count(%v) = %v, want %v", tc.x, got, tc.count)
		}
	}
	if ex := jit.Explain(mean); !strings.Contains(ex, "lazy call: host op MaskedSelect") {
		t.Errorf("Explain:\n%s", ex)
	}
}

// TestStagedConcurrentReplays: the split graph's interpreter is shared by
// every replay of an entry; replays on several goroutines at once give
// the eager result (run with -race).
func TestStagedConcurrentReplays(t *testing.T) {
	freshDevice(t)
	f := jit.Compile(deviceHostDevice)
	x := lazy.FromSlice([]float32{0, 1, 0.2, 3, -1, 2})
	want := fmt.Sprint(f(x).Float32s())
	errs := make(chan string, 4)
	for range 4 {
		go func() {
			msg := ""
			for range 10 {
				if got := fmt.Sprint(f(x).Float32s()); got != want && msg == "" {
					msg = got
				}
			}
			errs <- msg
		}()
	}
	for range 4 {
		if msg := <-errs; msg != "" {
			t.Errorf("a concurrent replay gave %s, want %s", msg, want)
		}
	}
	if s := jit.StatsOf(f); s.Traces != 1 || s.HostFallbacks != 41 {
		t.Errorf("stats %s", s)
	}
}
