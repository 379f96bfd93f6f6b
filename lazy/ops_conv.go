package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// convSpec is a convolution's dimension numbers in lax form: for the input
// (batch, feature, spatial...), the kernel (out feature, in feature,
// spatial...) and the output (batch, feature, spatial...).
type convSpec struct {
	lhs, rhs, out []int64
}

// convParams are a Conv node's attributes.
type convParams struct {
	strides, padLo, padHi, lhsDil, rhsDil []int64
	groups, batchGroups                   int64
	spec                                  convSpec
}

func (p convParams) attrs() Attrs {
	return Attrs{{"strides", p.strides}, {"pad_lo", p.padLo}, {"pad_hi", p.padHi}, {"lhs_dilation", p.lhsDil},
		{"rhs_dilation", p.rhsDil}, {"groups", p.groups}, {"batch_groups", p.batchGroups},
		{"lhs_spec", p.spec.lhs}, {"rhs_spec", p.spec.rhs}, {"out_spec", p.spec.out}}
}

func convFrom(a Attrs) convParams {
	return convParams{a.Ints("strides"), a.Ints("pad_lo"), a.Ints("pad_hi"), a.Ints("lhs_dilation"), a.Ints("rhs_dilation"),
		a.Int("groups"), a.Int("batch_groups"), convSpec{a.Ints("lhs_spec"), a.Ints("rhs_spec"), a.Ints("out_spec")}}
}

func dilate(n, d int64) int64 {
	if n == 0 {
		return 0
	}
	return 1 + d*(n-1)
}

func inferConv(in []Shape, a Attrs) ([]Shape, error) {
	p := convFrom(a)
	l, r := in[0], in[1]
	if l.DType != r.DType || !floating.accepts(l.DType) && !l.DType.IsInt() {
		return nil, fmt.Errorf("operands must share a numeric element type, got %s and %s", l.DType, r.DType)
	}
	nsp := l.Rank() - 2
	if nsp < 0 || r.Rank() != l.Rank() || len(p.spec.lhs) != l.Rank() || len(p.spec.rhs) != l.Rank() || len(p.spec.out) != l.Rank() {
		return nil, fmt.Errorf("input and kernel must have the same rank >= 2 matching the dimension numbers")
	}
	for _, xs := range [][]int64{p.strides, p.padLo, p.padHi, p.lhsDil, p.rhsDil} {
		if len(xs) != nsp {
			return nil, fmt.Errorf("window attributes need %d entries", nsp)
		}
	}
	if p.groups < 1 || p.batchGroups < 1 {
		return nil, fmt.Errorf("group counts must be positive")
	}
	inFeat := l.Dims[p.spec.lhs[1]]
	kIn, kOut := r.Dims[p.spec.rhs[1]], r.Dims[p.spec.rhs[0]]
	if inFeat != kIn*p.groups {
		return nil, fmt.Errorf("input features %d != kernel input features %d x groups %d", inFeat, kIn, p.groups)
	}
	if kOut%p.groups != 0 || kOut%p.batchGroups != 0 {
		return nil, fmt.Errorf("kernel output features %d not divisible by the group counts", kOut)
	}
	batch := l.Dims[p.spec.lhs[0]]
	if batch%p.batchGroups != 0 {
		return nil, fmt.Errorf("batch %d not divisible by batch group count %d", batch, p.batchGroups)
	}
	out := make([]int64, l.Rank())
	out[p.spec.out[0]] = batch / p.batchGroups
	out[p.spec.out[1]] = kOut
	for i := 0; i < nsp; i++ {
		if p.strides[i] < 1 || p.lhsDil[i] < 1 || p.rhsDil[i] < 1 {
			return nil, fmt.Errorf("strides and dilations must be positive")
		}
		x := dilate(l.Dims[p.spec.lhs[2+i]], p.lhsDil[i]) + p.padLo[i] + p.padHi[i]
		k := dilate(r.Dims[p.spec.rhs[2+i]], p.rhsDil[i])
		if x < k {
			out[p.spec.out[2+i]] = 0
		} else {
			out[p.spec.out[2+i]] = (x-k)/p.strides[i] + 1
		}
	}
	return []Shape{NewShape(l.DType, out...)}, nil
}

func lowerConv(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
	p := convFrom(n.attrs)
	dims := &hlo.ConvDimsAttr{
		InputBatchDim: p.spec.lhs[0], InputFeatureDim: p.spec.lhs[1], InputSpatialDims: p.spec.lhs[2:],
		KernelOutputFeatureDim: p.spec.rhs[0], KernelInputFeatureDim: p.spec.rhs[1], KernelSpatialDims: p.spec.rhs[2:],
		OutputBatchDim: p.spec.out[0], OutputFeatureDim: p.spec.out[1], OutputSpatialDims: p.spec.out[2:],
	}
	pad := make([][2]int64, len(p.padLo))
	for i := range pad {
		pad[i] = [2]int64{p.padLo[i], p.padHi[i]}
	}
	return []*hlo.Value{lc.S.Convolution(in[0], in[1], hlo.ConvOptions{
		Dims: dims, WindowStrides: p.strides, Padding: pad, LhsDilation: p.lhsDil, RhsDilation: p.rhsDil,
		FeatureGroupCount: p.groups, BatchGroupCount: p.batchGroups,
	})}
}

