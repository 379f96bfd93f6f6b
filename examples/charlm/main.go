package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/xlajit/xlajit/data"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
	"github.com/xlajit/xlajit/optim"
)

// lm is an embedding, a GRU cell and a linear read-out.
type lm struct {
	Embed *nn.Embedding `nn:"embed"`
	Cell  *nn.GRUCell   `nn:"gru"`
	Head  *nn.Linear    `nn:"head"`
}

func newLM(vocab, embed, hidden int64) *lm {
	return &lm{Embed: nn.NewEmbedding(vocab, embed), Cell: nn.NewGRUCell(embed, hidden), Head: nn.NewLinear(hidden, vocab)}
}

// loss is the mean next-character cross-entropy of windows x, y [B, T].
func (m *lm) loss(x, y *lazy.Tensor) *lazy.Tensor {
	hs, _ := nn.UnrollGRU(m.Cell, m.Embed.Forward(x), nil) // [B, T, H]
	logits := m.Head.Forward(hs)                           // [B, T, V]
	return nn.CrossEntropy(logits.Reshape(-1, logits.Dim(-1)), y.Reshape(-1))
}

func trainStep(m *lm, opt *optim.Adam, x, y *lazy.Tensor) *lazy.Tensor {
	loss := m.loss(x, y)
	grads, _ := optim.ClipGradNorm(lazy.Grad(loss, opt.Params...), 1)
	opt.Step(grads)
	return loss
}

// next runs one GRU step for a batch of one: the logits of the next
// character and the new state.
func next(m *lm, tok, h *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) {
	h = m.Cell.Forward(m.Embed.Forward(tok), h)
	return m.Head.Forward(h), h
}

type config struct {
	Root     string // directory of the text
	Pattern  string
	MaxBytes int
	Seq      int
	Batch    int
	Embed    int64
	Hidden   int64
	Steps    int
	LR       float64
	Sample   int
	Temp     float64
	Seed     uint64
	Every    int
	Out      io.Writer
}

type result struct {
	Losses   []float64
	Sample   string
	Stats    jit.Stats
	Sampler  jit.Stats
	StepTime time.Duration
}

func run(cfg config) (*result, error) {
	text, err := data.ReadTextFiles(cfg.Root, cfg.Pattern, cfg.MaxBytes)
	if err != nil {
		return nil, err
	}
	ds, err := data.NewText(text, cfg.Seq, max(cfg.Seq/2, 1))
	if err != nil {
		return nil, err
	}
	loader, err := data.NewLoader(ds, data.LoaderConfig{BatchSize: cfg.Batch, Shuffle: true, Seed: cfg.Seed, DropLast: true})
	if err != nil {
		return nil, err
	}
	if loader.Len() == 0 {
		return nil, fmt.Errorf("%d windows do not fill one batch of %d", ds.Len(), cfg.Batch)
	}
	lazy.ManualSeed(cfg.Seed)
	vocab := int64(ds.Vocab.Size())
	m := newLM(vocab, cfg.Embed, cfg.Hidden)
	opt := optim.NewAdamW(nn.Params(m).Tensors(), cfg.LR,
		optim.WithSchedule(optim.Cosine{Base: cfg.LR, Min: cfg.LR / 20, Warmup: int64(cfg.Steps / 20), Total: int64(cfg.Steps)}))
	step := jit.Compile(trainStep, jit.WithName("trainStep"))
	fmt.Fprintf(cfg.Out, "%d characters of text, vocabulary %d, %d windows of %d, %d parameters\n",
		len(text), vocab, ds.Len(), cfg.Seq, nn.Params(m).Count())

	res := &result{}
	start := time.Now()
	pending := make([]*lazy.Tensor, 0, max(cfg.Every, 1))
	flush := func(s int) {
		sum := 0.0
		for _, l := range pending {
			v := l.Item()
			res.Losses = append(res.Losses, v)
			sum += v
		}
		if len(pending) > 0 {
			fmt.Fprintf(cfg.Out, "step %4d  loss %.3f  lr %.2g  (%.1fs)\n", s, sum/float64(len(pending)), opt.CurrentLR(), time.Since(start).Seconds())
		}
		pending = pending[:0]
	}
	s := 0
	for epoch := 0; s < cfg.Steps; epoch++ {
		for b, err := range loader.Epoch(epoch) {
			if err != nil {
				return nil, err
			}
			pending = append(pending, step(m, opt, b.Tensors[0], b.Tensors[1]))
			s++
			if (cfg.Every > 0 && s%cfg.Every == 0) || s == cfg.Steps {
				flush(s)
			}
			if s == cfg.Steps {
				break
			}
		}
	}
	res.StepTime = time.Since(start) / time.Duration(max(cfg.Steps, 1))
	res.Stats = jit.StatsOf(step)

	if cfg.Sample > 0 {
		prompt := "func "
		if res.Sample, err = sample(m, ds.Vocab, prompt, cfg.Sample, cfg.Temp, cfg.Seed, &res.Sampler); err != nil {
			return nil, err
		}
		fmt.Fprintf(cfg.Out, "--- sample ---\n%s%s\n--------------\n", prompt, res.Sample)
	}
	fmt.Fprintf(cfg.Out, "train step: %s\nsampler:    %s\nmean step time %v\n", res.Stats, res.Sampler, res.StepTime)
	return res, nil
}

