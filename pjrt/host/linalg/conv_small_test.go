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

// randSmallCase is a random convolution of the kinds the small-channel
// schedules take: a forward or input-gradient convolution with unit
// strides (NCHW or channels-last lhs, kernel [O, I, ...] or [I, O, ...],
// any padding, kernel dilation and reversal, 1-D or 2-D, widths with
// partial vectors), or the kernel gradient of a 3x3 layer in lax's form
// (any padding, row stride and row dilation).
func randSmallCase(r *rand.Rand) convCase {
	c := convCase{}
	if r.IntN(3) == 0 {
		// Kernel gradient: lhs [N, C, H, W] (features N, batch C), rhs the
		// output gradient [N, O, OH, OW], result [O, C, 3, 3].
		n, ci, co := int64(1+r.IntN(40)), int64(1+r.IntN(4)), int64(1+r.IntN(5)) // more than one chunk of images
		h, w := int64(4+r.IntN(10)), int64(8+r.IntN(30))
		dy, sy := int64(1+r.IntN(2)), int64(1+r.IntN(2))
		c.pad = []int64{int64(r.IntN(3)), int64(r.IntN(3)), int64(r.IntN(3)), int64(r.IntN(3))}
		hp, wp := h+c.pad[0]+c.pad[1], w+c.pad[2]+c.pad[3]
		oh := (hp-2*dy-1)/sy + 1
		// Trim the high row padding so that the taps are exactly 3 rows.
		for (hp-(oh-1)*sy-1)/dy+1 > 3 && c.pad[1] > 0 {
			c.pad[1]--
			hp--
			oh = (hp-2*dy-1)/sy + 1
		}
		c.lhs = []int64{n, ci, h, w}
		c.rhs = []int64{n, co, oh, wp - 2}
		c.strides, c.rhsDil = []int64{dy, 1}, []int64{sy, 1}
		c.dn = hlo.ConvDimsAttr{InputBatchDim: 1, InputFeatureDim: 0, InputSpatialDims: []int64{2, 3}, KernelInputFeatureDim: 0, KernelOutputFeatureDim: 1,
			KernelSpatialDims: []int64{2, 3}, OutputBatchDim: 1, OutputFeatureDim: 0, OutputSpatialDims: []int64{2, 3}}
		c.fill()
		return c
	}
	s := 1 + r.IntN(2)
	n, ci, co := int64(1+r.IntN(4)), int64(1+r.IntN(9)), int64(1+r.IntN(20))
	c.dn = nchw(s)
	sp := make([]int64, s)
	c.rhsDil, c.rev, c.pad = make([]int64, s), make([]int64, s), make([]int64, 2*s)
	k := make([]int64, s)
	for i := 0; i < s; i++ {
		sp[i] = int64(3 + r.IntN(12))
		k[i] = int64(1 + r.IntN(4))
		c.rhsDil[i] = int64(1 + r.IntN(2))
		c.rev[i] = int64(r.IntN(2))
		c.pad[2*i], c.pad[2*i+1] = int64(r.IntN(3)), int64(r.IntN(3))
	}
	sp[s-1] = int64(8 + r.IntN(40)) // the vectorised width
	if r.IntN(3) == 0 {
		// Channels-last lhs: [N, spatial..., C].
		c.dn.InputFeatureDim = int64(s + 1)
		for i := range c.dn.InputSpatialDims {
			c.dn.InputSpatialDims[i] = int64(i + 1)
		}
		c.lhs = append(append([]int64{n}, sp...), ci)
	} else {
		c.lhs = append([]int64{n, ci}, sp...)
	}
	c.rhs = append([]int64{co, ci}, k...)
	if r.IntN(2) == 0 { // input-gradient layout: kernel [I, O, ...]
		c.dn.KernelOutputFeatureDim, c.dn.KernelInputFeatureDim = 1, 0
		c.rhs[0], c.rhs[1] = ci, co
	}
	c.fill()
	return c
}

