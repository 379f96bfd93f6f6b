package jit_test

import (
	"fmt"
	"math"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// gcCPU is the CPU time the garbage collector has used in this process.
func gcCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}

// loopSteps runs step b.N times after two warm calls and reports
// allocations and the garbage collector's CPU time per step (gc-ns/op).
func loopSteps(b *testing.B, step func()) {
	step()
	step()
	b.ReportAllocs()
	gc0, cpu0 := gcCPU(), cpuNanos()
	for b.Loop() {
		step()
	}
	b.ReportMetric((gcCPU()-gc0)*1e9/float64(b.N), "gc-ns/op")
	b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cnn is the benchmark's small convolutional network: conv3x3 1->8, ReLU,
// maxpool 2, conv3x3 8->16, ReLU, maxpool 2, linear 784->10.
type cnn struct {
	C1, B1, C2, B2, W, B *lazy.Tensor
}

func (m *cnn) params() []*lazy.Tensor { return []*lazy.Tensor{m.C1, m.B1, m.C2, m.B2, m.W, m.B} }

func newCNN() *cnn {
	lazy.ManualSeed(5)
	m := &cnn{
		C1: lazy.RandN(lazy.F32, 8, 1, 3, 3).MulScalar(math.Sqrt(2.0 / 9)),
		B1: lazy.Zeros(lazy.F32, 8),
		C2: lazy.RandN(lazy.F32, 16, 8, 3, 3).MulScalar(math.Sqrt(2.0 / 72)),
		B2: lazy.Zeros(lazy.F32, 16),
		W:  lazy.RandN(lazy.F32, 784, 10).MulScalar(math.Sqrt(1.0 / 784)),
		B:  lazy.Zeros(lazy.F32, 10),
	}
	if err := lazy.Sync(m.params()...); err != nil {
		panic(err)
	}
	return m
}

func (m *cnn) forward(x *lazy.Tensor) *lazy.Tensor {
	pad1 := lazy.Conv2dOpts{Padding: [2]int64{1, 1}}
	h := lazy.Conv2d(x, m.C1, m.B1, pad1).ReLU().MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{})
	h = lazy.Conv2d(h, m.C2, m.B2, pad1).ReLU().MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{})
	n := x.Dims()[0]
	return h.Reshape(n, 784).MatMul(m.W).Add(m.B)
}

func cnnStep(m *cnn, x, y *lazy.Tensor) *lazy.Tensor {
	loss := lazy.CrossEntropy(m.forward(x), y)
	for i, g := range lazy.Grad(loss, m.params()...) {
		p := m.params()[i]
		p.Assign(p.Sub(g.MulScalar(0.05)))
	}
	return loss
}

// batch returns a fixed random batch of n images of shape dims and labels.
func batch(n int64, dims ...int64) (x, y *lazy.Tensor) {
	lazy.ManualSeed(9)
	x = lazy.RandN(lazy.F32, append([]int64{n}, dims...)...)
	ys := make([]int32, n)
	for i := range ys {
		ys[i] = int32(i*7) % 10
	}
	y = lazy.FromSlice(ys, n)
	if err := lazy.Sync(x, y); err != nil {
		panic(err)
	}
	return x, y
}

// BenchmarkTrainStep measures one replayed training step at batch 64 on
// fixed data: the MNIST perceptron (784-128-10, SGD with momentum) and the
// small CNN (SGD). allocs/op is the replay's allocations in steady state,
// gc-ns/op the garbage collector's CPU time per step.
func BenchmarkTrainStep(b *testing.B) {
	b.Run("mnist", func(b *testing.B) {
		m := newMLP()
		x, y := batch(64, 784)
		step := jit.Compile(mlpStep)
		loopSteps(b, func() { step(m, x, y) })
	})
	b.Run("cnn", func(b *testing.B) {
		m := newCNN()
		x, y := batch(64, 1, 28, 28)
		step := jit.Compile(cnnStep)
		loopSteps(b, func() { step(m, x, y) })
	})
}

// mlpForward is a 784-512-512-10 perceptron's forward pass with ReLU.
func mlpForward(x, w1, b1, w2, b2, w3, b3 *lazy.Tensor) *lazy.Tensor {
	h := x.MatMul(w1).Add(b1).ReLU()
	h = h.MatMul(w2).Add(b2).ReLU()
	return h.MatMul(w3).Add(b3)
}

// BenchmarkFirstCall measures the first call of a newly compiled function
// (trace, lower, verify, plan, run) beside a replay of it: first-ns/op
// minus run-ns/op is what the first call costs beyond one execution. The
// functions are new closures each time, so nothing is cached by function;
// the compile cache is bypassed by a fresh constant per iteration.
func BenchmarkFirstCall(b *testing.B) {
	b.Run("mlp", func(b *testing.B) {
		lazy.ManualSeed(1)
		x := lazy.RandN(lazy.F32, 64, 784)
		ws := []*lazy.Tensor{lazy.RandN(lazy.F32, 784, 512), lazy.Zeros(lazy.F32, 512),
			lazy.RandN(lazy.F32, 512, 512), lazy.Zeros(lazy.F32, 512), lazy.RandN(lazy.F32, 512, 10), lazy.Zeros(lazy.F32, 10)}
		lazy.Sync(append(ws, x)...)
		firstCalls(b, func(k int) func() {
			f := jit.Compile(func(x, w1, b1, w2, b2, w3, b3 *lazy.Tensor) *lazy.Tensor {
				return mlpForward(x, w1, b1, w2, b2, w3, b3).AddScalar(float64(k))
			})
			return func() { f(x, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5]) }
		})
	})
	for _, n := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("chain=%d", n), func(b *testing.B) {
			x := lazy.FromSlice([]float32{1, 2, 3, 4})
			firstCalls(b, func(k int) func() {
				f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return chain(n)(x).AddScalar(float64(k)) })
				return func() { f(x) }
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/op-traced")
		})
	}
}

// firstCalls times, per iteration, the first call of mk(k)'s function and
// then one replay of it (reported as run-ns/op).
func firstCalls(b *testing.B, mk func(k int) func()) {
	k := 0
	var run time.Duration
	mk(-1)() // warm the process (kernels, pools)
	b.ReportAllocs()
	for b.Loop() {
		k++
		call := mk(k)
		call()
		b.StopTimer()
		t0 := time.Now()
		call()
		run += time.Since(t0)
		b.StartTimer()
	}
	b.ReportMetric(float64(run.Nanoseconds())/float64(b.N), "run-ns/op")
}
