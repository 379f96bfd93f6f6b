package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/data/mnist"
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/spmd"
)

type config struct {
	Devices int
	Steps   int
	Batch   int
	Hidden  int64
	LR, Mu  float64
	Seed    uint64
	Out     io.Writer
}

func main() {
	cfg := config{Hidden: 128, LR: 0.05, Mu: 0.9, Seed: 1, Out: os.Stdout}
	flag.IntVar(&cfg.Devices, "devices", 4, "embedded virtual devices (ignored with PJRT_DEVICE)")
	flag.IntVar(&cfg.Steps, "steps", 50, "data-parallel training steps")
	flag.IntVar(&cfg.Batch, "batch", 128, "global batch size")
	flag.Parse()
	c, err := client(cfg.Devices)
	if err == nil {
		_, err = dataParallel(c, cfg)
	}
	if err == nil {
		_, err = tensorParallel(c, cfg.Out, 2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "spmd:", err)
		os.Exit(1)
	}
}

// client is the PJRT plugin named by PJRT_DEVICE, else an embedded client
// with n virtual devices.
func client(n int) (pjrt.Client, error) {
	if os.Getenv("PJRT_DEVICE") != "" {
		return pjrt.Default()
	}
	if n < 1 || n > maxDevices {
		return nil, fmt.Errorf("-devices %d: want 1 to %d virtual devices", n, maxDevices)
	}
	return host.NewClient(n), nil
}

// maxDevices bounds -devices as XLAJIT_HOST_DEVICES is bounded (see
// package pjrt/host): host.NewClient makes a record and a memory account
// per device, so a mistyped count would allocate until the process died.
const maxDevices = 1 << 12

// devicesOf is the plain devices and the SPMD device of c (an error when
// c has none).
func devicesOf(c pjrt.Client) (one, all *lazy.Device, err error) {
	if len(c.Devices()) == 0 {
		return nil, nil, fmt.Errorf("%s client has no devices", c.Platform())
	}
	return lazy.DevicesOf(c)[0], lazy.SPMDDevice(c), nil
}

// model is the MLP's parameters and their momentum buffers.
type model struct {
	W1, B1, W2, B2 *lazy.Tensor
	V              [4]*lazy.Tensor
}

func (m *model) params() []*lazy.Tensor { return []*lazy.Tensor{m.W1, m.B1, m.W2, m.B2} }

// newModel puts the same He-initialized weights (drawn on the host from
// seed) on dev.
func newModel(dev *lazy.Device, hidden int64, seed uint64) *model {
	rng := rand.New(rand.NewPCG(seed, 3))
	normal := func(scale float64, dims ...int64) *lazy.Tensor {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(rng.NormFloat64() * scale)
		}
		return lazy.FromLiteralOn(dev, lazyLiteral(xs, dims...))
	}
	zeros := func(dims ...int64) *lazy.Tensor { return lazy.FullOn(dev, lazy.F32, 0, dims...) }
	m := &model{
		W1: normal(math.Sqrt(2.0/mnist.Pixels), mnist.Pixels, hidden), B1: zeros(hidden),
		W2: normal(math.Sqrt(2/float64(hidden)), hidden, 10), B2: zeros(10),
	}
	for i, p := range m.params() {
		m.V[i] = lazy.FullOn(dev, lazy.F32, 0, p.Dims()...)
	}
	if err := lazy.Sync(append(m.params(), m.V[:]...)...); err != nil {
		panic(err)
	}
	return m
}

func (m *model) logits(x *lazy.Tensor) *lazy.Tensor {
	h := x.MatMul(m.W1).Add(m.B1).ReLU()
	return h.MatMul(m.W2).Add(m.B2)
}

// trainStep is one SGD-with-momentum step, written for one device.
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

// dpResult is what the data-parallel run measured.
type dpResult struct {
	Losses, Reference []float64
	MaxParamDiff      float64
	Stats             jit.Stats
	Collectives       map[string]int
	Reshards          []pjrt.Reshard
}