// TestConvSmall checks the small-channel schedules, with their assembly
// kernels and with the Go loops forced, against the spec's definition and
// against the GEMM paths, on random shapes they take.
func TestConvSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	iters := 300
	if testing.Short() || linalg.RaceBuild {
		iters = 60
	}
	count := map[string]int{}
	for it := 0; it < iters; it++ {
		c := randSmallCase(r)
		od := c.outDims()
		if hlo.NumElements(od) == 0 || hlo.NumElements(od)*hlo.NumElements(c.rhs)/c.rhs[c.dn.KernelOutputFeatureDim] <= 4096 {
			continue
		}
		c.lt, c.ot = hlo.F32, hlo.F32
		c.name = fmt.Sprintf("case%d_%v_%v_%v_s%v_p%v_rd%v_rev%v", it, c.lhs, c.rhs, c.dn.Layout(), c.strides, c.pad, c.rhsDil, c.rev)
		// Without the assembly kernels the schedules are chosen only with
		// the Go loops forced.
		undo := linalg.SetSmallConv(true, !linalg.HasSmallConvKernels())
		sched, err := linalg.ConvSchedule(convOp(&c))
		undo()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		count[sched]++
		l, w := randLiteral(r, c.lt, c.lhs...), randLiteral(r, c.lt, c.rhs...)
		var generic *hlo.Literal
		want, scale := refConv(&c, l, w)
		for _, mode := range []string{"generic", "small", "go"} {
			undo := linalg.SetSmallConv(mode != "generic", mode == "go")
			got := mustRun(t, "stablehlo.convolution", []*hlo.Literal{l, w}, []hlo.Type{tt(c.ot, od...)}, c.attrs()...)[0]
			undo()
			closeTo(t, c.name+"/"+mode, got, want, scale, 1e-30, ulpTol(c.ot))
			if mode == "generic" {
				generic = got
				continue
			}
			// The same sums in another order: within the reference
			// tolerance of each other.
			g := make([]complex128, generic.NumElements())
			for i := range g {
				g[i] = complex(generic.Float(i), 0)
			}
			closeTo(t, c.name+"/"+mode+" vs generic", got, g, scale, 1e-30, 2*ulpTol(c.ot))
		}
	}
	t.Logf("schedules: %v", count)
	if count["taps"] < iters/4 || count["wgrad"] < iters/10 {
		t.Fatalf("schedules %v: too few cases took the small-channel kernels", count)
	}
	for _, c := range cnnConvs() {
		want := map[string]string{"fwd1": "taps", "fwd2": "taps", "igrad2": "taps", "wgrad1": "wgrad", "wgrad2": "wgrad"}[c.name]
		undo := linalg.SetSmallConv(true, !linalg.HasSmallConvKernels())
		got, _ := linalg.ConvSchedule(convOp(&c))
		undo()
		if got != want {
			t.Errorf("%s: schedule %s, want %s", c.name, got, want)
		}
		for _, goOnly := range []bool{false, true} {
			undo := linalg.SetSmallConv(true, goOnly)
			runConvCase(t, r, &c, "stablehlo.convolution")
			undo()
		}
	}
}

// BenchmarkConvSmall times the convolutions of a small CNN's training
// step with the small-channel kernels and without (the planes schedules),
// results recycled through the execution's pool as in a step.
func BenchmarkConvSmall(b *testing.B) {
	r := rand.New(rand.NewPCG(23, 24))
	// A wider layer than the small kernels are for, to check they do not
	// lose there.
	wide := convCase{name: "fwd64", lhs: []int64{8, 64, 28, 28}, rhs: []int64{64, 64, 3, 3}, dn: nchw(2), pad: []int64{1, 1, 1, 1}}
	wide.fill()
	wide.lt, wide.ot = hlo.F32, hlo.F32
	for _, c := range append(cnnConvs(), wide) {
		for _, small := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/small=%v", c.name, small), func(b *testing.B) {
				defer linalg.SetSmallConv(small, false)()
				m := singleOpModule("stablehlo.convolution", []hlo.Type{tt(c.lt, c.lhs...), tt(c.lt, c.rhs...)}, []hlo.Type{tt(c.ot, c.outDims()...)}, c.attrs()...)
				p, err := host.Compile(m)
				if err != nil {
					b.Fatal(err)
				}
				args := []kernel.Value{randLiteral(r, c.lt, c.lhs...), randLiteral(r, c.lt, c.rhs...)}
				var pool kernel.Pool
				cpu0 := cpuNanos()
				for b.Loop() {
					x := &kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Pool: &pool}
					res, err := p.Run(x, args)
					if err != nil {
						b.Fatal(err)
					}
					pool.Put(res[0].(*hlo.Literal))
				}
				b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
