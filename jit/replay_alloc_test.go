package jit_test

import (
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// A warm call through a fast wrapper allocates no more than running its
// executable directly: the wrapper's argument list, the guard key and the
// parameters gathered from captures stay on the stack.
func TestFastReplayAllocatesOnlyWhatItsExecutableDoes(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector drops sync.Pool entries at random")
	}
	w := lazy.FromSlice([]float32{2})
	for _, c := range []struct {
		name string
		fn   func(x *lazy.Tensor) *lazy.Tensor
	}{
		{"arguments", func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) }},
		{"capture", func(x *lazy.Tensor) *lazy.Tensor { return x.Mul(w) }},
	} {
		x := lazy.FromSlice([]float32{1})
		f := jit.Compile(c.fn)
		f(x)
		g := lazy.CollectGraph([]lazy.Value{c.fn(x).IR()})
		exe, _, err := lazy.CompileGraph(x.Device(), g, "test")
		if err != nil {
			t.Fatal(err)
		}
		ins := []*lazy.Tensor{x, w}[:len(g.Params)]
		run := testing.AllocsPerRun(100, func() {
			if _, err := exe.Run(ins); err != nil {
				t.Fatal(err)
			}
		})
		call := testing.AllocsPerRun(100, func() { f(x) })
		if call > run {
			t.Errorf("%s: a warm call allocates %.0f objects, its executable run alone %.0f", c.name, call, run)
		}
		if s := jit.StatsOf(f); s.Traces != 1 || s.Replays != s.Calls {
			t.Errorf("%s: stats %s, want one trace and every call a replay", c.name, s)
		}
	}
}

// trainStepAllocs bounds what one replayed MNIST training step (batch 64,
// 784-128-10, SGD with momentum, every parameter and momentum donated)
// allocates in steady state: the reflective call's argument and result
// lists, the result tensors (one block) and their buffers (one block), and
// the loss's storage, with one to spare. The check flags of the step and
// of its pre-check are read as bytes into pooled storage, the output lists
// are the caller's, and large results in donated storage keep their
// storage's account (no cleanup per step).
const trainStepAllocs = 6

// A steady-state training step through jit allocates a bounded, small
// number of objects, however many intermediates and GEMM tasks it runs:
// kernels' scratch, task closures, argument and donation lists are pooled.
func TestTrainStepAllocationBound(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector drops sync.Pool entries at random")
	}
	m := newMLP()
	x, y := batch(64, 784)
	step := jit.Compile(mlpStep)
	checkStepAllocs(t, "training step", 50, step, func() { step(m, x, y) })
}

// checkStepAllocs runs call (a step compiled as step) until it replays,
// then checks that a replay allocates at most trainStepAllocs objects and
// that it was traced once.
func checkStepAllocs(t *testing.T, what string, runs int, step any, call func()) {
	t.Helper()
	for range 3 {
		call()
	}
	if n := testing.AllocsPerRun(runs, call); n > trainStepAllocs {
		t.Errorf("a steady-state %s allocates %.0f objects, want at most %d", what, n, trainStepAllocs)
	}
	if s := jit.StatsOf(step); s.Traces != 1 {
		t.Errorf("stats %s, want one trace", s)
	}
}

// The small CNN's step (two convolutions with bias and ReLU, max pools, a
// linear head, cross-entropy, SGD) allocates no more than the MNIST step:
// its gradients and check flags of equal byte size and different types
// take pooled storage without new headers.
func TestCNNTrainStepAllocationBound(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector drops sync.Pool entries at random")
	}
	m := newCNN()
	x, y := batch(64, 1, 28, 28)
	step := jit.Compile(cnnStep)
	checkStepAllocs(t, "CNN training step", 20, step, func() { step(m, x, y) })
}
