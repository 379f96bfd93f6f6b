package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

func init() {
	define(opReshape, &OpDef{
		Name: "Reshape",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			dims := a.Ints("dims")
			for _, d := range dims {
				if d < 0 {
					return nil, fmt.Errorf("negative dimension in %v", dims)
				}
			}
			if hlo.NumElements(dims) != in[0].Size() {
				return nil, fmt.Errorf("cannot reshape %d elements into %v", in[0].Size(), dims)
			}
			return []Shape{NewShape(in[0].DType, dims...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Reshape(in[0], n.attrs.Ints("dims")...))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{dy[0].Reshape(x[0].Dims()...)}
		},
	})
	define(opTranspose, &OpDef{
		Name: "Transpose",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			perm := a.Ints("perm")
			if !isPermutation(perm, in[0].Rank()) {
				return nil, fmt.Errorf("%v is not a permutation of %d axes", perm, in[0].Rank())
			}
			out := make([]int64, len(perm))
			for i, p := range perm {
				out[i] = in[0].Dims[p]
			}
			return []Shape{NewShape(in[0].DType, out...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Transpose(in[0], n.attrs.Ints("perm")...))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{dy[0].Permute(inversePerm(a.Ints("perm"))...)}
		},
	})
	define(opBroadcast, &OpDef{
		Name: "Broadcast",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			out, bd := a.Ints("dims"), a.Ints("bdims")
			if len(bd) != in[0].Rank() {
				return nil, fmt.Errorf("broadcast dims %v do not match rank %d", bd, in[0].Rank())
			}
			for i, d := range bd {
				if i > 0 && d <= bd[i-1] {
					return nil, fmt.Errorf("broadcast dims %v must increase", bd)
				}
				if d < 0 || int(d) >= len(out) || (in[0].Dims[i] != 1 && in[0].Dims[i] != out[d]) {
					return nil, fmt.Errorf("cannot broadcast %v to %v", in[0].Dims, out)
				}
			}
			if len(out) == 0 {
				out = nil
			}
			// The attribute's dims (inferShapes checks them as NewShape would).
			return []Shape{{DType: in[0].DType, Dims: out}}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.BroadcastInDim(in[0], n.attrs.Ints("dims"), n.attrs.Ints("bdims")))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{unbroadcast(dy[0], x[0].shape, a.Ints("bdims"))}
		},
	})
	define(opSlice, &OpDef{
		Name: "Slice",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			start, limit, strides := a.Ints("start"), a.Ints("limit"), a.Ints("strides")
			r := in[0].Rank()
			if len(start) != r || len(limit) != r || len(strides) != r {
				return nil, fmt.Errorf("slice bounds need %d entries each", r)
			}
			out := make([]int64, r)
			for i := 0; i < r; i++ {
				if start[i] < 0 || limit[i] > in[0].Dims[i] || start[i] > limit[i] || strides[i] < 1 {
					return nil, fmt.Errorf("axis %d: slice [%d:%d:%d] out of range for size %d", i, start[i], limit[i], strides[i], in[0].Dims[i])
				}
				if limit[i] > start[i] {
					out[i] = (limit[i]-start[i]-1)/strides[i] + 1
				}
			}
			return []Shape{NewShape(in[0].DType, out...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Slice(in[0], n.attrs.Ints("start"), n.attrs.Ints("limit"), n.attrs.Ints("strides")))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			start, strides := a.Ints("start"), a.Ints("strides")
			r := x[0].Rank()
			lo, hi, interior := make([]int64, r), make([]int64, r), make([]int64, r)
			for i := 0; i < r; i++ {
				n := dy[0].Dims()[i]
				lo[i] = start[i]
				if n > 1 {
					// Only between elements: an axis of one element
					// never steps its stride (which may be near 2^63).
					interior[i] = strides[i] - 1
				}
				used := start[i]
				if n > 0 {
					used += (n-1)*strides[i] + 1
				}
				hi[i] = x[0].Dims()[i] - used
			}
			return []*Tensor{dy[0].PadWith(lo, hi, interior, 0)}
		},
	})
	define(opConcat, &OpDef{
		Name: "Concat",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if len(in) == 0 {
				return nil, fmt.Errorf("needs at least one tensor")
			}
			axis := int(a.Int("axis"))
			if axis < 0 || axis >= in[0].Rank() {
				return nil, fmt.Errorf("axis %d out of range for rank %d", axis, in[0].Rank())
			}
			out := append([]int64(nil), in[0].Dims...)
			for _, s := range in[1:] {
				if s.DType != in[0].DType || s.Rank() != in[0].Rank() {
					return nil, fmt.Errorf("operands differ in dtype or rank")
				}
				for d := range out {
					if d != axis && s.Dims[d] != in[0].Dims[d] {
						return nil, fmt.Errorf("operands differ on axis %d", d)
					}
				}
				var ok bool
				if out[axis], ok = addDims(out[axis], s.Dims[axis]); !ok {
					return nil, fmt.Errorf("axis %d: the sizes add up to more than 2^63-1", axis)
				}
			}
			return []Shape{NewShape(in[0].DType, out...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Concatenate(n.attrs.Int("axis"), in...))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			axis := int(a.Int("axis"))
			out := make([]*Tensor, len(x))
			off := int64(0)
			for i, t := range x {
				n := t.Dims()[axis]
				out[i] = dy[0].Narrow(axis, off, n)
				off += n
			}
			return out
		},
	})
	define(opPad, &OpDef{
		Name: "Pad",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			lo, hi, interior := a.Ints("lo"), a.Ints("hi"), a.Ints("interior")
			r := in[0].Rank()
			if len(lo) != r || len(hi) != r || len(interior) != r {
				return nil, fmt.Errorf("padding needs %d entries per list", r)
			}
			out := make([]int64, r)
			for i := 0; i < r; i++ {
				d := in[0].Dims[i]
				if interior[i] < 0 {
					return nil, fmt.Errorf("negative interior padding on axis %d", i)
				}
				size, ok := int64(0), true
				if d > 0 {
					size, ok = mulDims(d-1, interior[i])
				}
				if ok {
					size, ok = addDims(size, d)
				}
				for _, p := range []int64{lo[i], hi[i]} {
					if ok {
						size, ok = addDims(size, p)
					}
				}
				if !ok {
					return nil, fmt.Errorf("padding (%d, %d, interior %d) overflows axis %d of size %d", lo[i], hi[i], interior[i], i, d)
				}
				if size < 0 {
					return nil, fmt.Errorf("padding makes axis %d negative", i)
				}
				out[i] = size
			}
			return []Shape{NewShape(in[0].DType, out...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			pv := lc.scalar(tensorType(in[0]).DType, n.attrs.Float("value"))
			return single(lc.S.Pad(in[0], pv, n.attrs.Ints("lo"), n.attrs.Ints("hi"), n.attrs.Ints("interior")))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			// Undo the padding: negative padding removes lo/hi, then a strided slice drops interior.
			lo, hi, interior := a.Ints("lo"), a.Ints("hi"), a.Ints("interior")
			r := x[0].Rank()
			nlo, nhi, zero := make([]int64, r), make([]int64, r), make([]int64, r)
			for i := 0; i < r; i++ {
				nlo[i], nhi[i] = -lo[i], -hi[i]
			}
			t := dy[0].PadWith(nlo, nhi, zero, 0)
			start, limit, strides := make([]int64, r), t.Dims(), make([]int64, r)
			for i := range strides {
				strides[i] = interior[i] + 1
			}
			return []*Tensor{t.SliceStrided(start, limit, strides)}
		},
	})
	define(opReverse, &OpDef{
		Name: "Reverse",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			seen := make([]bool, in[0].Rank())
			for _, d := range a.Ints("axes") {
				if d < 0 || int(d) >= in[0].Rank() {
					return nil, fmt.Errorf("axis %d out of range for rank %d", d, in[0].Rank())
				}
				if seen[d] {
					return nil, fmt.Errorf("axis %d repeated", d)
				}
				seen[d] = true
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.Reverse(in[0], n.attrs.Ints("axes")...))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{apply1(opReverse, a, dy[0])}
		},
	})
}

func isPermutation(p []int64, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, x := range p {
		if x < 0 || int(x) >= n || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

func inversePerm(p []int64) []int {
	inv := make([]int, len(p))
	for i, x := range p {
		inv[x] = i
	}
	return inv
}

// unbroadcast sums g (the gradient of a broadcast of shape s with bdims)
// back to shape s.
func unbroadcast(g *Tensor, s Shape, bdims []int64) *Tensor {
	var axes []int
	kept := make(map[int64]int, len(bdims))
	for i, d := range bdims {
		kept[d] = i
	}
	for d := 0; d < g.Rank(); d++ {
		i, ok := kept[int64(d)]
		if !ok || (s.Dims[i] == 1 && g.Dims()[d] != 1) {
			axes = append(axes, d)
		}
	}
	if len(axes) > 0 {
		g = g.Sum(axes...)
	}
	return g.Reshape(s.Dims...)
}
