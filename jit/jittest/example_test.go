package jittest_test

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

// printT stands in for the *testing.T of a real test: it prints failures.
type printT struct{ testing.TB }

func (printT) Helper() {}
func (printT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
}

func ExampleExpectCompiles() {
	// The compile cache is per device and process-wide: a fresh device
	// makes the uncached-compile counts independent of what ran before.
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(lazy.DevicesOf(host.NewClient(1))[0])
	defer lazy.SetDefaultDevice(old)

	var t testing.TB = printT{} // in a test: the test's t
	step := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(2).AddScalar(1) })
	x := lazy.FromSlice([]float32{1, 2, 3})

	jittest.ExpectCompiles(t, 1, func() { step(x) }) // the first call compiles
	jittest.ExpectCompiles(t, 0, func() {            // replays do not
		for range 5 {
			step(x)
		}
	})
	jittest.ExpectNoRecompile(t, step, func() { step(lazy.FromSlice([]float32{4, 5, 6})) }) // new data, same shape
	jittest.ExpectStats(t, step, jit.Stats{Calls: 1, Traces: 1, Compiles: 1, Replays: 1, Recompiles: 1}, func() {
		step(lazy.FromSlice([]float32{1, 2})) // a new shape traces and compiles again
	})
	// A failing check reports what changed.
	jittest.ExpectCompiles(t, 0, func() { step(lazy.FromSlice([]float32{1})) })
	// Output:
	// FAIL: counter changes differ:
	//   UncachedCompile: got 1, want 0
	// all changes: map[ExecuteCount:1 JitRecompile:1 JitReplay:1 JitTrace:1 TransferToDevice:1 UncachedCompile:1]
}
