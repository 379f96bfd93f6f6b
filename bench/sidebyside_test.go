package bench

// The side-by-side workloads: the same shapes and data as
// torch_sidebyside.py, through xlajit's public API (jit.Compile over lazy
// tensors, nn layers, optim), and through GoMLX's pure-Go backend and gonum
// where those are natural. cmd/sidebyside runs this benchmark and the
// PyTorch script in interleaved rounds and prints the ratio table.
//
// Sub-benchmark names are row=<workload>/impl=<implementation>. Every row
// reports a "check" metric computed once before timing (a loss, or a sum of
// the output), which the PyTorch script reports for the same data: equal
// checks show that both sides ran the same computation.

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
	"github.com/xlajit/xlajit/optim"
)

// seqData is the workloads' data, reproducible in Python:
// ((i*7919 + seed*104729) mod 65536) / 65536 * 2 - 1, times scale, computed
// in float64 (exactly, before the scale) and rounded to float32 once.
func seqData(seed, n int, scale float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		v := float64((i*7919+seed*104729)%65536)/65536*2 - 1
		out[i] = float32(v * scale)
	}
	return out
}

// seqLabels are class labels (i*7 + seed) mod classes.
func seqLabels(seed, n, classes int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64((i*7 + seed) % classes)
	}
	return out
}

// linear makes an nn.Linear with weight [out, in] and bias [out] from
// seqData scaled by 1/sqrt(in) (PyTorch's default init range).
func linear(seed int, in, out int64) *nn.Linear {
	s := 1 / math.Sqrt(float64(in))
	return &nn.Linear{Weight: lazy.FromSlice(seqData(seed, int(out*in), s), out, in), Bias: lazy.FromSlice(seqData(seed+1, int(out), s), out)}
}

func conv(seed int, in, out, k int64) *nn.Conv2d {
	c := nn.NewConv2d(in, out, k, nn.Padding(k/2))
	s := 1 / math.Sqrt(float64(in*k*k))
	c.Weight = lazy.FromSlice(seqData(seed, int(out*in*k*k), s), out, in, k, k)
	c.Bias = lazy.FromSlice(seqData(seed+1, int(out), s), out)
	return c
}

func sum32(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v)
	}
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// BenchmarkSideBySide is every workload of the side-by-side table.
func BenchmarkSideBySide(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		b.Run(fmt.Sprintf("row=matmul%d/impl=xlajit", n), func(b *testing.B) { matmulXlajit(b, n) })
		b.Run(fmt.Sprintf("row=matmul%d/impl=gomlx", n), func(b *testing.B) { matmulGoMLX(b, n) })
		b.Run(fmt.Sprintf("row=matmul%d/impl=gonum", n), func(b *testing.B) { matmulGonum(b, n) })
	}
	b.Run("row=mlp_fwd/impl=xlajit", mlpXlajit)
	b.Run("row=mlp_fwd/impl=gomlx", mlpGoMLX)
	b.Run("row=tanh_chain/impl=xlajit", chainXlajit)
	b.Run("row=tanh_chain/impl=gomlx", chainGoMLX)
	b.Run("row=mnist_step/impl=xlajit", mnistXlajit)
	b.Run("row=cnn_step/impl=xlajit", cnnXlajit)
	b.Run("row=transformer_fb/impl=xlajit", transformerXlajit)
	b.Run("row=tiny_call/impl=xlajit", tinyXlajit)
	b.Run("row=tiny_call/impl=gomlx", tinyGoMLX)
	b.Run("row=mlp_first_call/impl=xlajit", mlpFirstXlajit)
	b.Run("row=mlp_first_call/impl=gomlx", mlpFirstGoMLX)
	b.Run("row=chain10k_first_call/impl=xlajit", chainFirstXlajit)
}

