// Command mnist trains a 784-128-10 MLP on MNIST with jit.Compile on the
// default device (the embedded CPU device unless PJRT_DEVICE says
// otherwise), printing per-epoch loss and test accuracy, then the jit
// statistics and the mean step time.
//
//	go run ./examples/mnist [-epochs 5] [-batch 128] [-lr 0.05]
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/xlajit/xlajit/data/mnist"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

type config struct {
	Epochs   int
	Batch    int
	LR       float64
	Momentum float64
	Hidden   int64
	Limit    int // use only the first Limit training images (0: all)
	Seed     uint64
	Out      io.Writer
}

// model is the MLP's parameters and their momentum buffers.
type model struct {
	W1, B1, W2, B2 *lazy.Tensor
	V              [4]*lazy.Tensor
}

func (m *model) params() []*lazy.Tensor { return []*lazy.Tensor{m.W1, m.B1, m.W2, m.B2} }

func newModel(hidden int64) *model {
	he := func(fanIn int64) float64 { return math.Sqrt(2 / float64(fanIn)) }
	m := &model{
		W1: lazy.RandN(lazy.F32, mnist.Pixels, hidden).MulScalar(he(mnist.Pixels)),
		B1: lazy.Zeros(lazy.F32, hidden),
		W2: lazy.RandN(lazy.F32, hidden, 10).MulScalar(he(hidden)),
		B2: lazy.Zeros(lazy.F32, 10),
	}
	for i, p := range m.params() {
		m.V[i] = lazy.ZerosLike(p)
	}
	all := append(m.params(), m.V[:]...)
	if err := lazy.Sync(all...); err != nil {
		panic(err)
	}
	return m
}

func (m *model) logits(x *lazy.Tensor) *lazy.Tensor {
	h := x.MatMul(m.W1).Add(m.B1).Relu()
	return h.MatMul(m.W2).Add(m.B2)
}

// trainStep is one SGD-with-momentum step; it updates the parameters in
// place and returns the batch loss.
func trainStep(m *model, x, y *lazy.Tensor, lr, mu float64) *lazy.Tensor {
	loss := lazy.CrossEntropy(m.logits(x), y)
	grads := lazy.Grad(loss, m.params()...)
	for i, p := range m.params() {
		v := m.V[i].MulScalar(mu).Add(grads[i])
		m.V[i].Assign(v)
		p.Assign(p.Sub(v.MulScalar(lr)))
	}
	return loss
}

// predict returns the predicted class of each image.
func predict(m *model, x *lazy.Tensor) *lazy.Tensor { return m.logits(x).ArgMax(1, false) }

type result struct {
	Accuracy float64
	Losses   []float64
	StepTime time.Duration
	Stats    jit.Stats
}

func run(cfg config) (*result, error) {
	train, test, err := mnist.Load()
	if err != nil {
		return nil, err
	}
	if cfg.Limit > 0 && cfg.Limit < train.N {
		train.N = cfg.Limit
	}
	lazy.ManualSeed(cfg.Seed)
	m := newModel(cfg.Hidden)
	step := jit.Compile(trainStep, jit.WithName("trainStep"))
	eval := jit.Compile(predict, jit.WithName("predict"))

	res := &result{}
	steps := train.N / cfg.Batch
	xs := make([]float32, cfg.Batch*mnist.Pixels)
	ys := make([]int32, cfg.Batch)
	var stepTotal time.Duration
	var nSteps int
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		start := time.Now()
		var sum float64
		var losses []*lazy.Tensor
		order := rng.Perm(train.N)
		for s := 0; s < steps; s++ {
			for i := 0; i < cfg.Batch; i++ {
				k := order[s*cfg.Batch+i]
				copy(xs[i*mnist.Pixels:(i+1)*mnist.Pixels], train.Images[k*mnist.Pixels:(k+1)*mnist.Pixels])
				ys[i] = train.Labels[k]
			}
			t0 := time.Now()
			x := lazy.FromSlice(xs, int64(cfg.Batch), mnist.Pixels)
			y := lazy.FromSlice(ys, int64(cfg.Batch))
			losses = append(losses, step(m, x, y, cfg.LR, cfg.Momentum))
			stepTotal += time.Since(t0)
			nSteps++
			if (s+1)%100 == 0 || s == steps-1 {
				fmt.Fprintf(cfg.Out, "\repoch %d/%d  step %d/%d  %.1fs", epoch, cfg.Epochs, s+1, steps, time.Since(start).Seconds())
			}
		}
		for _, l := range losses {
			sum += l.Item()
		}
		loss := sum / float64(len(losses))
		res.Losses = append(res.Losses, loss)
		acc := accuracy(eval, m, test)
		res.Accuracy = acc
		fmt.Fprintf(cfg.Out, "\repoch %d/%d  loss %.4f  test accuracy %.2f%%  (%.1fs)\n", epoch, cfg.Epochs, loss, 100*acc, time.Since(start).Seconds())
	}
	res.StepTime = stepTotal / time.Duration(max(nSteps, 1))
	res.Stats = jit.StatsOf(step)
	fmt.Fprintf(cfg.Out, "train step: %s\n", res.Stats)
	fmt.Fprintf(cfg.Out, "predict:    %s\n", jit.StatsOf(eval))
	fmt.Fprintf(cfg.Out, "mean step time: %v (device: %s)\n", res.StepTime, lazy.DefaultDevice())
	return res, nil
}

func accuracy(eval func(*model, *lazy.Tensor) *lazy.Tensor, m *model, test *mnist.Set) float64 {
	const bs = 1000
	xs := make([]float32, bs*mnist.Pixels)
	ys := make([]int32, bs)
	correct := 0
	for from := 0; from+bs <= test.N; from += bs {
		test.Batch(from, bs, xs, ys)
		pred := eval(m, lazy.FromSlice(xs, bs, mnist.Pixels)).Int64s()
		for i, p := range pred {
			if int32(p) == ys[i] {
				correct++
			}
		}
	}
	return float64(correct) / float64(test.N/bs*bs)
}

func main() {
	cfg := config{Out: os.Stdout}
	flag.IntVar(&cfg.Epochs, "epochs", 8, "training epochs")
	flag.IntVar(&cfg.Batch, "batch", 100, "batch size")
	flag.Float64Var(&cfg.LR, "lr", 0.05, "learning rate")
	flag.Float64Var(&cfg.Momentum, "momentum", 0.9, "momentum")
	flag.Int64Var(&cfg.Hidden, "hidden", 128, "hidden units")
	flag.IntVar(&cfg.Limit, "limit", 0, "use only the first N training images (0: all)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "RNG seed")
	flag.Parse()
	if _, err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "mnist:", err)
		os.Exit(1)
	}
}
