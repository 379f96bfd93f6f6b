package linalg_test

import (
	"fmt"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/linalg"
)

type convCase struct {
	name           string
	lhs, rhs       []int64
	dn             hlo.ConvDimsAttr
	strides, pad   []int64 // pad: lo, hi per spatial dim
	lhsDil, rhsDil []int64
	rev            []int64
	fgc, bgc       int64
	lt, ot         hlo.DType
}

func nhwc(s int) hlo.ConvDimsAttr {
	sp := func(off int) []int64 {
		xs := make([]int64, s)
		for i := range xs {
			xs[i] = int64(i + off)
		}
		return xs
	}
	return hlo.ConvDimsAttr{InputBatchDim: 0, InputFeatureDim: int64(s + 1), InputSpatialDims: sp(1),
		KernelSpatialDims: sp(0), KernelInputFeatureDim: int64(s), KernelOutputFeatureDim: int64(s + 1),
		OutputBatchDim: 0, OutputFeatureDim: int64(s + 1), OutputSpatialDims: sp(1)}
}

func nchw(s int) hlo.ConvDimsAttr {
	sp := make([]int64, s)
	for i := range sp {
		sp[i] = int64(i + 2)
	}
	return hlo.ConvDimsAttr{InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: sp,
		KernelOutputFeatureDim: 0, KernelInputFeatureDim: 1, KernelSpatialDims: sp,
		OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: sp}
}

func (c *convCase) fill() {
	s := len(c.lhs) - 2
	one := func(xs []int64, v int64) []int64 {
		if xs != nil {
			return xs
		}
		out := make([]int64, s)
		for i := range out {
			out[i] = v
		}
		return out
	}
	c.strides, c.lhsDil, c.rhsDil, c.rev = one(c.strides, 1), one(c.lhsDil, 1), one(c.rhsDil, 1), one(c.rev, 0)
	if c.pad == nil {
		c.pad = make([]int64, 2*s)
	}
	if c.fgc == 0 {
		c.fgc = 1
	}
	if c.bgc == 0 {
		c.bgc = 1
	}
}

func (c *convCase) outDims() []int64 {
	s := len(c.lhs) - 2
	out := make([]int64, len(c.lhs))
	out[c.dn.OutputBatchDim] = c.lhs[c.dn.InputBatchDim] / c.bgc
	out[c.dn.OutputFeatureDim] = c.rhs[c.dn.KernelOutputFeatureDim]
	for i := 0; i < s; i++ {
		in, k := c.lhs[c.dn.InputSpatialDims[i]], c.rhs[c.dn.KernelSpatialDims[i]]
		dil := int64(0)
		if in > 0 {
			dil = (in-1)*c.lhsDil[i] + 1
		}
		padded := c.pad[2*i] + dil + c.pad[2*i+1]
		win := int64(0)
		if k > 0 {
			win = (k-1)*c.rhsDil[i] + 1
		}
		n := int64(0)
		if padded > 0 && win <= padded {
			n = (padded-win)/c.strides[i] + 1
		}
		out[c.dn.OutputSpatialDims[i]] = n
	}
	return out
}

func (c *convCase) attrs() []hlo.NamedAttr {
	s := int64(len(c.lhs) - 2)
	dn := c.dn
	rev := &hlo.DenseArrayAttr{DType: hlo.Bool, Ints: c.rev}
	pad := hlo.NewLiteral(hlo.I64, s, 2)
	copy(pad.I64(), c.pad)
	return []hlo.NamedAttr{
		{Name: "window_strides", Value: &hlo.DenseArrayAttr{DType: hlo.I64, Ints: c.strides}},
		{Name: "padding", Value: &hlo.DenseElementsAttr{Type: pad.Type(), Value: pad}},
		{Name: "lhs_dilation", Value: &hlo.DenseArrayAttr{DType: hlo.I64, Ints: c.lhsDil}},
		{Name: "rhs_dilation", Value: &hlo.DenseArrayAttr{DType: hlo.I64, Ints: c.rhsDil}},
		{Name: "window_reversal", Value: rev},
		{Name: "dimension_numbers", Value: &dn},
		{Name: "feature_group_count", Value: hlo.IntAttr{Value: c.fgc}},
		{Name: "batch_group_count", Value: hlo.IntAttr{Value: c.bgc}},
	}
}