// dataParallel trains on the SPMD device (batch cut over "data") and on
// one device, step by step on the same batches.
func dataParallel(c pjrt.Client, cfg config) (*dpResult, error) {
	if cfg.Batch < 1 {
		return nil, fmt.Errorf("-batch %d: want at least one example", cfg.Batch)
	}
	one, dev, err := devicesOf(c)
	if err != nil {
		return nil, err
	}
	train, _, err := mnist.Load()
	if err != nil {
		return nil, err
	}
	n := len(c.Devices())
	mesh, err := spmd.Mesh1D(n, "data")
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Out, "== data-parallel MNIST on %s: %s\n", dev, mesh)
	sharded, ref := newModel(dev, cfg.Hidden, cfg.Seed), newModel(one, cfg.Hidden, cfg.Seed)
	step := jit.Compile(trainStep, jit.WithName("dpStep"))
	refStep := jit.Compile(trainStep, jit.WithName("refStep"))
	res := &dpResult{}
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	xs := make([]float32, cfg.Batch*mnist.Pixels)
	ys := make([]int32, cfg.Batch)
	for s := 0; s < cfg.Steps; s++ {
		for i := 0; i < cfg.Batch; i++ {
			k := rng.IntN(train.N)
			copy(xs[i*mnist.Pixels:(i+1)*mnist.Pixels], train.Images[k*mnist.Pixels:(k+1)*mnist.Pixels])
			ys[i] = train.Labels[k]
		}
		xl, yl := lazyLiteral(xs, int64(cfg.Batch), mnist.Pixels), lazyLiteral(ys, int64(cfg.Batch))
		x, err := spmd.FromLiteral(dev, xl, mesh, "data", nil)
		if err != nil {
			return nil, err
		}
		y, err := spmd.FromLiteral(dev, yl, mesh, "data")
		if err != nil {
			return nil, err
		}
		if s == 0 {
			fmt.Fprintf(cfg.Out, "batch x: %s", spmd.VisualizeTensor(x))
			fmt.Fprintf(cfg.Out, "weight W1: %s", spmd.VisualizeTensor(sharded.W1))
		}
		res.Losses = append(res.Losses, step(sharded, x, y, cfg.LR, cfg.Mu).Item())
		res.Reference = append(res.Reference, refStep(ref, lazy.FromLiteralOn(one, xl), lazy.FromLiteralOn(one, yl), cfg.LR, cfg.Mu).Item())
		if s%10 == 0 || s == cfg.Steps-1 {
			fmt.Fprintf(cfg.Out, "step %3d  loss %.6f  (one device %.6f)\n", s, res.Losses[s], res.Reference[s])
		}
	}
	for i, p := range sharded.params() {
		a, b := p.MustLiteral().F32(), ref.params()[i].MustLiteral().F32()
		for k := range a {
			res.MaxParamDiff = max(res.MaxParamDiff, math.Abs(float64(a[k]-b[k])))
		}
	}
	res.Stats = jit.StatsOf(step)
	// The partitioned program of one step, compiled in lazy mode.
	x, _ := spmd.FromLiteral(dev, lazyLiteral(xs, int64(cfg.Batch), mnist.Pixels), mesh, "data", nil)
	y, _ := spmd.FromLiteral(dev, lazyLiteral(ys, int64(cfg.Batch)), mesh, "data")
	loss := trainStep(sharded, x, y, cfg.LR, cfg.Mu)
	exe, err := compileOf(dev, append([]*lazy.Tensor{loss}, append(sharded.params(), sharded.V[:]...)...))
	if err != nil {
		return nil, err
	}
	res.Collectives, res.Reshards = exe.Collectives(), exe.Reshards()
	fmt.Fprintf(cfg.Out, "train step: %s\n", res.Stats)
	fmt.Fprintf(cfg.Out, "partitioned train step: collectives %s, reshards %d\n", collectiveString(res.Collectives), len(res.Reshards))
	for _, r := range res.Reshards {
		fmt.Fprintf(cfg.Out, "  reshard %s\n", r)
	}
	fmt.Fprintf(cfg.Out, "after %d steps: largest weight difference from one device %.3g\n\n", cfg.Steps, res.MaxParamDiff)
	return res, nil
}

// tpResult is what the tensor-parallel run measured.
type tpResult struct {
	MaxDiff     float64
	Collectives map[string]int
	Reshards    []pjrt.Reshard
	Module      string
}

