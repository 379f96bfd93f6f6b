package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
	"github.com/xlajit/xlajit/optim"
)

// corpus is the training text: short and repetitive enough that a tiny
// model learns much of it in a few hundred steps.
const corpus = `the cat sat on the mat. the dog sat on the log. the cat saw the dog
and the dog saw the cat. a bird sang in the tree and the cat looked up.
the dog ran to the tree and the bird flew away. the cat sat on the mat
again and the dog lay down on the log. the sun went down over the hill
and the cat, the dog and the bird all went to sleep. in the morning the
bird sang again, the cat woke up on the mat and the dog woke up on the log.
`

// vocabulary maps the distinct characters of a text to token ids.
type vocabulary struct {
	chars []rune
	ids   map[rune]int32
}

func newVocabulary(text string) *vocabulary {
	v := &vocabulary{ids: map[rune]int32{}}
	for _, r := range text {
		if _, ok := v.ids[r]; !ok {
			v.ids[r] = 0
			v.chars = append(v.chars, r)
		}
	}
	sort.Slice(v.chars, func(i, j int) bool { return v.chars[i] < v.chars[j] })
	for i, r := range v.chars {
		v.ids[r] = int32(i)
	}
	return v
}

func (v *vocabulary) encode(s string) []int32 {
	out := make([]int32, 0, len(s))
	for _, r := range s {
		out = append(out, v.ids[r])
	}
	return out
}

func (v *vocabulary) decode(ids []int64) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteRune(v.chars[id])
	}
	return b.String()
}

type config struct {
	Model    modelConfig // Vocab is filled in from the text
	Steps    int
	Batch    int
	LR       float64
	Every    int // print the mean loss every Every steps
	Generate int // characters of greedy continuation to print (0: none)
	Seed     uint64
	Out      io.Writer
}

type result struct {
	Losses    []float64 // per step
	Generated string
	StepTime  time.Duration
	Stats     jit.Stats
}

// batch fills x and y with random windows of data: y is x shifted by one.
func batch(rng *rand.Rand, data []int32, seq int, x, y []int32) {
	for i := 0; i < len(x)/seq; i++ {
		s := rng.IntN(len(data) - seq)
		copy(x[i*seq:(i+1)*seq], data[s:s+seq])
		copy(y[i*seq:(i+1)*seq], data[s+1:s+seq+1])
	}
}

func run(cfg config) (*result, error) {
	voc := newVocabulary(corpus)
	data := voc.encode(corpus)
	mc := cfg.Model
	mc.Vocab = int64(len(voc.chars))
	for _, f := range []struct {
		flag     string
		v, least int64
	}{{"-seq", mc.SeqLen, 1}, {"-d", mc.DModel, 1}, {"-heads", int64(mc.Heads), 1}, {"-hidden", mc.Hidden, 1},
		{"-layers", int64(mc.Layers), 0}, {"-batch", int64(cfg.Batch), 1}, {"-steps", int64(cfg.Steps), 0}} {
		if f.v < f.least {
			return nil, fmt.Errorf("%s %d: want at least %d", f.flag, f.v, f.least)
		}
	}
	if mc.DModel%int64(mc.Heads) != 0 {
		return nil, fmt.Errorf("model width %d is not divisible by %d heads", mc.DModel, mc.Heads)
	}
	if int(mc.SeqLen) >= len(data) {
		return nil, fmt.Errorf("sequence length %d does not fit the %d-token text", mc.SeqLen, len(data))
	}
	lazy.ManualSeed(cfg.Seed)
	m := newModel(mc)
	opt := optim.NewAdam(nn.Params(m).Tensors(), cfg.LR, optim.Betas(0.9, 0.99))
	step := jit.Compile(trainStep, jit.WithName("trainStep"))

	res := &result{}
	seq := int(mc.SeqLen)
	xs := make([]int32, cfg.Batch*seq)
	ys := make([]int32, cfg.Batch*seq)
	rng := rand.New(rand.NewPCG(cfg.Seed, 11))
	losses := make([]*lazy.Tensor, 0, cfg.Steps)
	fmt.Fprintf(cfg.Out, "vocabulary %d, text %d tokens, %d layer(s), d=%d, %d heads, %s, device %s\n",
		mc.Vocab, len(data), mc.Layers, mc.DModel, mc.Heads, mc.DType, lazy.DefaultDevice())
	start := time.Now()
	for s := 1; s <= cfg.Steps; s++ {
		batch(rng, data, seq, xs, ys)
		x := lazy.FromSlice(xs, int64(cfg.Batch), mc.SeqLen)
		y := lazy.FromSlice(ys, int64(cfg.Batch), mc.SeqLen)
		losses = append(losses, step(m, opt, x, y))
		if cfg.Every > 0 && (s%cfg.Every == 0 || s == cfg.Steps) {
			// Reading the losses is a cut outside the compiled step.
			from := len(res.Losses)
			var sum float64
			for _, l := range losses[from:] {
				v := l.Item()
				res.Losses = append(res.Losses, v)
				sum += v
			}
			fmt.Fprintf(cfg.Out, "step %4d  loss %.4f  (%.1fs)\n", s, sum/float64(len(losses)-from), time.Since(start).Seconds())
		}
	}
	for _, l := range losses[len(res.Losses):] {
		res.Losses = append(res.Losses, l.Item())
	}
	res.StepTime = time.Since(start) / time.Duration(max(cfg.Steps, 1))
	res.Stats = jit.StatsOf(step)

	if cfg.Generate > 0 {
		res.Generated = generate(m, voc, data[:seq], cfg.Generate)
		fmt.Fprintf(cfg.Out, "prompt:   %q\ngenerated: %q\n", voc.decode(toInt64(data[:seq])), res.Generated)
	}
	fmt.Fprintf(cfg.Out, "train step: %s\n", res.Stats)
	fmt.Fprintf(cfg.Out, "mean step time: %v\n", res.StepTime)
	return res, nil
}

// generate continues prompt greedily for n tokens, always feeding the model
// its last len(prompt) tokens, so every call has the same shape and the
// compiled predictor traces once.
func generate(m *model, voc *vocabulary, prompt []int32, n int) string {
	next := jit.Compile(nextToken, jit.WithName("nextToken"))
	window := append([]int32(nil), prompt...)
	out := make([]int64, 0, n)
	for range n {
		id := next(m, lazy.FromSlice(window, 1, int64(len(window)))).Int64s()[0]
		out = append(out, id)
		window = append(window[1:], int32(id))
	}
	return voc.decode(out)
}

func toInt64(xs []int32) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

func main() {
	cfg := config{Out: os.Stdout, Model: modelConfig{DType: lazy.F32}}
	flag.IntVar(&cfg.Steps, "steps", 300, "training steps")
	flag.IntVar(&cfg.Batch, "batch", 16, "sequences per batch")
	flag.Int64Var(&cfg.Model.SeqLen, "seq", 32, "sequence length")
	flag.Int64Var(&cfg.Model.DModel, "d", 64, "model width")
	flag.IntVar(&cfg.Model.Heads, "heads", 4, "attention heads")
	flag.Int64Var(&cfg.Model.Hidden, "hidden", 256, "MLP width")
	flag.IntVar(&cfg.Model.Layers, "layers", 2, "transformer blocks")
	flag.Float64Var(&cfg.LR, "lr", 3e-3, "Adam learning rate")
	flag.IntVar(&cfg.Every, "every", 25, "print the loss every N steps")
	flag.IntVar(&cfg.Generate, "generate", 80, "characters to generate after training")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "RNG seed")
	flag.Parse()
	if _, err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "transformer:", err)
		os.Exit(1)
	}
}
