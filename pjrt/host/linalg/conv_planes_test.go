package linalg_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
	"github.com/xlajit/xlajit/pjrt/host/linalg"
)

// randPlanesCase is a random convolution with its spatial dimensions
// innermost in the result: forward (NCHW x OIHW), input gradient (kernel
// [I, O, ...], reversed) and kernel gradient (lhs and result [C, N, ...],
// the lax form), with strides, padding, dilations and groups, large
// enough not to run in reference order.
func randPlanesCase(r *rand.Rand) convCase {
	s := []int{1, 2, 2, 3}[r.IntN(4)]
	sp := make([]int64, s)
	for i := range sp {
		sp[i] = int64(i + 2)
	}
	c := convCase{}
	n, ci, co := int64(1+r.IntN(4)), int64(1+r.IntN(5)), int64(1+r.IntN(6))
	switch r.IntN(4) {
	case 0:
		c.fgc = int64(1 + r.IntN(3))
		ci, co = ci*c.fgc, co*c.fgc
	case 1:
		c.bgc = int64(1 + r.IntN(3))
		n, co = n*c.bgc, co*c.bgc
	}
	c.lhs = append([]int64{n, ci}, make([]int64, s)...)
	c.rhs = append([]int64{co, ci / max(c.fgc, 1)}, make([]int64, s)...)
	c.dn = nchw(s)
	for i := 0; i < s; i++ {
		c.lhs[2+i] = int64(3 + r.IntN(10-2*s))
		c.rhs[2+i] = int64(1 + r.IntN(4))
	}
	c.strides, c.lhsDil, c.rhsDil, c.rev, c.pad = make([]int64, s), make([]int64, s), make([]int64, s), make([]int64, s), make([]int64, 2*s)
	for i := 0; i < s; i++ {
		c.strides[i], c.lhsDil[i], c.rhsDil[i] = 1, 1, 1
		if r.IntN(3) == 0 {
			c.strides[i] = 2
		}
		if r.IntN(8) == 0 {
			c.lhsDil[i] = 2
		}
		if r.IntN(8) == 0 {
			c.rhsDil[i] = 2
		}
		c.rev[i] = int64(r.IntN(2))
		c.pad[2*i], c.pad[2*i+1] = int64(r.IntN(3)), int64(r.IntN(3))
	}
	switch r.IntN(3) {
	case 1: // input gradient: kernel [I, O, spatial...]
		c.dn.KernelOutputFeatureDim, c.dn.KernelInputFeatureDim = 1, 0
		c.rhs[0], c.rhs[1] = c.rhs[1], c.rhs[0]
	case 2: // kernel gradient (lax): lhs [N, C, sp...] read as features N,
		// batch C; kernel [N, O, ksp...] (an output gradient, large);
		// result [O, C, sp...]
		if c.fgc > 1 || c.bgc > 1 {
			break
		}
		c.dn.InputBatchDim, c.dn.InputFeatureDim = 1, 0
		c.dn.KernelOutputFeatureDim, c.dn.KernelInputFeatureDim = 1, 0
		c.dn.OutputBatchDim, c.dn.OutputFeatureDim = 1, 0
		c.rhs = append([]int64{n, co}, make([]int64, s)...)
		for i := 0; i < s; i++ {
			c.rhs[2+i] = max(1, c.lhs[2+i]-int64(r.IntN(3)))
		}
	}
	c.fill()
	return c
}