// tensorParallel runs blocks MLP blocks (x -> relu(x W1 + b1) W2 + b2 + x)
// with W1 cut by columns and W2 by rows over the "model" axis.
func tensorParallel(c pjrt.Client, out io.Writer, blocks int) (*tpResult, error) {
	one, dev, err := devicesOf(c)
	if err != nil {
		return nil, err
	}
	n := len(c.Devices())
	mesh, err := spmd.Mesh1D(n, "model")
	if err != nil {
		return nil, err
	}
	const batch, width, hidden = 8, 32, 64
	fmt.Fprintf(out, "== tensor-parallel MLP (%d blocks) on %s: %s\n", blocks, dev, mesh)
	rng := rand.New(rand.NewPCG(5, 5))
	lit := func(dims ...int64) *lazy.Literal {
		xs := make([]float32, dims[0]*dims[len(dims)-1])
		if len(dims) == 1 {
			xs = xs[:dims[0]]
		}
		for i := range xs {
			xs[i] = float32(rng.NormFloat64() * 0.2)
		}
		return lazyLiteral(xs, dims...)
	}
	type block struct{ w1, b1, w2, b2 *lazy.Literal }
	var bs []block
	for i := 0; i < blocks; i++ {
		bs = append(bs, block{lit(width, hidden), lit(hidden), lit(hidden, width), lit(width)})
	}
	xl := lit(batch, width)
	forward := func(dev *lazy.Device, sharded bool) (*lazy.Tensor, error) {
		h := lazy.FromLiteralOn(dev, xl)
		for i, b := range bs {
			w1, b1 := lazy.FromLiteralOn(dev, b.w1), lazy.FromLiteralOn(dev, b.b1)
			w2, b2 := lazy.FromLiteralOn(dev, b.w2), lazy.FromLiteralOn(dev, b.b2)
			if sharded {
				for _, m := range []struct {
					t    *lazy.Tensor
					spec []any
				}{{w1, []any{nil, "model"}}, {b1, []any{"model"}}, {w2, []any{"model", nil}}} {
					if err := spmd.MarkSharding(m.t, mesh, m.spec...); err != nil {
						return nil, err
					}
				}
				if i == 0 {
					fmt.Fprintf(out, "W1: %sW2: %s", spmd.VisualizeTensor(w1), spmd.VisualizeTensor(w2))
				}
			}
			h = h.MatMul(w1).Add(b1).ReLU().MatMul(w2).Add(b2).Add(h)
		}
		return h, nil
	}
	y, err := forward(dev, true)
	if err != nil {
		return nil, err
	}
	exe, err := compileOf(dev, []*lazy.Tensor{y})
	if err != nil {
		return nil, err
	}
	res := &tpResult{Collectives: exe.Collectives(), Reshards: exe.Reshards()}
	if m := exe.PartitionedModule(); m != nil {
		res.Module = m.String()
	}
	want, err := forward(one, false)
	if err != nil {
		return nil, err
	}
	a, b := y.MustLiteral().F32(), want.MustLiteral().F32()
	for k := range a {
		res.MaxDiff = max(res.MaxDiff, math.Abs(float64(a[k]-b[k])))
	}
	fmt.Fprintf(out, "output sharding %s, largest difference from one device %.3g\n", y.Sharding(), res.MaxDiff)
	fmt.Fprintf(out, "partitioned program: collectives %s, reshards %d\n", collectiveString(res.Collectives), len(res.Reshards))
	if res.Module != "" {
		for _, line := range strings.Split(res.Module, "\n") {
			if strings.Contains(line, "stablehlo.all_") || strings.Contains(line, "dot_general") {
				fmt.Fprintf(out, "  %s\n", strings.TrimSpace(line))
			}
		}
	}
	return res, nil
}

// compileOf finds or compiles the program computing ts on dev (nothing
// runs) and returns it, for its partitioning report.
func compileOf(dev *lazy.Device, ts []*lazy.Tensor) (*lazy.Executable, error) {
	roots := make([]lazy.Value, len(ts))
	for i, t := range ts {
		roots[i] = t.Value()
	}
	exe, _, err := lazy.CompileGraph(dev, lazy.CollectGraph(roots), "report")
	return exe, err
}

func collectiveString(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s x%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// lazyLiteral copies xs into a host literal of the given dims.
func lazyLiteral[T float32 | int32](xs []T, dims ...int64) *lazy.Literal {
	return hlo.LiteralFromSlice(xs, dims...)
}
