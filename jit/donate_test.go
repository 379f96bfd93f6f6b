package jit_test

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/xlajit/xlajit/data/mnist"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

// mlp is a 784-128-10 perceptron with its momentum buffers.
type mlp struct {
	W1, B1, W2, B2 *lazy.Tensor
	V              [4]*lazy.Tensor
}

func (m *mlp) params() []*lazy.Tensor { return []*lazy.Tensor{m.W1, m.B1, m.W2, m.B2} }

func newMLP() *mlp {
	lazy.ManualSeed(3)
	m := &mlp{
		W1: lazy.RandN(lazy.F32, mnist.Pixels, 128).MulScalar(math.Sqrt(2.0 / mnist.Pixels)),
		B1: lazy.Zeros(lazy.F32, 128),
		W2: lazy.RandN(lazy.F32, 128, 10).MulScalar(math.Sqrt(2.0 / 128)),
		B2: lazy.Zeros(lazy.F32, 10),
	}
	for i, p := range m.params() {
		m.V[i] = lazy.ZerosLike(p)
	}
	if err := lazy.Sync(append(m.params(), m.V[:]...)...); err != nil {
		panic(err)
	}
	return m
}

func mlpStep(m *mlp, x, y *lazy.Tensor) *lazy.Tensor {
	loss := lazy.CrossEntropy(x.MatMul(m.W1).Add(m.B1).ReLU().MatMul(m.W2).Add(m.B2), y)
	for i, g := range lazy.Grad(loss, m.params()...) {
		v := m.V[i].MulScalar(0.9).Add(g)
		m.V[i].Assign(v)
		m.params()[i].Assign(m.params()[i].Sub(v.MulScalar(0.05)))
	}
	return loss
}

// TestTrainingDonatesEveryStep trains on real MNIST batches: from the second
// step on, every parameter and momentum buffer is donated to the step that
// overwrites it.
func TestTrainingDonatesEveryStep(t *testing.T) {
	train, _, err := mnist.Load()
	if err != nil {
		t.Skip(err)
	}
	steps := 1000
	if raceBuild {
		steps = 60
	}
	const batch = 64
	m := newMLP()
	step := jit.Compile(mlpStep)
	xs := make([]float32, batch*mnist.Pixels)
	ys := make([]int32, batch)
	var first, last float64
	for s := 0; s < steps; s++ {
		from := (s * batch) % (train.N - batch)
		train.Batch(from, batch, xs, ys)
		x, y := lazy.FromSlice(xs, batch, mnist.Pixels), lazy.FromSlice(ys, batch)
		before := lazy.Counter(lazy.MetricDonatedBuffers)
		loss := step(m, x, y)
		if d := lazy.Counter(lazy.MetricDonatedBuffers) - before; s > 0 && d < 8 {
			t.Fatalf("step %d donated %d buffers, want 8 (4 parameters, 4 momentum buffers)", s+1, d)
		}
		switch s {
		case 0:
			first = loss.Item()
		case steps - 1:
			last = loss.Item()
		}
	}
	if st := jit.StatsOf(step); st.Traces != 1 || st.Replays != int64(steps) {
		t.Errorf("stats %s: want 1 trace and %d replays", st, steps)
	}
	if !(last < first) {
		t.Errorf("loss did not fall: %.3f -> %.3f", first, last)
	}
}

// mlpGrads is the step without its update: the gradients.
func mlpGrads(m *mlp, x, y *lazy.Tensor) []*lazy.Tensor {
	loss := lazy.CrossEntropy(x.MatMul(m.W1).Add(m.B1).ReLU().MatMul(m.W2).Add(m.B2), y)
	return lazy.Grad(loss, m.params()...)
}

// wide is a linear model whose state (a 1024x1024 weight and its momentum)
// outweighs its activations (a batch of 8): a second copy of the state
// would show in the peak.
type wide struct{ W, V *lazy.Tensor }

func wideLoss(m *wide, x, y *lazy.Tensor) *lazy.Tensor { return x.MatMul(m.W).Sub(y).Square().Mean() }

