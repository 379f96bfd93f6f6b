package jit_test

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/internal/mnist"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
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
	loss := lazy.CrossEntropy(x.MatMul(m.W1).Add(m.B1).Relu().MatMul(m.W2).Add(m.B2), y)
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