func conv(x, w *Tensor, p convParams) *Tensor { return apply1(opConv, p.attrs(), x, w) }

func swap01(s []int64) []int64 {
	t := append([]int64(nil), s...)
	t[0], t[1] = t[1], t[0]
	return t
}

func takeDims(t *Tensor, axes []int64) []int64 {
	out := make([]int64, len(axes))
	for i, a := range axes {
		out[i] = t.Dims()[a]
	}
	return out
}

// reshapeAxisOutOf splits axis src into (n, dims[src]/n), the new major
// axis at src.
func reshapeAxisOutOf(src int64, n int64, x *Tensor) *Tensor {
	d := append([]int64(nil), x.Dims()...)
	nd := append(append(append([]int64(nil), d[:src]...), n, d[src]/n), d[src+1:]...)
	return x.Reshape(nd...)
}

// reshapeAxisInto merges axis src into axis dst as its major part; dst
// counts the axes after src is removed.
func reshapeAxisInto(src, dst int64, x *Tensor) *Tensor {
	r := int64(x.Rank())
	var rest []int
	for i := int64(0); i < r; i++ {
		if i != src {
			rest = append(rest, int(i))
		}
	}
	perm := append(append(append([]int(nil), rest[:dst]...), int(src)), rest[dst:]...)
	var nd []int64
	for _, i := range rest {
		nd = append(nd, x.Dims()[i])
	}
	nd[dst] *= x.Dims()[src]
	return x.Permute(perm...).Reshape(nd...)
}

func convVJP(x, y, dy []*Tensor, a Attrs) []*Tensor {
	p := convFrom(a)
	lhs, rhs, g := x[0], x[1], dy[0]
	nsp := len(p.strides)
	ones := make([]int64, nsp)
	for i := range ones {
		ones[i] = 1
	}
	inSp := takeDims(lhs, p.spec.lhs[2:])
	kSp := takeDims(rhs, p.spec.rhs[2:])
	outSp := takeDims(g, p.spec.out[2:])

	// d/d lhs: convolve g with the reversed kernel, in and out features swapped.
	w := rhs
	groups := p.groups
	if p.groups > 1 {
		w = reshapeAxisOutOf(p.spec.rhs[0], p.groups, w)
		w = reshapeAxisInto(p.spec.rhs[0], p.spec.rhs[1], w)
	} else if p.batchGroups > 1 {
		w = reshapeAxisOutOf(p.spec.rhs[0], p.batchGroups, w)
		w = reshapeAxisInto(p.spec.rhs[0], p.spec.rhs[1], w)
		groups = p.batchGroups
	}
	lo, hi := make([]int64, nsp), make([]int64, nsp)
	for i := 0; i < nsp; i++ {
		ld := dilate(inSp[i], p.lhsDil[i])
		kd := dilate(kSp[i], p.rhsDil[i])
		od := dilate(outSp[i], p.strides[i])
		lo[i] = kd - p.padLo[i] - 1
		hi[i] = ld + kd - 1 - od - lo[i]
	}
	gl := conv(g, w.Flip(int64sToInts(p.spec.rhs[2:])...), convParams{
		strides: p.lhsDil, padLo: lo, padHi: hi, lhsDil: p.strides, rhsDil: p.rhsDil,
		groups: groups, batchGroups: 1, spec: convSpec{lhs: p.spec.out, rhs: swap01(p.spec.rhs), out: p.spec.lhs},
	})
	if p.batchGroups > 1 {
		gl = reshapeAxisOutOf(p.spec.lhs[1], p.batchGroups, gl)
		gl = reshapeAxisInto(p.spec.lhs[1], p.spec.lhs[0], gl)
	}

	// d/d rhs: convolve lhs with g, batch and feature swapped.
	fg, bg := p.groups, p.batchGroups
	if bg > 1 {
		fg, bg = bg, 1
	} else if fg > 1 {
		fg, bg = 1, fg
	}
	rlo, rhi := make([]int64, nsp), make([]int64, nsp)
	for i := 0; i < nsp; i++ {
		ld := dilate(inSp[i], p.lhsDil[i])
		kd := dilate(kSp[i], p.rhsDil[i])
		od := dilate(outSp[i], p.strides[i])
		rlo[i] = p.padLo[i]
		rhi[i] = (od - ld) + (kd - p.padLo[i] - 1)
	}
	gr := conv(lhs, g, convParams{
		strides: p.rhsDil, padLo: rlo, padHi: rhi, lhsDil: p.lhsDil, rhsDil: p.strides,
		groups: fg, batchGroups: bg, spec: convSpec{lhs: swap01(p.spec.lhs), rhs: swap01(p.spec.out), out: swap01(p.spec.rhs)},
	})
	return []*Tensor{gl, gr}
}
