package optim

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// tinyNet has a convolution, BatchNorm (running statistics written in
// training mode), dropout and a linear head.
type tinyNet struct {
	Conv *nn.Conv2d
	BN   *nn.BatchNorm
	Drop *nn.Dropout
	FC   *nn.Linear
}

func newTinyNet() *tinyNet {
	return &tinyNet{Conv: nn.NewConv2d(1, 4, 3, nn.Padding(1)), BN: nn.NewBatchNorm2d(4), Drop: nn.NewDropout(0.1), FC: nn.NewLinear(4*4*4, 3)}
}

func (m *tinyNet) Forward(x *lazy.Tensor) *lazy.Tensor {
	h := m.BN.Forward(m.Conv.Forward(x)).ReLU().MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{})
	return m.FC.Forward(m.Drop.Forward(nn.Flatten(h)))
}

func trainStep(m *tinyNet, opt Optimizer, x, y *lazy.Tensor) *lazy.Tensor {
	loss := nn.CrossEntropy(m.Forward(x), y, nn.LabelSmoothing(0.05))
	grads, _ := ClipGradNorm(lazy.Grad(loss, opt.Shared().Params...), 1)
	opt.Step(grads)
	return loss
}

func batch(step int) (*lazy.Tensor, *lazy.Tensor) {
	xs := make([]float32, 8*64)
	ys := make([]int32, 8)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(i*7 + step*13))) // varies per step
	}
	for i := range ys {
		ys[i] = int32((i + step) % 3)
	}
	return lazy.FromSlice(xs, 8, 1, 8, 8), lazy.FromSlice(ys, 8)
}

// TestCompiledTrainingStepTracesOnce runs 12 steps of every optimizer under
// jit.Compile with a cosine schedule: one trace, then replays only (and no
// compile at all after the first replay), the learning rate following the
// schedule on the device, BatchNorm's running statistics and the step
// count written on every replay.
func TestCompiledTrainingStepTracesOnce(t *testing.T) {
	sched := Cosine{Base: 0.05, Min: 0.001, Warmup: 3, Total: 12}
	makers := map[string]func([]*lazy.Tensor) Optimizer{
		"sgd":   func(p []*lazy.Tensor) Optimizer { return NewSGD(p, 0, Momentum(0.9), Nesterov(), WithSchedule(sched)) },
		"adam":  func(p []*lazy.Tensor) Optimizer { return NewAdam(p, 0, AMSGrad(), WithSchedule(sched)) },
		"adamw": func(p []*lazy.Tensor) Optimizer { return NewAdamW(p, 0, WithSchedule(sched)) },
		"rmsprop": func(p []*lazy.Tensor) Optimizer {
			return NewRMSProp(p, 0, Centered(), Momentum(0.5), WithSchedule(sched))
		},
		"adagrad": func(p []*lazy.Tensor) Optimizer { return NewAdagrad(p, 0, LRDecay(0.01), WithSchedule(sched)) },
	}
	for name, mk := range makers {
		t.Run(name, func(t *testing.T) {
			lazy.ManualSeed(1)
			m := newTinyNet()
			opt := mk(nn.Params(m).Tensors())
			step := jit.Compile(trainStep, jit.FullGraph())
			want := make([]float64, 12)
			for k := range want {
				want[k] = ValueAt(sched, int64(k))
			}
			x, y := batch(0)
			step(m, opt, x, y) // trace
			x, y = batch(1)
			// The first replay also donates the updated buffers, which may
			// build the graph's run-time checks as a program of their own.
			jittest.ExpectStats(t, step, jit.Stats{Calls: 1, Replays: 1}, func() { step(m, opt, x, y) })
			jittest.ExpectStats(t, step, jit.Stats{Calls: 10, Replays: 10}, func() {
				jittest.ExpectNoRecompile(t, step, func() {
					for s := 2; s < 12; s++ {
						x, y := batch(s)
						loss := step(m, opt, x, y)
						if v := loss.Item(); math.IsNaN(v) {
							t.Fatalf("step %d: loss is NaN", s)
						}
						if got, want := opt.Shared().CurrentLR(), want[s]; math.Abs(got-want) > 1e-6*want {
							t.Fatalf("step %d: learning rate %g, want %g", s, got, want)
						}
					}
				})
			})
			if n := opt.Shared().StepCount(); n != 12 {
				t.Errorf("step count %d, want 12", n)
			}
			if n := int64(m.BN.NumBatchesTracked.Item()); n != 12 {
				t.Errorf("BatchNorm counted %d batches, want 12", n)
			}
		})
	}
}