// TestConvPlanes checks the planes schedules against the spec's definition
// on random convolutions of every layout they take, and that the common
// CNN layers take them.
func TestConvPlanes(t *testing.T) {
	defer linalg.SetSmallConv(false, false)()
	r := rand.New(rand.NewPCG(21, 22))
	iters := 400
	if testing.Short() || linalg.RaceBuild {
		iters = 80
	}
	count := map[string]int{}
	for it := 0; it < iters; it++ {
		c := randPlanesCase(r)
		od := c.outDims()
		if hlo.NumElements(od)*hlo.NumElements(c.rhs)/c.rhs[c.dn.KernelOutputFeatureDim] <= 4096 {
			continue
		}
		c.lt, c.ot = hlo.F32, hlo.F32
		if it%3 == 0 {
			c.lt, c.ot = hlo.F64, hlo.F64
		}
		c.name = fmt.Sprintf("case%d_%v_%v_%v_s%v_p%v_ld%v_rd%v_rev%v_g%d_%d", it, c.lhs, c.rhs, c.dn.Layout(), c.strides, c.pad, c.lhsDil, c.rhsDil, c.rev, c.fgc, c.bgc)
		sched, err := linalg.ConvSchedule(convOp(&c))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		count[sched]++
		runConvCase(t, r, &c, "stablehlo.convolution")
	}
	t.Logf("schedules: %v", count)
	if count["rows"] < iters/20 || count["accumulate"] < iters/40 || count["direct"] < iters/20 {
		t.Fatalf("schedules %v: too few cases took the planes path", count)
	}
	for _, c := range []convCase{
		{name: "forward", lhs: []int64{64, 1, 28, 28}, rhs: []int64{8, 1, 3, 3}, dn: nchw(2), pad: []int64{1, 1, 1, 1}},
		{name: "input_grad", lhs: []int64{64, 16, 14, 14}, rhs: []int64{16, 8, 3, 3}, pad: []int64{1, 1, 1, 1}, rev: []int64{1, 1},
			dn: hlo.ConvDimsAttr{InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: []int64{2, 3}, KernelInputFeatureDim: 0, KernelOutputFeatureDim: 1,
				KernelSpatialDims: []int64{2, 3}, OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: []int64{2, 3}}},
		{name: "kernel_grad", lhs: []int64{64, 8, 14, 14}, rhs: []int64{64, 16, 14, 14}, pad: []int64{1, 1, 1, 1},
			dn: hlo.ConvDimsAttr{InputBatchDim: 1, InputFeatureDim: 0, InputSpatialDims: []int64{2, 3}, KernelInputFeatureDim: 0, KernelOutputFeatureDim: 1,
				KernelSpatialDims: []int64{2, 3}, OutputBatchDim: 1, OutputFeatureDim: 0, OutputSpatialDims: []int64{2, 3}}},
	} {
		c.fill()
		c.lt, c.ot = hlo.F32, hlo.F32
		want := map[string]string{"forward": "direct", "input_grad": "direct", "kernel_grad": "accumulate"}[c.name]
		if got, _ := linalg.ConvSchedule(convOp(&c)); got != want {
			t.Errorf("%s: schedule %s, want %s", c.name, got, want)
		}
		runConvCase(t, r, &c, "stablehlo.convolution")
	}
}

// convOp builds the convolution op of c.
func convOp(c *convCase) *hlo.Op {
	m := singleOpModule("stablehlo.convolution", []hlo.Type{tt(c.lt, c.lhs...), tt(c.lt, c.rhs...)}, []hlo.Type{tt(c.ot, c.outDims()...)}, c.attrs()...)
	return m.Funcs[0].Body.Blocks[0].Ops[0]
}