// refConv evaluates the spec's definition directly (complex128), with the
// sum of |products| per element as error scale.
func refConv(c *convCase, l, r *hlo.Literal) ([]complex128, []float64) {
	od := c.outDims()
	s := len(c.lhs) - 2
	dn := c.dn
	n := int(hlo.NumElements(od))
	want := make([]complex128, n)
	scale := make([]float64, n)
	O := c.rhs[dn.KernelOutputFeatureDim]
	I := c.rhs[dn.KernelInputFeatureDim]
	groups := c.fgc * c.bgc
	og := O / groups
	var kdims []int64
	for i := 0; i < s; i++ {
		kdims = append(kdims, c.rhs[dn.KernelSpatialDims[i]])
	}
	nk := int(hlo.NumElements(kdims))
	// The operands' elements read once (a literal's accessor per product
	// made this loop most of the convolution tests' time).
	lv, rv := complexes(l), complexes(r)
	for o := 0; o < n; o++ {
		oi := unravel(o, od)
		of := oi[dn.OutputFeatureDim]
		g := of / og
		batch := oi[dn.OutputBatchDim]
		fstart := int64(0)
		if c.bgc > 1 {
			batch += g * (c.lhs[dn.InputBatchDim] / c.bgc)
		}
		if c.fgc > 1 {
			fstart = g * I
		}
		li := make([]int64, len(c.lhs))
		ri := make([]int64, len(c.rhs))
		li[dn.InputBatchDim] = batch
		ri[dn.KernelOutputFeatureDim] = of
	kloop:
		for k := 0; k < nk; k++ {
			ki := unravel(k, kdims)
			for d := 0; d < s; d++ {
				kk := ki[d]
				if c.rev[d] != 0 {
					kk = kdims[d] - 1 - kk
				}
				x := oi[dn.OutputSpatialDims[d]]*c.strides[d] + kk*c.rhsDil[d] - c.pad[2*d]
				in := c.lhs[dn.InputSpatialDims[d]]
				if x < 0 || x%c.lhsDil[d] != 0 || x/c.lhsDil[d] >= in {
					continue kloop
				}
				li[dn.InputSpatialDims[d]] = x / c.lhsDil[d]
				ri[dn.KernelSpatialDims[d]] = ki[d]
			}
			for i := int64(0); i < I; i++ {
				li[dn.InputFeatureDim] = fstart + i
				ri[dn.KernelInputFeatureDim] = i
				p := lv[ravel(li, c.lhs)] * rv[ravel(ri, c.rhs)]
				want[o] += p
				scale[o] += cmplx.Abs(p)
			}
		}
	}
	return want, scale
}

// complexes returns every element of l as a complex128.
func complexes(l *hlo.Literal) []complex128 {
	v := make([]complex128, l.NumElements())
	for i := range v {
		v[i] = l.Complex(i)
	}
	return v
}

func convCases() []convCase {
	return []convCase{
		{name: "spec", lhs: []int64{1, 4, 4, 1}, rhs: []int64{3, 3, 1, 1}, dn: nhwc(2), strides: []int64{4, 4}, lhsDil: []int64{2, 2}},
		{name: "spec_pad", lhs: []int64{1, 4, 4, 1}, rhs: []int64{3, 3, 1, 1}, dn: nhwc(2), strides: []int64{4, 4}, lhsDil: []int64{2, 2}, pad: []int64{1, 1, 1, 1}},
		{name: "nchw_stride", lhs: []int64{2, 3, 9, 10}, rhs: []int64{5, 3, 3, 4}, dn: nchw(2), strides: []int64{2, 3}},
		{name: "nhwc_pad_rdil", lhs: []int64{2, 8, 7, 3}, rhs: []int64{3, 2, 3, 4}, dn: nhwc(2), pad: []int64{1, 2, 0, 3}, rhsDil: []int64{2, 1}},
		{name: "neg_pad_rev", lhs: []int64{1, 9, 2}, rhs: []int64{3, 2, 3}, dn: nhwc(1), pad: []int64{-1, 2}, rev: []int64{1}, lhsDil: []int64{3}},
		{name: "fgc3", lhs: []int64{2, 6, 9}, rhs: []int64{12, 2, 3}, dn: nchw(1), fgc: 3, rhsDil: []int64{2}},
		{name: "depthwise", lhs: []int64{1, 7, 7, 4}, rhs: []int64{3, 3, 1, 8}, dn: nhwc(2), fgc: 4, pad: []int64{1, 1, 1, 1}},
		{name: "bgc2", lhs: []int64{4, 5, 6, 3}, rhs: []int64{2, 2, 3, 4}, dn: nhwc(2), bgc: 2},
		{name: "bgc4_mixed_layout", lhs: []int64{1, 4, 4, 1}, rhs: []int64{1, 2, 1, 4}, bgc: 4, strides: []int64{4, 4}, lhsDil: []int64{2, 2},
			dn: hlo.ConvDimsAttr{InputBatchDim: 1, InputSpatialDims: []int64{0, 2}, InputFeatureDim: 3,
				KernelSpatialDims: []int64{0, 1}, KernelInputFeatureDim: 2, KernelOutputFeatureDim: 3,
				OutputBatchDim: 0, OutputSpatialDims: []int64{1, 2}, OutputFeatureDim: 3}},
		{name: "1x1_direct", lhs: []int64{3, 5, 6, 7}, rhs: []int64{1, 1, 7, 9}, dn: nhwc(2)},
		{name: "1x1_nchw", lhs: []int64{3, 7, 5, 6}, rhs: []int64{9, 7, 1, 1}, dn: nchw(2)},
		{name: "3d", lhs: []int64{1, 2, 5, 4, 6}, rhs: []int64{3, 2, 2, 3, 2}, dn: nchw(3), strides: []int64{1, 2, 2}, pad: []int64{1, 0, 0, 1, 2, 2}},
		{name: "0d", lhs: []int64{3, 5}, rhs: []int64{5, 4}, dn: nhwc(0)},
		{name: "empty_out", lhs: []int64{2, 3, 9, 10}, rhs: []int64{5, 3, 10, 5}, dn: nchw(2)},
		{name: "zero_batch", lhs: []int64{0, 4, 4, 2}, rhs: []int64{2, 2, 2, 3}, dn: nhwc(2)},
		{name: "mnist_like", lhs: []int64{2, 28, 28, 1}, rhs: []int64{3, 3, 1, 16}, dn: nhwc(2), rhsDil: []int64{1, 2}},
		{name: "wide", lhs: []int64{1, 16, 16, 32}, rhs: []int64{3, 3, 32, 40}, dn: nhwc(2), pad: []int64{1, 1, 1, 1}},
	}
}