// TestCompiledStepMatchesLazy trains the same model twice from the same
// seed, once compiled and once in plain lazy mode: parameters, optimizer
// state and running statistics agree after every step (dropout off, so the
// RNG plays no part).
func TestCompiledStepMatchesLazy(t *testing.T) {
	run := func(compiled bool) (*tinyNet, *Adam) {
		lazy.ManualSeed(2)
		m := newTinyNet()
		m.Drop.P = 0
		opt := NewAdam(nn.Params(m).Tensors(), 0, WithSchedule(OneCycle{Max: 0.01, Total: 8}))
		step := func(m *tinyNet, opt Optimizer, x, y *lazy.Tensor) *lazy.Tensor { return trainStep(m, opt, x, y) }
		if compiled {
			step = jit.Compile(step)
		}
		for s := 0; s < 8; s++ {
			x, y := batch(s)
			step(m, opt, x, y)
			if err := lazy.Sync(append(nn.State(m).Tensors(), opt.ExpAvg...)...); err != nil {
				t.Fatal(err)
			}
		}
		return m, opt
	}
	m1, o1 := run(false)
	m2, o2 := run(true)
	s1, s2 := nn.State(m1), nn.State(m2)
	for i := range s1 {
		a, b := s1[i].Tensor.Float64s(), s2[i].Tensor.Float64s()
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-5*(1+math.Abs(a[j])) {
				t.Fatalf("%s[%d]: lazy %g, compiled %g", s1[i].Name, j, a[j], b[j])
			}
		}
	}
	if a, b := o1.CurrentLR(), o2.CurrentLR(); a != b {
		t.Errorf("learning rate: lazy %g, compiled %g", a, b)
	}
}

// mnistNet is a 784-128-10 perceptron of nn layers (PyTorch's [out, in]
// weights, read transposed by the forward and backward products).
type mnistNet struct{ FC1, FC2 *nn.Linear }

func mnistStep(m *mnistNet, opt *SGD, x, y *lazy.Tensor) *lazy.Tensor {
	loss := nn.CrossEntropy(m.FC2.Forward(m.FC1.Forward(x).ReLU()), y)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

// cnnNet is a LeNet-style CNN of nn layers.
type cnnNet struct {
	C1, C2 *nn.Conv2d
	FC     *nn.Linear
}

func cnnStep(m *cnnNet, opt *SGD, x, y *lazy.Tensor) *lazy.Tensor {
	pool := nn.NewMaxPool2d(2)
	h := pool.Forward(m.C1.Forward(x).ReLU())
	h = pool.Forward(m.C2.Forward(h).ReLU())
	loss := nn.CrossEntropy(m.FC.Forward(nn.Flatten(h)), y)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

// stepAllocs bounds the objects a steady-state training step allocates
// when its model and optimizer are jit arguments (structs walked for their
// tensors) and it runs through nn and optim: jit's bound for a step over
// plain tensors (jit's TestTrainStepAllocationBound: the reflective call's
// lists, the result tensors and buffers, the loss's storage, one spare).
const stepAllocs = 6

// A training step whose model and optimizer are passed as structs through
// nn and optim allocates a bounded, small number of objects per replay:
// walking the arguments, the optimizer's updates and the layers' products
// add nothing per step.
func TestStructStepAllocationBound(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector drops sync.Pool entries at random")
	}
	lazy.ManualSeed(3)
	xs := make([]float32, 64*784)
	ys := make([]int32, 64)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(i)))
	}
	for i := range ys {
		ys[i] = int32(i*7) % 10
	}
	y := lazy.FromSlice(ys, 64)
	for _, c := range []struct {
		name string
		max  float64
		step func() func() // a compiled step on its model, optimizer and batch
	}{
		{"mnist", stepAllocs, func() func() {
			m := &mnistNet{nn.NewLinear(784, 128), nn.NewLinear(128, 10)}
			opt := NewSGD(nn.Params(m).Tensors(), 0.05, Momentum(0.9))
			x, f := lazy.FromSlice(xs, 64, 784), jit.Compile(mnistStep)
			return func() { f(m, opt, x, y) }
		}},
		{"cnn", stepAllocs, func() func() {
			m := &cnnNet{nn.NewConv2d(1, 8, 3, nn.Padding(1)), nn.NewConv2d(8, 16, 3, nn.Padding(1)), nn.NewLinear(784, 10)}
			opt := NewSGD(nn.Params(m).Tensors(), 0.05)
			x, f := lazy.FromSlice(xs, 64, 1, 28, 28), jit.Compile(cnnStep)
			return func() { f(m, opt, x, y) }
		}},
		// BatchNorm's running statistics, dropout's random bits (the
		// generator's state written back each step), Adam (AMSGrad) with a
		// schedule and gradient clipping: dozens of written tensors, more
		// than the replay's lists on the stack hold. The optimizer is
		// passed as an interface (reflect boxes it: one more object).
		{"batchnorm-adam", stepAllocs + 2, func() func() {
			m := newTinyNet()
			m.Drop = nn.NewDropout(0.5)
			var opt Optimizer = NewAdam(nn.Params(m).Tensors(), 0, AMSGrad(), WithSchedule(Cosine{Base: 0.05, Min: 0.001, Warmup: 3, Total: 12}))
			x, y := batch(0)
			f := jit.Compile(trainStep)
			return func() { f(m, opt, x, y) }
		}},
	} {
		step := c.step()
		for range 3 {
			step()
		}
		if n := testing.AllocsPerRun(20, step); n > c.max {
			t.Errorf("a steady-state %s step through nn and optim allocates %.0f objects, want at most %.0f", c.name, n, c.max)
		}
	}
}
