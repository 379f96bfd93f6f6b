package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// TestShortRun trains a one-block model for 60 steps: the mean loss of the
// last ten steps must be well below that of the first ten (which start near
// ln(vocabulary) = 3.26), with one trace and one compile of the train step.
func TestShortRun(t *testing.T) {
	var out bytes.Buffer
	const steps = 60
	res, err := run(config{
		Model: modelConfig{SeqLen: 16, DModel: 32, Heads: 4, Hidden: 64, Layers: 1, DType: lazy.F32},
		Steps: steps, Batch: 8, LR: 3e-3, Every: 20, Generate: 8, Seed: 1, Out: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if len(res.Losses) != steps {
		t.Fatalf("%d losses for %d steps", len(res.Losses), steps)
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	first, last := mean(res.Losses[:10]), mean(res.Losses[steps-10:])
	if math.Abs(res.Losses[0]-math.Log(26)) > 0.2 {
		t.Errorf("first loss %.3f, want about ln(26) = %.3f", res.Losses[0], math.Log(26))
	}
	if !(last < 0.75*first) {
		t.Errorf("loss did not fall enough: first ten steps %.3f, last ten %.3f", first, last)
	}
	if s := res.Stats; s.Traces != 1 || s.Compiles != 1 || s.Replays != steps || s.Recompiles != 0 || s.GraphBreaks != 0 {
		t.Errorf("stats %s: want 1 trace, 1 compile, %d replays", s, steps)
	}
	if n := len([]rune(res.Generated)); n != 8 {
		t.Errorf("generated %d characters, want 8", n)
	}
}

// TestGradientMatchesFiniteDifferences checks lazy.Grad through the whole
// model (embedding gather, causal attention, layer norm, GELU, cross
// entropy) against central differences of the loss, in f64 on a tiny
// model, for a few random elements of every parameter. Both the gradient
// and the losses run compiled.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	voc := newVocabulary(corpus)
	data := voc.encode(corpus)
	mc := modelConfig{Vocab: int64(len(voc.chars)), SeqLen: 5, DModel: 8, Heads: 2, Hidden: 12, Layers: 1, DType: lazy.F64}
	lazy.ManualSeed(3)
	m := newModel(mc)
	// Weights of order one make every nonlinearity (softmax, GELU, layer
	// norm) matter; the default 0.02 init would leave them nearly linear.
	params := nn.Params(m)
	for _, p := range params.Tensors() {
		p.Assign(p.Add(lazy.RandN(lazy.F64, p.Dims()...).MulScalar(0.5)))
	}
	if err := lazy.Sync(params.Tensors()...); err != nil {
		t.Fatal(err)
	}
	const b = 2
	xs := make([]int32, b*mc.SeqLen)
	ys := make([]int32, b*mc.SeqLen)
	rng := rand.New(rand.NewPCG(5, 6))
	batch(rng, data, int(mc.SeqLen), xs, ys)
	x := lazy.FromSlice(xs, b, mc.SeqLen)
	y := lazy.FromSlice(ys, b, mc.SeqLen)

	gradFn := jit.Compile(func(m *model, x, y *lazy.Tensor) []*lazy.Tensor {
		return lazy.Grad(m.loss(x, y), nn.Params(m).Tensors()...)
	})
	lossFn := jit.Compile(func(m *model, x, y *lazy.Tensor) *lazy.Tensor { return m.loss(x, y) })
	grads := gradFn(m, x, y)

	names := params.Names()
	const h = 1e-5
	checked := 0
	worst := 0.0
	for pi, p := range params.Tensors() {
		g := grads[pi].Float64s()
		orig := p.Float64s()
		var hit bool
		for k := 0; k < 4; k++ {
			i := rng.IntN(len(orig))
			eval := func(v float64) float64 {
				w := append([]float64(nil), orig...)
				w[i] = v
				p.Assign(lazy.FromSlice(w, p.Dims()...))
				return lossFn(m, x, y).Item()
			}
			fd := (eval(orig[i]+h) - eval(orig[i]-h)) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-7+1e-6*math.Abs(g[i]) {
				t.Errorf("%s[%d]: grad %.10g, finite difference %.10g", names[pi], i, g[i], fd)
			}
			worst = max(worst, math.Abs(fd-g[i])/(1e-3+math.Abs(g[i])))
			hit = hit || g[i] != 0
			checked++
		}
		p.Assign(lazy.FromSlice(orig, p.Dims()...))
		if !hit && pi != 0 {
			// The embedding rows of absent tokens have zero gradient; any
			// other parameter with four zero entries means a cut path.
			t.Errorf("%s: every checked gradient entry is zero", names[pi])
		}
	}
	t.Logf("%d entries checked; worst |fd-grad|/(1e-3+|grad|) = %.2g", checked, worst)
	if s := jit.StatsOf(lossFn); s.Traces != 1 || s.Replays != int64(2*checked) {
		t.Errorf("loss function stats %s: want 1 trace and %d replays", s, 2*checked)
	}
}

// TestBadSizes: sizes below one are errors naming them, not a division by
// zero (-heads 0 in the width check, -seq 0 in the batch windows) or a
// makeslice panic.
func TestBadSizes(t *testing.T) {
	good := modelConfig{SeqLen: 8, DModel: 8, Heads: 2, Hidden: 8, Layers: 1, DType: lazy.F32}
	for _, c := range []struct {
		edit func(*config)
		want string
	}{
		{func(c *config) { c.Model.Heads = 0 }, "-heads 0"},
		{func(c *config) { c.Model.SeqLen = 0 }, "-seq 0"},
		{func(c *config) { c.Model.DModel = -4 }, "-d -4"},
		{func(c *config) { c.Model.Hidden = 0 }, "-hidden 0"},
		{func(c *config) { c.Model.Layers = -1 }, "-layers -1"},
		{func(c *config) { c.Batch = 0 }, "-batch 0"},
		{func(c *config) { c.Steps = -1 }, "-steps -1"},
	} {
		cfg := config{Model: good, Steps: 1, Batch: 2, LR: 1e-3, Seed: 1, Out: &bytes.Buffer{}}
		c.edit(&cfg)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", c.want, p)
				}
			}()
			if _, err := run(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v", c.want, err)
			}
		}()
	}
}