func matmulGFLOPs(b *testing.B, n int) {
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// warmFor is how long a steady-state row runs before it is timed: what
// torch_sidebyside.py's bench gives every PyTorch row at benchtimes of
// 50 ms or more (its step for min(0.05 s, benchtime), then the untimed
// calls that size its batches), so that neither side's first calls
// (caches filling, storage a collection has not yet handed back) count on
// one side only.
const warmFor = 50 * time.Millisecond

// warm runs step for warmFor, at least once.
func warm(step func()) {
	for t0 := time.Now(); ; {
		step()
		if time.Since(t0) >= warmFor {
			return
		}
	}
}

func matmulXlajit(b *testing.B, n int) {
	x := lazy.FromSlice(seqData(1, n*n, 1), int64(n), int64(n))
	y := lazy.FromSlice(seqData(2, n*n, 1), int64(n), int64(n))
	f := jit.Compile(func(a, b *lazy.Tensor) *lazy.Tensor { return a.MatMul(b) })
	check := sum32(f(x, y).Float32s())
	b.ReportAllocs()
	warm(func() { must(lazy.Sync(f(x, y))) })
	for b.Loop() {
		must(lazy.Sync(f(x, y)))
	}
	b.ReportMetric(check, "check")
	matmulGFLOPs(b, n)
}

func matmulGonum(b *testing.B, n int) {
	x := blas32.General{Rows: n, Cols: n, Stride: n, Data: seqData(1, n*n, 1)}
	y := blas32.General{Rows: n, Cols: n, Stride: n, Data: seqData(2, n*n, 1)}
	c := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, c)
	check := sum32(c.Data)
	warm(func() { blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, c) })
	for b.Loop() {
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, c)
	}
	b.ReportMetric(check, "check")
	matmulGFLOPs(b, n)
}

// gomlxExec compiles fn on a new simplego backend.
func gomlxExec[F graph.ExecGraphFn](b *testing.B, fn F) *graph.Exec {
	backend, err := simplego.New("")
	if err != nil {
		b.Fatal(err)
	}
	exec, err := graph.NewExec(backend, fn)
	if err != nil {
		b.Fatal(err)
	}
	return exec
}

func gomlxRun(b *testing.B, exec *graph.Exec, args ...any) *tensors.Tensor {
	out, err := exec.Exec(args...)
	if err != nil {
		b.Fatal(err)
	}
	return out[0]
}

func gomlxSum(t *tensors.Tensor) float64 {
	return sum32(tensors.MustCopyFlatData[float32](t))
}

func matmulGoMLX(b *testing.B, n int) {
	x := tensors.FromFlatDataAndDimensions(seqData(1, n*n, 1), n, n)
	y := tensors.FromFlatDataAndDimensions(seqData(2, n*n, 1), n, n)
	exec := gomlxExec(b, func(a, c *graph.Node) *graph.Node { return graph.MatMul(a, c) })
	check := gomlxSum(gomlxRun(b, exec, x, y))
	warm(func() { gomlxRun(b, exec, x, y).FinalizeAll() })
	for b.Loop() {
		gomlxRun(b, exec, x, y).FinalizeAll()
	}
	b.ReportMetric(check, "check")
	matmulGFLOPs(b, n)
}

// The MLP: batch 64, 784-512-512-10, ReLU on the hidden layers.
type mlpModel struct{ L1, L2, L3 *nn.Linear }

func newMLP() *mlpModel {
	return &mlpModel{linear(10, 784, 512), linear(20, 512, 512), linear(30, 512, 10)}
}

func (m *mlpModel) forward(x *lazy.Tensor) *lazy.Tensor {
	return m.L3.Forward(m.L2.Forward(m.L1.Forward(x).ReLU()).ReLU())
}

func mlpInput() *lazy.Tensor { return lazy.FromSlice(seqData(3, 64*784, 1), 64, 784) }