func TestConvolution(t *testing.T) {
	types := [][2]hlo.DType{{hlo.F32, hlo.F32}, {hlo.F64, hlo.F64}, {hlo.F16, hlo.F16}, {hlo.BF16, hlo.BF16},
		{hlo.I64, hlo.I64}, {hlo.I8, hlo.I32}, {hlo.C64, hlo.C64}, {hlo.C128, hlo.C128}, {hlo.U8, hlo.U8}, {hlo.Bool, hlo.Bool}}
	r := rand.New(rand.NewPCG(5, 6))
	for _, ty := range types {
		for _, c := range convCases() {
			c.fill()
			c.lt, c.ot = ty[0], ty[1]
			t.Run(fmt.Sprintf("%s_%s/%s", ty[0], ty[1], c.name), func(t *testing.T) {
				runConvCase(t, r, &c, "stablehlo.convolution")
			})
		}
	}
}

func runConvCase(t *testing.T, r *rand.Rand, c *convCase, opName string) {
	t.Helper()
	l := randLiteral(r, c.lt, c.lhs...)
	w := randLiteral(r, c.lt, c.rhs...)
	od := c.outDims()
	args := []*hlo.Literal{l, w}
	attrs := c.attrs()
	if opName == "stablehlo.dynamic_conv" {
		s := int64(len(c.lhs) - 2)
		pad := hlo.NewLiteral(hlo.I32, s, 2)
		for i, v := range c.pad {
			pad.SetInt(i, v)
		}
		args = append(args, pad)
		attrs = attrs[:1]
		attrs = append(attrs, c.attrs()[2:]...)
	}
	got := mustRun(t, opName, args, []hlo.Type{tt(c.ot, od...)}, attrs...)[0]
	if !dimsEq(got.Dims, od) {
		t.Fatalf("result %s, want %v", got.ShapeString(), od)
	}
	want, scale := refConv(c, l, w)
	if c.ot.IsInt() || c.ot.IsBool() {
		for i, wv := range want {
			x := hlo.WrapInt(c.ot, int64(real(wv)))
			if c.ot.IsBool() && real(wv) != 0 {
				x = 1
			}
			if got.Int(i) != x {
				t.Fatalf("element %d (%v) = %d, want %d", i, unravel(i, od), got.Int(i), x)
			}
		}
		return
	}
	closeTo(t, c.name, got, want, scale, 1e-30, max(ulpTol(c.ot), ulpTol(c.lt)))
}

func TestConvolutionSpecExample(t *testing.T) {
	l := hlo.LiteralFromSlice([]int64{1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17}, 1, 4, 4, 1)
	w := hlo.LiteralFromSlice([]int64{1, 1, 1, 1, 1, 1, 1, 1, 1}, 3, 3, 1, 1)
	c := convCase{lhs: l.Dims, rhs: w.Dims, dn: nhwc(2), strides: []int64{4, 4}, lhsDil: []int64{2, 2}}
	c.fill()
	got := mustRun(t, "stablehlo.convolution", []*hlo.Literal{l, w}, []hlo.Type{tt(hlo.I64, 1, 2, 2, 1)}, c.attrs()...)[0]
	want := []int64{10, 26, 46, 62}
	for i, v := range want {
		if got.I64()[i] != v {
			t.Fatalf("got %v, want %v", got.I64(), want)
		}
	}
}

func TestConvolutionChunked(t *testing.T) {
	defer linalg.SetIm2colChunk(100)()
	r := rand.New(rand.NewPCG(9, 9))
	for _, c := range convCases() {
		c.fill()
		c.lt, c.ot = hlo.F32, hlo.F32
		t.Run(c.name, func(t *testing.T) { runConvCase(t, r, &c, "stablehlo.convolution") })
	}
}

func TestDynamicConv(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range convCases() {
		c.fill()
		c.lt, c.ot = hlo.F32, hlo.F32
		t.Run(c.name, func(t *testing.T) { runConvCase(t, r, &c, "stablehlo.dynamic_conv") })
	}
}
