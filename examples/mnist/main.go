package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/xlajit/xlajit/data"
	"github.com/xlajit/xlajit/data/mnist"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
	"github.com/xlajit/xlajit/optim"
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

// model is the MLP: two nn.Linear layers.
type model struct {
	FC1, FC2 *nn.Linear
}

func newModel(hidden int64) *model {
	return &model{FC1: nn.NewLinear(mnist.Pixels, hidden), FC2: nn.NewLinear(hidden, 10)}
}

func (m *model) logits(x *lazy.Tensor) *lazy.Tensor {
	return m.FC2.Forward(m.FC1.Forward(x).ReLU())
}

// trainStep is one SGD-with-momentum step; the optimizer updates the
// parameters and its momentum buffers in place.
func trainStep(m *model, opt *optim.SGD, x, y *lazy.Tensor) *lazy.Tensor {
	loss := nn.CrossEntropy(m.logits(x), y)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

// predict returns the predicted class of each image.
func predict(m *model, x *lazy.Tensor) *lazy.Tensor { return m.logits(x).ArgMax(1) }

type result struct {
	Accuracy float64
	Losses   []float64
	StepTime time.Duration
	Stats    jit.Stats
}

func run(cfg config) (*result, error) {
	if cfg.Limit > 0 && cfg.Batch > cfg.Limit {
		// Known before the data set is read (a second or more).
		return nil, fmt.Errorf("%d training images do not fill one batch of %d", cfg.Limit, cfg.Batch)
	}
	train, test, err := mnist.Load()
	if err != nil {
		return nil, err
	}
	if cfg.Limit > 0 && cfg.Limit < train.N {
		train.N = cfg.Limit
	}
	ds, err := train.Dataset()
	if err != nil {
		return nil, err
	}
	loader, err := data.NewLoader(ds, data.LoaderConfig{BatchSize: cfg.Batch, Shuffle: true, Seed: cfg.Seed, DropLast: true})
	if err != nil {
		return nil, err
	}
	if loader.Len() == 0 {
		return nil, fmt.Errorf("%d training images do not fill one batch of %d", train.N, cfg.Batch)
	}
	lazy.ManualSeed(cfg.Seed)
	m := newModel(cfg.Hidden)
	opt := optim.NewSGD(nn.Params(m).Tensors(), cfg.LR, optim.Momentum(cfg.Momentum))
	step := jit.Compile(trainStep, jit.WithName("trainStep"))
	eval := jit.Compile(predict, jit.WithName("predict"))

	res := &result{}
	steps := loader.Len()
	var stepTotal time.Duration
	var nSteps int
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		start := time.Now()
		var sum float64
		losses := make([]*lazy.Tensor, 0, steps)
		for b, err := range loader.Epoch(epoch) {
			if err != nil {
				return nil, err
			}
			t0 := time.Now()
			losses = append(losses, step(m, opt, b.Tensors[0], b.Tensors[1]))
			stepTotal += time.Since(t0)
			nSteps++
			if s := len(losses); s%100 == 0 || s == steps {
				fmt.Fprintf(cfg.Out, "\repoch %d/%d  step %d/%d  %.1fs", epoch, cfg.Epochs, s, steps, time.Since(start).Seconds())
			}
		}
		for _, l := range losses {
			sum += l.Item()
		}
		loss := sum / float64(len(losses))
		res.Losses = append(res.Losses, loss)
		acc, err := accuracy(eval, m, test)
		if err != nil {
			return nil, err
		}
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

func accuracy(eval func(*model, *lazy.Tensor) *lazy.Tensor, m *model, test *mnist.Set) (float64, error) {
	ds, err := test.Dataset()
	if err != nil {
		return 0, err
	}
	ld, err := data.NewLoader(ds, data.LoaderConfig{BatchSize: 1000, DropLast: true})
	if err != nil {
		return 0, err
	}
	correct, n := 0, 0
	for b, err := range ld.Epoch(0) {
		if err != nil {
			return 0, err
		}
		pred := eval(m, b.Tensors[0]).Int64s()
		labels := b.Tensors[1].Int64s()
		for i, p := range pred {
			if p == labels[i] {
				correct++
			}
		}
		n += len(pred)
	}
	return float64(correct) / float64(n), nil
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