func mlpXlajit(b *testing.B) {
	m, x := newMLP(), mlpInput()
	f := jit.Compile(func(m *mlpModel, x *lazy.Tensor) *lazy.Tensor { return m.forward(x) })
	check := sum32(f(m, x).Float32s())
	b.ReportAllocs()
	warm(func() { must(lazy.Sync(f(m, x))) })
	for b.Loop() {
		must(lazy.Sync(f(m, x)))
	}
	b.ReportMetric(check, "check")
}

// mlpGoMLXFn is the MLP in GoMLX with weights [in, out] (the transposes of
// the nn.Linear weights) and bias rows.
func mlpGoMLXFn(in []*graph.Node) *graph.Node {
	x, w1, b1, w2, b2, w3, b3 := in[0], in[1], in[2], in[3], in[4], in[5], in[6]
	layer := func(h, w, bias *graph.Node) *graph.Node {
		return graph.Add(graph.MatMul(h, w), graph.ExpandDims(bias, 0))
	}
	relu := func(h *graph.Node) *graph.Node { return graph.Max(h, graph.ZerosLike(h)) }
	return layer(relu(layer(relu(layer(x, w1, b1)), w2, b2)), w3, b3)
}

// mlpGoMLXArgs are the MLP's input and parameters as GoMLX tensors.
func mlpGoMLXArgs() []any {
	t := func(w []float32, out, in int) *tensors.Tensor { // [out, in] -> [in, out]
		tr := make([]float32, len(w))
		for o := 0; o < out; o++ {
			for i := 0; i < in; i++ {
				tr[i*out+o] = w[o*in+i]
			}
		}
		return tensors.FromFlatDataAndDimensions(tr, in, out)
	}
	args := []any{tensors.FromFlatDataAndDimensions(seqData(3, 64*784, 1), 64, 784)}
	for _, l := range []struct{ seed, in, out int }{{10, 784, 512}, {20, 512, 512}, {30, 512, 10}} {
		s := 1 / math.Sqrt(float64(l.in))
		args = append(args, t(seqData(l.seed, l.out*l.in, s), l.out, l.in), tensors.FromFlatDataAndDimensions(seqData(l.seed+1, l.out, s), l.out))
	}
	return args
}

func mlpGoMLX(b *testing.B) {
	args := mlpGoMLXArgs()
	exec := gomlxExec(b, mlpGoMLXFn)
	check := gomlxSum(gomlxRun(b, exec, args...))
	warm(func() { gomlxRun(b, exec, args...).FinalizeAll() })
	for b.Loop() {
		gomlxRun(b, exec, args...).FinalizeAll()
	}
	b.ReportMetric(check, "check")
}

const chainLen = 1 << 20

func chainXlajit(b *testing.B) {
	x := lazy.FromSlice(seqData(4, chainLen, 3), chainLen)
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.MulScalar(1.5).AddScalar(0.5).Tanh().MulScalar(0.7) })
	check := sum32(f(x).Float32s())
	b.ReportAllocs()
	warm(func() { must(lazy.Sync(f(x))) })
	for b.Loop() {
		must(lazy.Sync(f(x)))
	}
	b.ReportMetric(check, "check")
}

func chainGoMLX(b *testing.B) {
	x := tensors.FromFlatDataAndDimensions(seqData(4, chainLen, 3), chainLen)
	exec := gomlxExec(b, func(x *graph.Node) *graph.Node {
		return graph.MulScalar(graph.Tanh(graph.AddScalar(graph.MulScalar(x, 1.5), 0.5)), 0.7)
	})
	check := gomlxSum(gomlxRun(b, exec, x))
	warm(func() { gomlxRun(b, exec, x).FinalizeAll() })
	for b.Loop() {
		gomlxRun(b, exec, x).FinalizeAll()
	}
	b.ReportMetric(check, "check")
}

// The MNIST step: batch 64, 784-128-10, cross-entropy, SGD with momentum
// 0.9 and learning rate 0.05.
type mnistModel struct{ FC1, FC2 *nn.Linear }

