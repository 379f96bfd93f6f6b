package lazy_test

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/data/mnist"
	"github.com/xlajit/xlajit/lazy"
)

// mlp is a 784-128-10 perceptron trained with plain SGD in lazy mode.
type mlp struct{ w1, b1, w2, b2 *lazy.Tensor }

func newMLP(seed uint64) *mlp {
	lazy.ManualSeed(seed)
	m := &mlp{
		w1: lazy.RandN(lazy.F32, mnist.Pixels, 128).MulScalar(math.Sqrt(2.0 / mnist.Pixels)),
		b1: lazy.Zeros(lazy.F32, 128),
		w2: lazy.RandN(lazy.F32, 128, 10).MulScalar(math.Sqrt(2.0 / 128)),
		b2: lazy.Zeros(lazy.F32, 10),
	}
	lazy.Sync(m.w1, m.b1, m.w2, m.b2)
	return m
}

func (m *mlp) params() []*lazy.Tensor { return []*lazy.Tensor{m.w1, m.b1, m.w2, m.b2} }

// step runs one SGD step and cuts: the parameters and the loss are synced.
func (m *mlp) step(x, y *lazy.Tensor, lr float64) float64 {
	h := x.MatMul(m.w1).Add(m.b1).ReLU()
	loss := lazy.CrossEntropy(h.MatMul(m.w2).Add(m.b2), y)
	grads := lazy.Grad(loss, m.params()...)
	for i, p := range m.params() {
		p.Assign(p.Sub(grads[i].MulScalar(lr)))
	}
	if err := lazy.Sync(append(m.params(), loss)...); err != nil {
		panic(err)
	}
	return loss.Item()
}

func loadMNIST(t testing.TB) *mnist.Set {
	train, _, err := mnist.Load()
	if err != nil {
		t.Skip("MNIST data not available: ", err)
	}
	return train
}

func batch(train *mnist.Set, k, n int) (*lazy.Tensor, *lazy.Tensor) {
	xs := make([]float32, n*mnist.Pixels)
	ys := make([]int32, n)
	train.Batch(k*n, n, xs, ys)
	return lazy.FromSlice(xs, int64(n), mnist.Pixels), lazy.FromSlice(ys, int64(n))
}

func trainLazy(t *testing.T, train *mnist.Set, steps int, check bool) []float64 {
	m := newMLP(5)
	var losses []float64
	for s := 0; s < steps; s++ {
		x, y := batch(train, s, 64)
		var l float64
		d := delta(func() { l = m.step(x, y, 0.1) })
		if check && s >= 1 && (d[lazy.MetricUncachedCompile] != 0 || d[lazy.MetricCachedCompile] < 1) {
			t.Errorf("step %d: UncachedCompile +%d, CachedCompile +%d", s+1, d[lazy.MetricUncachedCompile], d[lazy.MetricCachedCompile])
		}
		losses = append(losses, l)
	}
	return losses
}

func TestMNISTLazyTraining(t *testing.T) {
	train := loadMNIST(t)
	const steps = 60
	losses := trainLazy(t, train, steps, true)
	first, last := mean(losses[:10]), mean(losses[steps-10:])
	if !(last < 0.6*first) {
		t.Errorf("loss did not fall: first 10 steps %.3f, last 10 %.3f", first, last)
	}
	// Eager mode gives the same numbers.
	lazy.SetEager(true)
	defer lazy.SetEager(false)
	eager := trainLazy(t, train, 8, false)
	for i, l := range eager {
		if rel := math.Abs(l-losses[i]) / math.Abs(losses[i]); rel > 1e-5 {
			t.Errorf("step %d: eager loss %.7f vs lazy %.7f (rel %.2g)", i+1, l, losses[i], rel)
		}
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func BenchmarkMNISTStepLazy(b *testing.B) {
	train := loadMNIST(b)
	m := newMLP(1)
	x, y := batch(train, 0, 64)
	m.step(x, y, 0.1)
	b.ReportAllocs()
	for b.Loop() {
		m.step(x, y, 0.01)
	}
}