// sample feeds the prompt, then draws n characters from the softmax of the
// logits divided by temp (0: greedy).
func sample(m *lm, v *data.Vocab, prompt string, n int, temp float64, seed uint64, stats *jit.Stats) (string, error) {
	ids, err := v.Encode(prompt)
	if err != nil {
		return "", err
	}
	stepFn := jit.Compile(next, jit.WithName("next"))
	rng := rand.New(rand.NewPCG(seed, 99))
	h := lazy.Zeros(lazy.F32, 1, m.Cell.Hidden())
	var logits *lazy.Tensor
	for _, id := range ids {
		logits, h = stepFn(m, lazy.FromSlice([]int32{id}, 1), h)
	}
	out := make([]int64, 0, n)
	for range n {
		l := logits.Float32s()
		id := pick(l, temp, rng)
		out = append(out, int64(id))
		logits, h = stepFn(m, lazy.FromSlice([]int32{int32(id)}, 1), h)
	}
	*stats = jit.StatsOf(stepFn)
	return v.Decode(out), nil
}

// pick draws an index from softmax(logits/temp), or the arg max.
func pick(logits []float32, temp float64, rng *rand.Rand) int {
	best := 0
	for i, x := range logits {
		if x > logits[best] {
			best = i
		}
	}
	if temp <= 0 {
		return best
	}
	ps := make([]float64, len(logits))
	sum := 0.0
	for i, x := range logits {
		ps[i] = math.Exp((float64(x) - float64(logits[best])) / temp)
		sum += ps[i]
	}
	r := rng.Float64() * sum
	for i, p := range ps {
		if r -= p; r <= 0 {
			return i
		}
	}
	return best
}

func defaultRoot() string {
	return filepath.Join(runtime.GOROOT(), "src", "strings")
}

func main() {
	cfg := config{Out: os.Stdout}
	flag.StringVar(&cfg.Root, "root", defaultRoot(), "directory of text files")
	flag.StringVar(&cfg.Pattern, "pattern", "*.go", "file name pattern")
	flag.IntVar(&cfg.MaxBytes, "max", 400_000, "characters of text to read at most")
	flag.IntVar(&cfg.Seq, "seq", 48, "window length")
	flag.IntVar(&cfg.Batch, "batch", 32, "windows per batch")
	flag.Int64Var(&cfg.Embed, "embed", 32, "embedding width")
	flag.Int64Var(&cfg.Hidden, "hidden", 192, "GRU units")
	flag.IntVar(&cfg.Steps, "steps", 600, "training steps")
	flag.Float64Var(&cfg.LR, "lr", 3e-3, "peak AdamW learning rate")
	flag.IntVar(&cfg.Sample, "sample", 300, "characters to sample after training")
	flag.Float64Var(&cfg.Temp, "temp", 0.7, "sampling temperature (0: greedy)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "RNG seed")
	flag.IntVar(&cfg.Every, "every", 50, "print the loss every N steps (0: at the end only)")
	flag.Parse()
	if !strings.HasSuffix(cfg.Root, string(filepath.Separator)) {
		cfg.Root = filepath.Clean(cfg.Root)
	}
	if _, err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "charlm:", err)
		os.Exit(1)
	}
}