func mnistStep(m *mnistModel, opt *optim.SGD, x, y *lazy.Tensor) *lazy.Tensor {
	loss := nn.CrossEntropy(m.FC2.Forward(m.FC1.Forward(x).ReLU()), y)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

func mnistXlajit(b *testing.B) {
	m := &mnistModel{linear(40, 784, 128), linear(50, 128, 10)}
	opt := optim.NewSGD(nn.Params(m).Tensors(), 0.05, optim.Momentum(0.9))
	x, y := lazy.FromSlice(seqData(5, 64*784, 1), 64, 784), lazy.FromSlice(seqLabels(5, 64, 10), 64)
	step := jit.Compile(mnistStep)
	check := step(m, opt, x, y).Item()
	b.ReportAllocs()
	warm(func() { must(lazy.Sync(step(m, opt, x, y))) })
	for b.Loop() {
		must(lazy.Sync(step(m, opt, x, y)))
	}
	b.ReportMetric(check, "check")
}

// The CNN step: batch 64 of 1x28x28, conv 3x3 1->8 (padding 1), ReLU, max
// pool 2, conv 3x3 8->16, ReLU, max pool 2, linear 784->10, cross-entropy,
// SGD with learning rate 0.05.
type cnnModel struct {
	C1, C2 *nn.Conv2d
	FC     *nn.Linear
}

func (m *cnnModel) logits(x *lazy.Tensor) *lazy.Tensor {
	pool := nn.NewMaxPool2d(2)
	h := pool.Forward(m.C1.Forward(x).ReLU())
	h = pool.Forward(m.C2.Forward(h).ReLU())
	return m.FC.Forward(nn.Flatten(h))
}

func cnnStep(m *cnnModel, opt *optim.SGD, x, y *lazy.Tensor) *lazy.Tensor {
	loss := nn.CrossEntropy(m.logits(x), y)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

func cnnXlajit(b *testing.B) {
	m := &cnnModel{conv(60, 1, 8, 3), conv(70, 8, 16, 3), linear(80, 784, 10)}
	opt := optim.NewSGD(nn.Params(m).Tensors(), 0.05)
	x, y := lazy.FromSlice(seqData(6, 64*28*28, 1), 64, 1, 28, 28), lazy.FromSlice(seqLabels(6, 64, 10), 64)
	step := jit.Compile(cnnStep)
	check := step(m, opt, x, y).Item()
	b.ReportAllocs()
	warm(func() { must(lazy.Sync(step(m, opt, x, y))) })
	for b.Loop() {
		must(lazy.Sync(step(m, opt, x, y)))
	}
	b.ReportMetric(check, "check")
}

// The transformer block: pre-LN, d 256, 4 heads, MLP 1024 with GELU (tanh
// form), causal self-attention, batch 8 x sequence 128; the loss is the
// mean square of the block's output, and a call computes it and the
// gradients of every parameter.
type tfBlock struct {
	LN1  *nn.LayerNorm
	Attn *nn.MultiHeadAttention
	LN2  *nn.LayerNorm
	FC1  *nn.Linear
	FC2  *nn.Linear
}

const (
	tfD, tfHeads, tfHidden, tfBatch, tfSeq = 256, 4, 1024, 8, 128
)

func newTfBlock() *tfBlock {
	attn := nn.NewMultiHeadAttention(tfD, tfHeads)
	s := 1 / math.Sqrt(tfD)
	attn.InProjWeight = lazy.FromSlice(seqData(90, 3*tfD*tfD, s), 3*tfD, tfD)
	attn.InProjBias = lazy.FromSlice(seqData(91, 3*tfD, s), 3*tfD)
	attn.OutProj = linear(92, tfD, tfD)
	return &tfBlock{
		LN1: nn.NewLayerNorm([]int64{tfD}), Attn: attn, LN2: nn.NewLayerNorm([]int64{tfD}),
		FC1: linear(94, tfD, tfHidden), FC2: linear(96, tfHidden, tfD),
	}
}

func (t *tfBlock) forward(x *lazy.Tensor) *lazy.Tensor {
	x = x.Add(t.Attn.CausalSelfAttention(t.LN1.Forward(x)))
	return x.Add(t.FC2.Forward(t.FC1.Forward(t.LN2.Forward(x)).GELU()))
}

func tfStep(t *tfBlock, x *lazy.Tensor) []*lazy.Tensor {
	loss := t.forward(x).Square().Mean()
	return append(lazy.Grad(loss, nn.Params(t).Tensors()...), loss)
}

func transformerXlajit(b *testing.B) {
	blk := newTfBlock()
	x := lazy.FromSlice(seqData(8, tfBatch*tfSeq*tfD, 1), tfBatch, tfSeq, tfD)
	step := jit.Compile(tfStep)
	out := step(blk, x)
	check := out[len(out)-1].Item()
	b.ReportAllocs()
	warm(func() { must(lazy.Sync(step(blk, x)...)) })
	for b.Loop() {
		must(lazy.Sync(step(blk, x)...))
	}
	b.ReportMetric(check, "check")
}

func tinyXlajit(b *testing.B) {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.AddScalar(1) })
	x := lazy.FromSlice([]float32{1})
	check := f(x).Item()
	b.ReportAllocs()
	warm(func() { f(x) })
	for b.Loop() {
		f(x)
	}
	b.ReportMetric(check, "check")
}

