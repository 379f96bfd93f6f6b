package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
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
	Limit    int // use only the first Limit training images (0: all)
	TestN    int // evaluate on the first TestN test images (0: all)
	Seed     uint64
	Ckpt     string // checkpoint path ("": none)
	Resume   bool
	Progress bool
	Out      io.Writer
}

type result struct {
	Accuracy  float64
	Losses    []float64 // mean loss per epoch run
	Epochs    int       // epochs done in total (including resumed ones)
	StepTime  time.Duration
	Stats     jit.Stats
	Model     *cnn
	TrainTime time.Duration
}

// trainStep is one Adam step; the learning rate comes from the schedule
// inside the graph.
func trainStep(m *cnn, opt *optim.Adam, x, y *lazy.Tensor) *lazy.Tensor {
	loss := nn.CrossEntropy(m.Forward(x), y)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

func predict(m *cnn, x *lazy.Tensor) *lazy.Tensor { return m.Forward(x).ArgMax(1) }

// state is what a checkpoint holds: the model under its own names, the
// optimizer under "optim.".
func state(m *cnn, opt *optim.Adam) map[string]*lazy.Tensor {
	sd, err := nn.Merge(nn.StateDict(m), nn.WithPrefix("optim.", opt.StateDict()))
	if err != nil {
		panic(err)
	}
	return sd
}

func newOptimizer(m *cnn, cfg config, stepsPerEpoch int) *optim.Adam {
	total := int64(cfg.Epochs * stepsPerEpoch)
	warm := min(int64(stepsPerEpoch)/4, total/10)
	return optim.NewAdam(nn.Params(m).Tensors(), cfg.LR,
		optim.WithSchedule(optim.Cosine{Base: cfg.LR, Min: cfg.LR / 100, Warmup: warm, Total: total}))
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
	if cfg.TestN > 0 && cfg.TestN < test.N {
		test.N = cfg.TestN
	}
	ds, err := train.Dataset(1, 28, 28)
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
	m := newCNN()
	opt := newOptimizer(m, cfg, loader.Len())
	first := 0
	if cfg.Resume {
		if cfg.Ckpt == "" {
			return nil, errors.New("-resume needs -ckpt")
		}
		lits, meta, err := nn.ReadFile(cfg.Ckpt)
		if err != nil {
			return nil, err
		}
		// A checkpoint from before per-parameter step counts loads too.
		opt.UpgradeCheckpoint(lits, "optim.")
		if err := nn.AssignState(state(m, opt), lits); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Ckpt, err)
		}
		if first, err = strconv.Atoi(meta["epochs"]); err != nil {
			return nil, fmt.Errorf("%s: no epoch count in the metadata", cfg.Ckpt)
		}
		fmt.Fprintf(cfg.Out, "resumed from %s after epoch %d (step %d)\n", cfg.Ckpt, first, opt.StepCount())
	}
	step := jit.Compile(trainStep, jit.WithName("trainStep"))
	eval := jit.Compile(predict, jit.WithName("predict"))
	fmt.Fprintf(cfg.Out, "%d parameters, %d training images, batch %d, device %s\n",
		nn.Params(m).Count(), train.N, cfg.Batch, lazy.DefaultDevice())

	res := &result{Model: m, Epochs: first}
	var stepTotal time.Duration
	nSteps := 0
	start := time.Now()
	for epoch := first; epoch < cfg.Epochs; epoch++ {
		t0 := time.Now()
		nn.SetTraining(m, true)
		var bar *data.Progress
		if cfg.Progress {
			bar = data.NewProgress(os.Stderr, int64(loader.Len()), fmt.Sprintf("epoch %d/%d", epoch+1, cfg.Epochs), "batch")
		}
		losses := make([]*lazy.Tensor, 0, loader.Len())
		for b, err := range loader.Epoch(epoch) {
			if err != nil {
				return nil, err
			}
			s0 := time.Now()
			losses = append(losses, step(m, opt, b.Tensors[0], b.Tensors[1]))
			stepTotal += time.Since(s0)
			nSteps++
			if bar != nil {
				bar.Add(1)
			}
		}
		if bar != nil {
			bar.Finish()
		}
		sum := 0.0
		for _, l := range losses {
			sum += l.Item()
		}
		loss := sum / float64(max(len(losses), 1))
		res.Losses = append(res.Losses, loss)
		nn.SetTraining(m, false)
		acc, err := accuracy(eval, m, test)
		if err != nil {
			return nil, err
		}
		res.Accuracy, res.Epochs = acc, epoch+1
		fmt.Fprintf(cfg.Out, "epoch %d/%d  loss %.4f  test accuracy %.2f%%  lr %.2g  (%.1fs)\n",
			epoch+1, cfg.Epochs, loss, 100*acc, opt.CurrentLR(), time.Since(t0).Seconds())
		if cfg.Ckpt != "" {
			meta := map[string]string{"epochs": strconv.Itoa(epoch + 1), "format": "pt"}
			if err := nn.SaveTensors(cfg.Ckpt, state(m, opt), meta); err != nil {
				return nil, err
			}
		}
	}
	res.TrainTime = time.Since(start)
	res.StepTime = stepTotal / time.Duration(max(nSteps, 1))
	res.Stats = jit.StatsOf(step)
	fmt.Fprintf(cfg.Out, "train step: %s\npredict:    %s\nmean step time %v, total %.1fs\n",
		res.Stats, jit.StatsOf(eval), res.StepTime, res.TrainTime.Seconds())
	return res, nil
}

// accuracy evaluates on the test set in batches of 1000.
func accuracy(eval func(*cnn, *lazy.Tensor) *lazy.Tensor, m *cnn, test *mnist.Set) (float64, error) {
	ds, err := test.Dataset(1, 28, 28)
	if err != nil {
		return 0, err
	}
	ld, err := data.NewLoader(ds, data.LoaderConfig{BatchSize: 1000, Pad: true})
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
		for i := 0; i < b.Size; i++ {
			if pred[i] == labels[i] {
				correct++
			}
		}
		n += b.Size
	}
	return float64(correct) / float64(n), nil
}

func main() {
	cfg := config{Out: os.Stdout}
	flag.IntVar(&cfg.Epochs, "epochs", 3, "training epochs")
	flag.IntVar(&cfg.Batch, "batch", 64, "batch size")
	flag.Float64Var(&cfg.LR, "lr", 2e-3, "peak Adam learning rate")
	flag.IntVar(&cfg.Limit, "limit", 0, "use only the first N training images (0: all)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "RNG seed")
	flag.StringVar(&cfg.Ckpt, "ckpt", "", "checkpoint file written after every epoch")
	flag.BoolVar(&cfg.Resume, "resume", false, "continue from the checkpoint")
	flag.BoolVar(&cfg.Progress, "progress", true, "show a progress bar on stderr")
	flag.Parse()
	if _, err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "cnn:", err)
		os.Exit(1)
	}
}