func wideStep(m *wide, x, y *lazy.Tensor) *lazy.Tensor {
	loss := wideLoss(m, x, y)
	g := lazy.Grad(loss, m.W)[0]
	m.V.Assign(m.V.MulScalar(0.9).Add(g))
	m.W.Assign(m.W.Sub(m.V.MulScalar(0.01)))
	return loss
}

func wideGrads(m *wide, x, y *lazy.Tensor) []*lazy.Tensor {
	return lazy.Grad(wideLoss(m, x, y), m.W)
}

// TestTrainingStepPeakMemory measures a training step's peak device bytes:
// with its updates donated it needs one copy of the parameters, momentum
// and batch, plus what the forward and backward passes need (measured by a
// program that computes only the gradients), within 20 %. A second copy of
// the state would not fit for the wide model.
func TestTrainingStepPeakMemory(t *testing.T) {
	train, _, err := mnist.Load()
	if err != nil {
		t.Skip(err)
	}
	dev := lazy.DevicesOf(host.NewClient(1))[0]
	old := lazy.DefaultDevice()
	lazy.SetDefaultDevice(dev)
	defer lazy.SetDefaultDevice(old)
	c := dev.Client()
	// measure runs fn on a fresh batch and returns the bytes in use before
	// it (garbage collected) and the peak while it ran.
	measure := func(mk func() (x, y *lazy.Tensor), fn func(x, y *lazy.Tensor)) (before, top int64) {
		x, y := mk()
		settle()
		mi, _ := c.MemoryInfo(0)
		if err := pjrt.ResetPeakBytes(c, 0); err != nil {
			t.Fatal(err)
		}
		fn(x, y)
		after, _ := c.MemoryInfo(0)
		return mi.BytesInUse, after.PeakBytes
	}
	check := func(name string, mk func() (x, y *lazy.Tensor), step, grads func(x, y *lazy.Tensor)) {
		var activations int64
		for s := 0; s < 3; s++ { // warm: traces, pools
			step(mk())
			b, p := measure(mk, grads)
			activations = p - b
			t.Logf("%s warm %d: grads peak %d over %d", name, s, p-b, b)
		}
		for s := 0; s < 3; s++ {
			before, top := measure(mk, step)
			budget := before + activations
			t.Logf("%s step %d: %d bytes in use before, peak %d, one copy + activations %d", name, s, before, top, budget)
			if float64(top) > 1.2*float64(budget) {
				t.Errorf("%s step %d: peak %d bytes, more than 1.2 x %d (one copy of the state and batch, plus %d for the passes)", name, s, top, budget, activations)
			}
		}
	}

	const batch = 64
	m := newMLP()
	step, grads := jit.Compile(mlpStep), jit.Compile(mlpGrads)
	xs := make([]float32, batch*mnist.Pixels)
	ys := make([]int32, batch)
	k := 0
	mnistBatch := func() (x, y *lazy.Tensor) {
		train.Batch(k*batch, batch, xs, ys)
		k++
		return lazy.FromSlice(xs, batch, mnist.Pixels), lazy.FromSlice(ys, batch)
	}
	check("mnist", mnistBatch, func(x, y *lazy.Tensor) { step(m, x, y) }, func(x, y *lazy.Tensor) { grads(m, x, y) })

	w := &wide{W: lazy.RandN(lazy.F32, 1024, 1024).MulScalar(0.03), V: lazy.Zeros(lazy.F32, 1024, 1024)}
	lazy.Sync(w.W, w.V)
	wstep, wgrads := jit.Compile(wideStep), jit.Compile(wideGrads)
	wideBatch := func() (x, y *lazy.Tensor) { return lazy.RandN(lazy.F32, 8, 1024), lazy.RandN(lazy.F32, 8, 1024) }
	check("wide", wideBatch, func(x, y *lazy.Tensor) { wstep(w, x, y) }, func(x, y *lazy.Tensor) { wgrads(w, x, y) })
}

// settle collects garbage and waits for the buffer cleanups it queued.
func settle() {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
	}
}