func tinyGoMLX(b *testing.B) {
	exec := gomlxExec(b, func(x *graph.Node) *graph.Node { return graph.AddScalar(x, float32(1)) })
	x := tensors.FromFlatDataAndDimensions([]float32{1}, 1)
	check := gomlxSum(gomlxRun(b, exec, x))
	b.ReportAllocs()
	warm(func() { gomlxRun(b, exec, x) })
	for b.Loop() {
		gomlxRun(b, exec, x)
	}
	b.ReportMetric(check, "check")
}

// firstCallSeq numbers the first-call rows' functions across the whole
// process: a constant that restarted with each -count (or each row) would
// build a graph compiled before, and the compile cache would serve it.
var firstCallSeq atomic.Int64

// mlpFirstXlajit is the first call of a new jit function of the MLP
// (trace, compile, one execution). Each iteration adds a different
// constant to the logits, so that no compile cache can serve it; the
// table subtracts mlp_fwd's time to get the cost beyond one execution.
func mlpFirstXlajit(b *testing.B) {
	m, x := newMLP(), mlpInput()
	b.ReportAllocs()
	for b.Loop() {
		c := float64(firstCallSeq.Add(1))
		f := jit.Compile(func(m *mlpModel, x *lazy.Tensor) *lazy.Tensor { return m.forward(x).AddScalar(c) })
		must(lazy.Sync(f(m, x)))
	}
}

func mlpFirstGoMLX(b *testing.B) {
	args := mlpGoMLXArgs()
	backend, err := simplego.New("")
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		c := float32(i)
		exec, err := graph.NewExec(backend, func(in []*graph.Node) *graph.Node {
			return graph.AddScalar(mlpGoMLXFn(in), c)
		})
		if err != nil {
			b.Fatal(err)
		}
		gomlxRun(b, exec, args...).FinalizeAll()
		exec.Finalize()
	}
}

// chainFirstXlajit is the first call of a 10,000-op elementwise chain on
// one element (trace, compile, one execution); a different first constant
// per iteration defeats the compile cache.
func chainFirstXlajit(b *testing.B) {
	x := lazy.FromSlice([]float32{1})
	b.ReportAllocs()
	for b.Loop() {
		c := float64(firstCallSeq.Add(1))
		f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
			x = x.AddScalar(c)
			for k := 1; k < 10000; k++ {
				if k%2 == 0 {
					x = x.AddScalar(1)
				} else {
					x = x.MulScalar(0.5)
				}
			}
			return x
		})
		must(lazy.Sync(f(x)))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/graph-op")
}
