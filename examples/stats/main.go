package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
)

// layer is a dense layer whose activation is a static argument: a plain Go
// value, part of the input signature, so each activation traces once.
func layer(x, w, b *lazy.Tensor, act string) *lazy.Tensor {
	y := x.MatMul(w).Add(b)
	switch act {
	case "relu":
		return y.ReLU()
	case "tanh":
		return y.Tanh()
	default:
		return y.GELU()
	}
}

// clipByNorm scales x down to norm at most maxNorm, deciding in Go: Item()
// copies the norm to the host in the middle of the function, a graph break.
// The function then runs lazily on every call, and since the scale becomes
// a constant of the next graph, new data means a new compile.
func clipByNorm(x *lazy.Tensor, maxNorm float64) *lazy.Tensor {
	n := x.Square().Sum().Sqrt().Item()
	if n > maxNorm {
		return x.MulScalar(maxNorm / n)
	}
	return x
}

// clipByNormTensor is the same computation without leaving the device: the
// branch becomes a Where, and the function compiles once.
func clipByNormTensor(x *lazy.Tensor, maxNorm float64) *lazy.Tensor {
	n := x.Square().Sum().Sqrt()
	scale := lazy.Where(n.GtScalar(maxNorm), n.Reciprocal().MulScalar(maxNorm), lazy.OnesLike(n))
	return x.Mul(scale)
}

type config struct {
	Batch, In, Units int64
	Steady           int // calls in the steady-state phase
	Seed             uint64
	Out              io.Writer
}

// demo holds the compiled functions and their inputs; each method is one
// phase (the test wraps the same methods in jittest assertions).
type demo struct {
	cfg           config
	layer         func(x, w, b *lazy.Tensor, act string) *lazy.Tensor
	clip, clipFix func(x *lazy.Tensor, maxNorm float64) *lazy.Tensor
	x, xBig, w, b *lazy.Tensor
	vecs          []*lazy.Tensor // inputs of the clip functions
}

func newDemo(cfg config) (*demo, error) {
	if cfg.Batch < 0 || cfg.In < 0 || cfg.Units < 0 || cfg.Steady < 0 {
		return nil, fmt.Errorf("-batch %d -in %d -units %d -steady %d: sizes and counts cannot be negative", cfg.Batch, cfg.In, cfg.Units, cfg.Steady)
	}
	lazy.ManualSeed(cfg.Seed)
	d := &demo{
		cfg:     cfg,
		layer:   jit.Compile(layer, jit.WithName("layer")),
		clip:    jit.Compile(clipByNorm, jit.WithName("clipByNorm")),
		clipFix: jit.Compile(clipByNormTensor, jit.WithName("clipByNormTensor")),
		x:       lazy.RandN(lazy.F32, cfg.Batch, cfg.In),
		xBig:    lazy.RandN(lazy.F32, 2*cfg.Batch, cfg.In),
		w:       lazy.RandN(lazy.F32, cfg.In, cfg.Units),
		b:       lazy.Zeros(lazy.F32, cfg.Units),
	}
	for i := range 3 {
		d.vecs = append(d.vecs, lazy.RandN(lazy.F32, cfg.In).MulScalar(float64(i+1)))
	}
	all := append([]*lazy.Tensor{d.x, d.xBig, d.w, d.b}, d.vecs...)
	return d, lazy.Sync(all...)
}

// mustSync computes ts (a compiled call's results stay lazy until read).
func mustSync(ts ...*lazy.Tensor) {
	if err := lazy.Sync(ts...); err != nil {
		panic(err)
	}
}

func (d *demo) first()        { mustSync(d.layer(d.x, d.w, d.b, "relu")) }
func (d *demo) steady()       { d.repeat(d.x, "relu", d.cfg.Steady) }
func (d *demo) staticChange() { mustSync(d.layer(d.x, d.w, d.b, "tanh")) }
func (d *demo) shapeChange()  { mustSync(d.layer(d.xBig, d.w, d.b, "tanh")) }
func (d *demo) firstAgain()   { d.repeat(d.x, "relu", 2) }
func (d *demo) graphBreak()   { d.eachVec(d.clip) }
func (d *demo) noGraphBreak() { d.eachVec(d.clipFix) }
func (d *demo) repeat(x *lazy.Tensor, act string, n int) {
	for range n {
		mustSync(d.layer(x, d.w, d.b, act))
	}
}