// cnnConvs are the convolutions of a small CNN's training step (batch
// 64, conv3x3 1->8 and 8->16 on 28x28 and 14x14, NCHW): the forward
// layers, the input gradient of the second and both kernel gradients.
func cnnConvs() []convCase {
	wgrad := hlo.ConvDimsAttr{InputBatchDim: 1, InputFeatureDim: 0, InputSpatialDims: []int64{2, 3}, KernelInputFeatureDim: 0, KernelOutputFeatureDim: 1,
		KernelSpatialDims: []int64{2, 3}, OutputBatchDim: 1, OutputFeatureDim: 0, OutputSpatialDims: []int64{2, 3}}
	igrad := hlo.ConvDimsAttr{InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: []int64{2, 3}, KernelInputFeatureDim: 0, KernelOutputFeatureDim: 1,
		KernelSpatialDims: []int64{2, 3}, OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: []int64{2, 3}}
	pad := []int64{1, 1, 1, 1}
	cs := []convCase{
		{name: "fwd1", lhs: []int64{64, 1, 28, 28}, rhs: []int64{8, 1, 3, 3}, dn: nchw(2), pad: pad},
		{name: "fwd2", lhs: []int64{64, 8, 14, 14}, rhs: []int64{16, 8, 3, 3}, dn: nchw(2), pad: pad},
		{name: "igrad2", lhs: []int64{64, 16, 14, 14}, rhs: []int64{16, 8, 3, 3}, dn: igrad, pad: pad, rev: []int64{1, 1}},
		{name: "wgrad1", lhs: []int64{64, 1, 28, 28}, rhs: []int64{64, 8, 28, 28}, dn: wgrad, pad: pad},
		{name: "wgrad2", lhs: []int64{64, 8, 14, 14}, rhs: []int64{64, 16, 14, 14}, dn: wgrad, pad: pad},
	}
	for i := range cs {
		cs[i].fill()
		cs[i].lt, cs[i].ot = hlo.F32, hlo.F32
	}
	return cs
}

// BenchmarkConvCNN times the convolutions of a small CNN's training step
// with the planes schedules and with im2col into channels-last layouts.
// Each result is summed in the program (as a step uses it), so that its
// storage is recycled between runs and the timings do not include
// faulting in fresh pages.
func BenchmarkConvCNN(b *testing.B) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range cnnConvs() {
		for _, planes := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/planes=%v", c.name, planes), func(b *testing.B) {
				defer linalg.SetPlanes(planes)()
				m := singleOpModule("stablehlo.convolution", []hlo.Type{tt(c.lt, c.lhs...), tt(c.lt, c.rhs...)}, []hlo.Type{tt(c.ot, c.outDims()...)}, c.attrs()...)
				sumResult(m)
				p, err := host.Compile(m)
				if err != nil {
					b.Fatal(err)
				}
				args := []kernel.Value{randLiteral(r, c.lt, c.lhs...), randLiteral(r, c.lt, c.rhs...)}
				cpu0 := cpuNanos()
				for b.Loop() {
					if _, err := p.Run(nil, args); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// sumResult makes the single-op module m return the sum of its result's
// elements instead of the result.
func sumResult(m *hlo.Module) {
	blk := m.Funcs[0].Body.Blocks[0]
	op, ret := blk.Ops[0], blk.Ops[1]
	rt := op.Results[0].TensorType()
	zero := hlo.NewOp("stablehlo.constant", nil, []hlo.Type{tt(rt.DType)}, hlo.NamedAttr{Name: "value", Value: &hlo.DenseElementsAttr{Type: tt(rt.DType), Value: hlo.NewLiteral(rt.DType)}})
	dims := make([]int64, rt.Rank())
	for i := range dims {
		dims[i] = int64(i)
	}
	red := hlo.NewOp("stablehlo.reduce", []*hlo.Value{op.Results[0], zero.Results[0]}, []hlo.Type{tt(rt.DType)},
		hlo.NamedAttr{Name: "dimensions", Value: &hlo.DenseArrayAttr{DType: hlo.I64, Ints: dims}})
	body := &hlo.Block{Args: []*hlo.Value{{Type: tt(rt.DType)}, {Type: tt(rt.DType)}}}
	add := hlo.NewOp("stablehlo.add", body.Args, []hlo.Type{tt(rt.DType)})
	body.Ops = []*hlo.Op{add, hlo.NewOp("stablehlo.return", add.Results, nil)}
	red.Regions = []*hlo.Region{{Blocks: []*hlo.Block{body}}}
	ret.Operands = red.Results
	blk.Ops = []*hlo.Op{op, zero, red, ret}
	m.Funcs[0].ResultTypes = []hlo.Type{tt(rt.DType)}
}