func (d *demo) eachVec(f func(*lazy.Tensor, float64) *lazy.Tensor) {
	for _, v := range d.vecs {
		mustSync(f(v, 4))
	}
}

// phase is what one phase did.
type phase struct {
	Name     string
	Fn       string    // the function called
	Stats    jit.Stats // its stats after the phase
	Counters map[string]int64
}

type result struct {
	Phases                      []phase
	Layer, Clip, ClipFix        jit.Stats
	LayerExplain, ClipExplain   string
	ClipFixExplain, MetricsText string
}

func run(cfg config) (*result, error) {
	d, err := newDemo(cfg)
	if err != nil {
		return nil, err
	}
	out := cfg.Out
	res := &result{}
	phases := []struct {
		name, fn string
		body     func()
		stats    func() jit.Stats
	}{
		{"first call", "layer", d.first, func() jit.Stats { return jit.StatsOf(d.layer) }},
		{fmt.Sprintf("%d more calls", cfg.Steady), "layer", d.steady, func() jit.Stats { return jit.StatsOf(d.layer) }},
		{"act relu -> tanh", "layer", d.staticChange, func() jit.Stats { return jit.StatsOf(d.layer) }},
		{"batch doubled", "layer", d.shapeChange, func() jit.Stats { return jit.StatsOf(d.layer) }},
		{"first signature", "layer", d.firstAgain, func() jit.Stats { return jit.StatsOf(d.layer) }},
		{"Item() inside", "clipByNorm", d.graphBreak, func() jit.Stats { return jit.StatsOf(d.clip) }},
		{"Where instead", "clipByNormTensor", d.noGraphBreak, func() jit.Stats { return jit.StatsOf(d.clipFix) }},
	}
	shown := []string{lazy.MetricJITTrace, lazy.MetricJITRecompile, lazy.MetricJITGraphBreak, lazy.MetricUncachedCompile, lazy.MetricExecuteCount}
	fmt.Fprintf(out, "%-18s %-17s %-84s %s\n", "phase", "function", "jit.StatsOf after the phase", "lazy counters changed")
	for _, p := range phases {
		var err error
		delta := jittest.Delta(func() { err = lazy.Try(p.body) })
		if err != nil {
			return nil, fmt.Errorf("phase %q: %w", p.name, err)
		}
		ph := phase{Name: p.name, Fn: p.fn, Stats: p.stats(), Counters: delta}
		res.Phases = append(res.Phases, ph)
		fmt.Fprintf(out, "%-18s %-17s %-84s", ph.Name, ph.Fn, ph.Stats)
		for _, k := range shown {
			if delta[k] != 0 {
				fmt.Fprintf(out, " %s+%d", k, delta[k])
			}
		}
		fmt.Fprintln(out)
	}
	res.Layer, res.Clip, res.ClipFix = jit.StatsOf(d.layer), jit.StatsOf(d.clip), jit.StatsOf(d.clipFix)
	res.LayerExplain, res.ClipExplain, res.ClipFixExplain = jit.Explain(d.layer), jit.Explain(d.clip), jit.Explain(d.clipFix)
	res.MetricsText = lazy.MetricsReport()
	fmt.Fprintf(out, "\njit.Explain:\n%s%s%s\nlazy.MetricsReport:\n%s", res.LayerExplain, res.ClipExplain, res.ClipFixExplain, res.MetricsText)
	return res, nil
}

func main() {
	cfg := config{Out: os.Stdout}
	flag.Int64Var(&cfg.Batch, "batch", 4, "rows of x")
	flag.Int64Var(&cfg.In, "in", 8, "input features")
	flag.Int64Var(&cfg.Units, "units", 3, "output features")
	flag.IntVar(&cfg.Steady, "steady", 10, "calls in the steady-state phase")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "RNG seed")
	flag.Parse()
	if _, err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "stats:", err)
		os.Exit(1)
	}
}
