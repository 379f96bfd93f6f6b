package lazy

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every VJP is checked against central finite differences in float64: the
// loss L = sum(w * f(x)) with fixed random weights w (a non-trivial seed),
// its lazy.Grad, and (L(x+h e_i) - L(x-h e_i)) / 2h for every element i.
// With h = 1e-5 (relative to |x|, at least 1e-5) the truncation error is
// O(h²) ~ 1e-10 and the rounding error ~ 1e-16 |L| / h ~ 1e-11 |L|; a
// wrong VJP is off by O(1). Inputs keep away from kinks (|x| for Abs/ReLU,
// ties for Max/Min/Sort, integers of a/b for Rem) and poles.

type gradCase struct {
	name string
	// ops are the table ops whose VJP the case exercises: each must be in
	// the differentiated graph, and every differentiable op must be named by
	// some case (TestGradCoverage).
	ops []string
	in  func(r *rand.Rand) []nd
	f   func(x []*Tensor) *Tensor
	// h and rtol override the step and the relative tolerance (Cast).
	h, rtol float64
}

func gc(name string, ops string, in func(r *rand.Rand) []nd, f func(x []*Tensor) *Tensor) gradCase {
	return gradCase{name: name, ops: strings.Fields(ops), in: in, f: f}
}

// Input makers.
func uni(lo, hi float64, dims ...int64) func(r *rand.Rand) nd {
	return func(r *rand.Rand) nd { return randND(r, lo, hi, dims...) }
}
func away(gap, hi float64, dims ...int64) func(r *rand.Rand) nd {
	return func(r *rand.Rand) nd { return randAway(r, gap, hi, dims...) }
}
func distinct(lo, hi float64, dims ...int64) func(r *rand.Rand) nd {
	return func(r *rand.Rand) nd { return randDistinct(r, lo, hi, dims...) }
}
func ins(makers ...func(r *rand.Rand) nd) func(r *rand.Rand) []nd {
	return func(r *rand.Rand) []nd {
		out := make([]nd, len(makers))
		for i, m := range makers {
			out[i] = m(r)
		}
		return out
	}
}

// consts puts fixed (non-differentiated) values on the device.
func ci(v []float64, dims ...int64) *Tensor { return mkT(ndOf(v, dims...), I64) }

func unaryGrad(name string, f func(*Tensor) *Tensor, in func(r *rand.Rand) nd) gradCase {
	return gc(name, name, ins(in), func(x []*Tensor) *Tensor { return f(x[0]) })
}

func binaryGrad(name string, f func(a, b *Tensor) *Tensor, a, b func(r *rand.Rand) nd) gradCase {
	return gc(name, name+" Broadcast", ins(a, b), func(x []*Tensor) *Tensor { return f(x[0], x[1]) })
}

// pairDistinct draws a [2,3] and b [3] whose values all differ (Max, Min).
func pairDistinct(r *rand.Rand) []nd {
	v := randDistinct(r, -2, 2, 9)
	return []nd{ndOf(v.v[:6], 2, 3), ndOf(v.v[6:], 3)}
}

// remPair draws a, b with a/b at least 0.2 from an integer (Rem's jumps).
func remPair(r *rand.Rand) []nd {
	a, b := newND(2, 3), newND(2, 3)
	for i := range a.v {
		b.v[i] = (1 + r.Float64()) * float64(1-2*r.IntN(2))
		q := float64(r.IntN(5)-2) + 0.2 + 0.6*r.Float64()
		a.v[i] = q * b.v[i]
	}
	return []nd{a, b}
}

// prodIn has a row without zeros, a row with one zero and one with two.
func prodIn(r *rand.Rand) []nd {
	a := randAway(r, 0.3, 1.5, 3, 4)
	a.v[5] = 0
	a.v[8], a.v[10] = 0, 0
	return []nd{a}
}

var gradCases = []gradCase{
	// Elementwise unary.
	unaryGrad("Neg", (*Tensor).Neg, uni(-2, 2, 2, 3)),
	unaryGrad("Abs", (*Tensor).Abs, away(0.2, 2, 2, 3)),
	unaryGrad("Exp", (*Tensor).Exp, uni(-2, 2, 2, 3)),
	unaryGrad("Expm1", (*Tensor).Expm1, uni(-1, 1, 2, 3)),
	unaryGrad("Log", (*Tensor).Log, uni(0.2, 3, 2, 3)),
	unaryGrad("Log1p", (*Tensor).Log1p, uni(-0.5, 2, 2, 3)),
	unaryGrad("Sqrt", (*Tensor).Sqrt, uni(0.2, 3, 2, 3)),
	unaryGrad("Rsqrt", (*Tensor).Rsqrt, uni(0.2, 3, 2, 3)),
	unaryGrad("Tanh", (*Tensor).Tanh, uni(-2, 2, 2, 3)),
	unaryGrad("Sigmoid", (*Tensor).Sigmoid, uni(-3, 3, 2, 3)),
	unaryGrad("Sin", (*Tensor).Sin, uni(-3, 3, 2, 3)),
	unaryGrad("Cos", (*Tensor).Cos, uni(-3, 3, 2, 3)),
	unaryGrad("ReLU", (*Tensor).ReLU, away(0.1, 2, 2, 3)),
	unaryGrad("Sharding", annotateReplicated, uni(-2, 2, 2, 3)),
	gc("manual region", "FullToShard ShardToFull", ins(uni(-2, 2, 2, 3)), manualRegionTanh),
	unaryGrad("Erf", (*Tensor).Erf, uni(-2, 2, 2, 3)),
	gc("Square", "Mul", ins(uni(-2, 2, 2, 3)), func(x []*Tensor) *Tensor { return x[0].Square() }),
	gc("Reciprocal", "Div", ins(away(0.3, 2, 2, 3)), func(x []*Tensor) *Tensor { return x[0].Reciprocal() }),
	gc("GELU", "Tanh Mul Add", ins(uni(-3, 3, 2, 3)), func(x []*Tensor) *Tensor { return x[0].GELU() }),

	// Elementwise binary, broadcast (the Broadcast VJP sums back).
	binaryGrad("Add", (*Tensor).Add, uni(-2, 2, 2, 3), uni(-2, 2, 3)),
	binaryGrad("Sub", (*Tensor).Sub, uni(-2, 2, 2, 3), uni(-2, 2, 2, 1)),
	binaryGrad("Mul", (*Tensor).Mul, uni(-2, 2, 2, 1), uni(-2, 2, 1, 3)),
	binaryGrad("Div", (*Tensor).Div, uni(-2, 2, 2, 3), away(0.4, 2, 3)),
	binaryGrad("Pow", (*Tensor).Pow, uni(0.4, 2.5, 2, 3), uni(-2, 2, 3)),
	binaryGrad("Atan2", (*Tensor).Atan2, away(0.3, 2, 2, 3), away(0.3, 2, 1, 3)),
	gc("Max", "Max Broadcast", pairDistinct, func(x []*Tensor) *Tensor { return x[0].Max(x[1]) }),
	gc("Min", "Min Broadcast", pairDistinct, func(x []*Tensor) *Tensor { return x[0].Min(x[1]) }),
	gc("MaxScalar", "ClampMin", ins(away(0.1, 2, 2, 3)), func(x []*Tensor) *Tensor { return x[0].MaxScalar(0) }),
	gc("MinScalar", "ClampMax", ins(away(0.1, 2, 2, 3)), func(x []*Tensor) *Tensor { return x[0].MinScalar(0) }),
	gc("Rem", "Rem", remPair, func(x []*Tensor) *Tensor { return x[0].Rem(x[1]) }),
	gc("Where", "Where", ins(uni(-2, 2, 2, 3), uni(-2, 2, 3)), func(x []*Tensor) *Tensor {
		c := mkT(ndOf([]float64{1, 0, 0, 1, 1, 0}, 2, 3), Bool)
		return Where(c, x[0], x[1])
	}),
	// Cast rounds to f32: a linear function with a large step keeps the
	// rounding error (6e-8 relative) / h small.
	{name: "Cast", ops: []string{"Cast"}, in: ins(uni(-2, 2, 2, 3)), h: 1e-2, rtol: 1e-4,
		f: func(x []*Tensor) *Tensor { return x[0].Cast(F32).MulScalar(3).Cast(F64) }},
	gc("Clamp", "Clamp", func(r *rand.Rand) []nd {
		a := randND(r, -1, 1, 2, 4)
		copy(a.v, []float64{-0.9, -0.6, -0.4, 0.1, 0.45, 0.55, 0.8, -0.2})
		return []nd{a}
	}, func(x []*Tensor) *Tensor { return x[0].Clamp(-0.5, 0.5) }),

	// Reductions.
	gc("Sum", "ReduceSum", ins(uni(-1, 1, 2, 3, 4)), func(x []*Tensor) *Tensor { return x[0].Sum(0, 2) }),
	gc("SumKeepDims", "ReduceSum Reshape", ins(uni(-1, 1, 2, 3, 4)), func(x []*Tensor) *Tensor { return x[0].SumKeepDims(1).Mul(x[0]) }),
	gc("Mean", "ReduceSum Div", ins(uni(-1, 1, 3, 4)), func(x []*Tensor) *Tensor { return x[0].Mean(1) }),
	gc("Prod", "ReduceProd", prodIn, func(x []*Tensor) *Tensor { return x[0].Prod(1) }),
	gc("ProdAll", "ReduceProd", ins(away(0.5, 1.5, 2, 3)), func(x []*Tensor) *Tensor { return x[0].Prod() }),
	gc("ReduceMax", "ReduceMax", ins(distinct(-2, 2, 3, 4)), func(x []*Tensor) *Tensor { return x[0].ReduceMax(1) }),
	gc("ReduceMin", "ReduceMin", ins(distinct(-2, 2, 2, 3, 2)), func(x []*Tensor) *Tensor { return x[0].ReduceMin(0, 2) }),
	gc("LogSumExp", "ReduceMax ReduceSum Exp Log", ins(uni(-2, 2, 3, 4)), func(x []*Tensor) *Tensor { return x[0].LogSumExp(1) }),
	gc("Var", "ReduceSum Sub Mul", ins(uni(-2, 2, 3, 4)), func(x []*Tensor) *Tensor { return x[0].Var(1) }),

	// Matrix products (DotGeneral VJPs with batch, free and contracting axes
	// in every position).
	gc("MatMul", "DotGeneral", ins(uni(-1, 1, 3, 4), uni(-1, 1, 4, 2)), func(x []*Tensor) *Tensor { return x[0].MatMul(x[1]) }),
	gc("MatMulFolded", "DotGeneral Reshape", ins(uni(-1, 1, 2, 3, 4), uni(-1, 1, 4, 2)), func(x []*Tensor) *Tensor { return x[0].MatMul(x[1]) }),
	gc("MatMulBatchBroadcast", "DotGeneral Broadcast", ins(uni(-1, 1, 2, 1, 2, 3), uni(-1, 1, 3, 3, 2)), func(x []*Tensor) *Tensor { return x[0].MatMul(x[1]) }),
	gc("MatMulVecMat", "DotGeneral", ins(uni(-1, 1, 3), uni(-1, 1, 2, 3, 2)), func(x []*Tensor) *Tensor { return x[0].MatMul(x[1]) }),
	gc("MatMulMatVec", "DotGeneral", ins(uni(-1, 1, 2, 3, 4), uni(-1, 1, 4)), func(x []*Tensor) *Tensor { return x[0].MatMul(x[1]) }),
	gc("MatMulDot", "DotGeneral", ins(uni(-1, 1, 5), uni(-1, 1, 5)), func(x []*Tensor) *Tensor { return x[0].MatMul(x[1]) }),
	gc("Linear", "DotGeneral Transpose Add", ins(uni(-1, 1, 2, 3), uni(-1, 1, 4, 3), uni(-1, 1, 4)), func(x []*Tensor) *Tensor { return Linear(x[0], x[1], x[2]) }),
	einsumGrad("ij,jk->ik", "DotGeneral", []int64{2, 3}, []int64{3, 4}),
	einsumGrad("bij,bjk->bik", "DotGeneral", []int64{2, 2, 3}, []int64{2, 3, 2}),
	einsumGrad("ij->ji", "Transpose", []int64{2, 3}),
	einsumGrad("ij->", "ReduceSum", []int64{2, 3}),
	einsumGrad("i,i->", "DotGeneral", []int64{4}, []int64{4}),
	einsumGrad("ij,kj->ik", "DotGeneral", []int64{2, 3}, []int64{4, 3}),
	einsumGrad("bhqd,bhkd->bhqk", "DotGeneral", []int64{1, 2, 2, 3}, []int64{1, 2, 3, 3}),
	einsumGrad("bij,jk->bki", "DotGeneral Transpose", []int64{2, 2, 3}, []int64{3, 2}),
	einsumGrad("ijk,ik->j", "DotGeneral", []int64{2, 3, 2}, []int64{2, 2}),
	einsumGrad("jb,bij->bi", "DotGeneral", []int64{3, 2}, []int64{2, 2, 3}),
	einsumGrad("ij,ji->", "DotGeneral", []int64{2, 3}, []int64{3, 2}),            // contracting axes in opposite orders
	einsumGrad("ijk,kj->i", "DotGeneral", []int64{2, 3, 2}, []int64{2, 3}),       // ...with a free axis
	einsumGrad("ibj,jbk->kib", "DotGeneral", []int64{2, 2, 3}, []int64{3, 2, 2}), // batch axis not leading

	// Convolutions.
	convGrad(Conv2dOpts{}, []int64{1, 2, 4, 4}, []int64{2, 2, 2, 2}, false),
	convGrad(Conv2dOpts{Stride: [2]int64{2, 1}, Padding: [2]int64{1, 2}}, []int64{2, 1, 5, 4}, []int64{2, 1, 3, 2}, true),
	convGrad(Conv2dOpts{Dilation: [2]int64{2, 1}, Padding: [2]int64{1, 0}}, []int64{1, 2, 5, 4}, []int64{1, 2, 2, 2}, false),
	convGrad(Conv2dOpts{Groups: 2, Stride: [2]int64{1, 2}}, []int64{1, 4, 3, 5}, []int64{4, 2, 2, 2}, false),
	convGrad(Conv2dOpts{Groups: 3, Stride: [2]int64{2, 2}, Padding: [2]int64{1, 1}, Dilation: [2]int64{1, 2}}, []int64{1, 3, 5, 5}, []int64{3, 1, 2, 2}, true),

	// Movement.
	gc("Reshape", "Reshape", ins(uni(-1, 1, 2, 3, 2)), func(x []*Tensor) *Tensor { return x[0].Reshape(3, -1).Mul(Arange(F64, 1, 13, 1).Reshape(3, 4)) }),
	gc("Permute", "Transpose", ins(uni(-1, 1, 2, 3, 2)), func(x []*Tensor) *Tensor { return x[0].Permute(2, 0, 1) }),
	gc("BroadcastTo", "Broadcast", ins(uni(-1, 1, 3, 1)), func(x []*Tensor) *Tensor { return x[0].BroadcastTo(2, 3, 4) }),
	gc("Expand", "Broadcast", ins(uni(-1, 1, 1, 2)), func(x []*Tensor) *Tensor { return x[0].Expand(3, -1, 2) }),
	gc("SliceStrided", "Slice", ins(uni(-1, 1, 4, 5)), func(x []*Tensor) *Tensor {
		return x[0].SliceStrided([]int64{1, 0}, []int64{4, 5}, []int64{2, 3})
	}),
	gc("Narrow", "Slice", ins(uni(-1, 1, 3, 4)), func(x []*Tensor) *Tensor { return x[0].Narrow(1, 1, 2) }),
	gc("Concat", "Concat", ins(uni(-1, 1, 2, 2), uni(-1, 1, 2, 1), uni(-1, 1, 2, 3)), func(x []*Tensor) *Tensor { return Concat(1, x...) }),
	gc("Stack", "Concat Reshape", ins(uni(-1, 1, 2, 3), uni(-1, 1, 2, 3)), func(x []*Tensor) *Tensor { return Stack(1, x[0], x[1]) }),
	gc("SplitChunk", "Slice", ins(uni(-1, 1, 2, 6)), func(x []*Tensor) *Tensor {
		p := x[0].Split(1, 1, 2, 3)
		c := x[0].Chunk(1, 2)
		return p[0].Sum().Add(p[1].Square().Sum()).Add(p[2].Exp().Sum()).Add(c[1].Sin().Sum())
	}),
	gc("PadWith", "Pad", ins(uni(-1, 1, 3, 4)), func(x []*Tensor) *Tensor {
		return x[0].PadWith([]int64{1, -1}, []int64{-1, 2}, []int64{1, 2}, 0.5)
	}),
	gc("PadCutInterior", "Pad", ins(uni(-1, 1, 3, 3)), func(x []*Tensor) *Tensor {
		return x[0].PadWith([]int64{-2, 0}, []int64{-1, -3}, []int64{2, 1}, 0)
	}),
	gc("Pad", "Pad", ins(uni(-1, 1, 2, 3)), func(x []*Tensor) *Tensor { return x[0].Pad(1, 0, 2, 1) }),
	gc("Flip", "Reverse", ins(uni(-1, 1, 2, 3, 2)), func(x []*Tensor) *Tensor { return x[0].Flip(0, 2) }),
	gc("SqueezeUnsqueeze", "Reshape", ins(uni(-1, 1, 1, 3, 1)), func(x []*Tensor) *Tensor { return x[0].Squeeze().Unsqueeze(0).Exp() }),

	// Indexing.
	gc("TakeAlong", "TakeAlong Slice", ins(uni(-1, 1, 3, 4)), func(x []*Tensor) *Tensor {
		return x[0].TakeAlong(1, ci([]float64{3, 3, 0, 1, 2, 1, 1, 0, 0, 2, 3, 3}, 2, 6))
	}),
	gc("TakeAlongAxis0", "TakeAlong", ins(uni(-1, 1, 3, 2)), func(x []*Tensor) *Tensor {
		return x[0].TakeAlong(0, ci([]float64{2, 0, 2, 2}, 2, 2))
	}),
	gc("IndexSelect", "TakeAlong Broadcast", ins(uni(-1, 1, 3, 4)), func(x []*Tensor) *Tensor {
		return x[0].IndexSelect(1, ci([]float64{1, 3, 1, 0, 1}, 5))
	}),
	gc("ScatterAdd", "ScatterAddAlong", ins(uni(-1, 1, 3, 4), uni(-1, 1, 3, 5)), func(x []*Tensor) *Tensor {
		idx := ci([]float64{0, 3, 0, 1, 0, 2, 2, 2, 1, 3, 3, 1, 0, 1, 2}, 3, 5)
		return x[0].ScatterAdd(1, idx, x[1]).Square()
	}),
	gc("DynamicSlice", "DynamicSlice", ins(uni(-1, 1, 4, 5)), func(x []*Tensor) *Tensor {
		return x[0].DynamicSlice([]*Tensor{ci([]float64{1}), ci([]float64{4})}, []int64{2, 3}) // start 4 clamps to 2
	}),
	gc("DynamicUpdateSlice", "DynamicUpdateSlice", ins(uni(-1, 1, 4, 5), uni(-1, 1, 2, 3)), func(x []*Tensor) *Tensor {
		return x[0].DynamicUpdateSlice(x[1], []*Tensor{ci([]float64{3}), ci([]float64{1})}).Square() // start 3 clamps to 2
	}),

	// Windows, scans, sorting.
	gc("AvgPool2d", "ReduceWindow", ins(uni(-1, 1, 1, 2, 5, 4)), func(x []*Tensor) *Tensor {
		return x[0].AvgPool2d([2]int64{3, 2}, [2]int64{2, 1}, [2]int64{1, 1})
	}),
	gc("MaxPool2d", "ReduceWindow", ins(distinct(-2, 2, 1, 2, 4, 5)), func(x []*Tensor) *Tensor {
		return x[0].MaxPool2d([2]int64{2, 3}, [2]int64{1, 2}, [2]int64{0, 0})
	}),
	gc("MaxPool2dPadded", "ReduceWindow", ins(distinct(-3, -1, 1, 1, 5, 5)), func(x []*Tensor) *Tensor {
		return x[0].MaxPool2d([2]int64{3, 3}, [2]int64{2, 2}, [2]int64{1, 1})
	}),
	gc("MinWindow", "ReduceWindow", ins(distinct(-2, 2, 2, 6)), func(x []*Tensor) *Tensor {
		return apply1(opReduceWindow, windowParams{"min", []int64{1, 3}, []int64{1, 2}, []int64{0, 1}, []int64{0, 1}}.attrs(), x[0])
	}),
	// SelectAndScatter is the max-pool VJP; its own VJP gives second
	// derivatives of pooling.
	gc("SelectAndScatter", "SelectAndScatter", ins(distinct(-3, -1, 1, 2, 5, 4), uni(-1, 1, 1, 2, 3, 2)), func(x []*Tensor) *Tensor {
		w := windowParams{"max", []int64{1, 1, 3, 2}, []int64{1, 1, 2, 2}, []int64{0, 0, 1, 0}, []int64{0, 0, 1, 0}}
		return apply1(opSelectAndScatterMax, append(w.attrs(), Attr{"select", "GE"}), x[0], x[1])
	}),
	gc("SelectAndScatterMin", "SelectAndScatter", ins(distinct(-2, 2, 3, 5), uni(-1, 1, 2, 2)), func(x []*Tensor) *Tensor {
		w := windowParams{"min", []int64{2, 3}, []int64{1, 2}, []int64{0, 0}, []int64{0, 1}}
		return apply1(opSelectAndScatterMax, append(w.attrs(), Attr{"select", "LE"}), x[0], x[1])
	}),
	gc("MaxPool2dDoubleBackward", "SelectAndScatter", ins(uni(-1, 1, 1, 1, 2, 3)), func(x []*Tensor) *Tensor {
		// The gradient of max pooling with respect to its input, as a
		// function of the output gradient x[0].
		in := mkT(ndOf([]float64{0.3, -1.2, 2.5, 0.7, 1.1, -0.4, 3.1, 0.2, -2.2, 1.9, 0.05, -0.8, 1.4, 2.2, -1.7, 0.9, -0.3, 2.8,
			0.6, -0.9, 1.6, -1.1, 0.4, 2.0}, 1, 1, 4, 6), F64)
		return GradWith(in.MaxPool2d([2]int64{2, 2}, [2]int64{2, 2}, [2]int64{0, 0}), x[0], in)[0]
	}),
	gc("Cumsum", "Cumsum", ins(uni(-1, 1, 3, 4)), func(x []*Tensor) *Tensor { return x[0].Cumsum(1).Square() }),
	gc("CumsumAxis0", "Cumsum", ins(uni(-1, 1, 3, 2)), func(x []*Tensor) *Tensor { return x[0].Cumsum(0) }),
	gc("Sort", "Sort", ins(distinct(-2, 2, 3, 4)), func(x []*Tensor) *Tensor {
		v, _ := x[0].Sort(1, false)
		return v
	}),
	gc("SortDescAxis0", "Sort", ins(distinct(-2, 2, 4, 2)), func(x []*Tensor) *Tensor {
		v, _ := x[0].Sort(0, true)
		return v
	}),
	gc("TopK", "Sort Slice", ins(distinct(-2, 2, 2, 5)), func(x []*Tensor) *Tensor {
		v, _ := x[0].TopK(3)
		return v
	}),

	// Composites.
	gc("Softmax", "ReduceMax ReduceSum Exp Div", ins(uni(-2, 2, 2, 4)), func(x []*Tensor) *Tensor { return x[0].Softmax(1) }),
	gc("MaskedSoftmax", "Where ReduceMax Exp Div", ins(uni(-2, 2, 3, 4)), func(x []*Tensor) *Tensor {
		// -inf logits (attention masks) must give zero, not NaN, gradients;
		// the last row is masked but for one entry.
		m := mkT(ndOf([]float64{1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0}, 3, 4), Bool)
		return Where(m, x[0], Full(F64, math.Inf(-1), 3, 4)).Softmax(1).Add(Where(m, x[0], Full(F64, math.Inf(-1), 3, 4)).LogSoftmax(1).Exp())
	}),
	gc("LogSoftmax", "ReduceMax ReduceSum Exp Log Sub", ins(uni(-2, 2, 3, 4)), func(x []*Tensor) *Tensor { return x[0].LogSoftmax(-1) }),
	gc("LayerNorm", "ReduceSum Rsqrt Mul Add", ins(uni(-2, 2, 2, 4), uni(0.5, 1.5, 4), uni(-1, 1, 4)), func(x []*Tensor) *Tensor {
		return LayerNorm(x[0], 1, x[1], x[2], 1e-5)
	}),
	gc("LayerNorm2", "ReduceSum Rsqrt", ins(uni(-2, 2, 2, 2, 3)), func(x []*Tensor) *Tensor { return LayerNorm(x[0], 2, nil, nil, 1e-3) }),
	gc("CrossEntropy", "TakeAlong ReduceSum ReduceMax", ins(uni(-2, 2, 3, 4)), func(x []*Tensor) *Tensor {
		return CrossEntropy(x[0], ci([]float64{2, 0, 3}, 3))
	}),
	gc("MaskedSelect", "MaskedSelect", ins(away(0.1, 2, 3, 4)), func(x []*Tensor) *Tensor {
		return x[0].MaskedSelect(x[0].GtScalar(0)).Square()
	}),
	gc("MaskedScatter", "MaskedScatter MaskedSelect", ins(away(0.1, 2, 3, 4)), func(x []*Tensor) *Tensor {
		m := x[0].GtScalar(0)
		return apply1(opMaskedScatter, nil, x[0].MaskedSelect(m).Square(), m)
	}),
	gc("OneHotMul", "Mul", ins(uni(-2, 2, 3, 4)), func(x []*Tensor) *Tensor {
		return OneHot(ci([]float64{1, 3, 0}, 3), 4, F64).Mul(x[0]).Sum(1)
	}),
}

func einsumGrad(spec, ops string, shapes ...[]int64) gradCase {
	makers := make([]func(r *rand.Rand) nd, len(shapes))
	for i, s := range shapes {
		makers[i] = uni(-1, 1, s...)
	}
	return gc("Einsum "+spec, ops, ins(makers...), func(x []*Tensor) *Tensor { return Einsum(spec, x...) })
}

func convGrad(o Conv2dOpts, xd, wd []int64, bias bool) gradCase {
	makers := []func(r *rand.Rand) nd{uni(-1, 1, xd...), uni(-1, 1, wd...)}
	if bias {
		makers = append(makers, uni(-1, 1, wd[0]))
	}
	name := fmt.Sprintf("Conv2d x%v w%v s%v p%v d%v g%d bias=%v", xd, wd, o.Stride, o.Padding, o.Dilation, o.Groups, bias)
	return gc(name, "Conv", ins(makers...), func(x []*Tensor) *Tensor {
		var b *Tensor
		if len(x) > 2 {
			b = x[2]
		}
		return Conv2d(x[0], x[1], b, o)
	})
}

func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// lossOf builds sum(w * f(x)) for inputs vals.
func lossOf(c gradCase, vals []nd, w *Tensor) (*Tensor, []*Tensor) {
	xs := make([]*Tensor, len(vals))
	for i, v := range vals {
		xs[i] = mkT(v, F64)
	}
	y := c.f(xs)
	if y.DType() != F64 {
		panic("gradient case " + c.name + " does not return f64")
	}
	return y.Mul(w).Sum(), xs
}

func checkGradCase(t *testing.T, c gradCase) {
	r := newRand(seedOf(c.name))
	vals := c.in(r)
	// Shape of f's output, for the weights.
	probe := c.f(func() []*Tensor {
		xs := make([]*Tensor, len(vals))
		for i, v := range vals {
			xs[i] = mkT(v, F64)
		}
		return xs
	}())
	w := mkT(randND(r, -1, 1, probe.Dims()...), F64)
	loss, xs := lossOf(c, vals, w)

	// The case must exercise the ops it names.
	have := map[string]bool{}
	for _, n := range gradGraph(loss) {
		have[n.op.Name] = true
	}
	for _, op := range c.ops {
		if !have[op] {
			t.Errorf("%s: op %s is not in the differentiated graph", c.name, op)
		}
	}

	grads := Grad(loss, xs...)
	h0, rtol := 1e-5, 1e-5
	if c.h != 0 {
		h0, rtol = c.h, c.rtol
	}
	L0 := loss.Item()
	eval := func(v []nd) float64 {
		l, _ := lossOf(c, v, w)
		return l.Item()
	}
	for i, v := range vals {
		if !grads[i].Shape().Equal(NewShape(F64, v.dims...)) {
			t.Errorf("%s: gradient %d has shape %s, want f64%v", c.name, i, grads[i].Shape(), v.dims)
			continue
		}
		got := valuesOf(grads[i])
		bad := 0
		for j := range v.v {
			h := h0 * math.Max(1, math.Abs(v.v[j]))
			plus := cloneVals(vals)
			plus[i].v[j] += h
			minus := cloneVals(vals)
			minus[i].v[j] -= h
			fd := (eval(plus) - eval(minus)) / (2 * h)
			tol := 1e-7*(1+math.Abs(L0)) + rtol*math.Abs(fd)
			if c.h != 0 {
				tol = rtol * (1 + math.Abs(fd))
			}
			if d := math.Abs(got.v[j] - fd); !(d <= tol) {
				if bad < 4 {
					t.Errorf("%s: d/dx%d%v = %.10g, finite difference %.10g (diff %.3g > %.3g)", c.name, i, unflat(v.dims, j), got.v[j], fd, d, tol)
				}
				bad++
			}
		}
		if bad > 4 {
			t.Errorf("%s: input %d: %d of %d gradient elements wrong", c.name, i, bad, len(v.v))
		}
	}
}

func cloneVals(vals []nd) []nd {
	out := make([]nd, len(vals))
	for i, v := range vals {
		out[i] = ndOf(v.v, v.dims...)
	}
	return out
}

func TestGradFiniteDifferences(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range gradCases {
		if seen[c.name] {
			t.Fatalf("duplicate gradient case %q", c.name)
		}
		seen[c.name] = true
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) { checkGradCase(t, c) })
	}
}

// notDifferentiable lists the ops that are neither NoGrad nor have a VJP,
// with the reason.
var notDifferentiable = map[string]string{
	"DeviceData": "a leaf: gradients stop at tensors",
	"Unique":     "which input position a value came from is lost: Grad through it is an error (TestGradThroughHostOps)",
	"HostFunc":   "user Go code has no gradient rule: Grad through it is an error (TestGradThroughHostOps)",
}

// TestGradCoverage fails when a differentiable op has no finite-difference
// case, or an op is neither NoGrad nor differentiable without a reason.
func TestGradCoverage(t *testing.T) {
	covered := map[string][]string{}
	for _, c := range gradCases {
		for _, op := range c.ops {
			covered[op] = append(covered[op], c.name)
		}
	}
	var missing []string
	for _, d := range Ops() {
		switch {
		case d.NoGrad:
		case d.VJP == nil:
			if _, ok := notDifferentiable[d.Name]; !ok {
				t.Errorf("op %s is neither NoGrad nor differentiable (no VJP)", d.Name)
			}
		case len(covered[d.Name]) == 0:
			missing = append(missing, d.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("differentiable ops without a finite-difference case: %v", missing)
	}
	for op := range covered {
		if LookupOp(op) == nil {
			t.Errorf("gradient cases name unknown op %s", op)
		}
	}
}

// TestCheckTable: every op has a row with a lowering or a host kernel.
func TestCheckTable(t *testing.T) {
	if err := checkTable(); err != nil {
		t.Fatal(err)
	}
	for _, d := range Ops() {
		if d.Lower == nil && d.GoKernel == nil && d.Name != "DeviceData" {
			t.Errorf("op %s has neither a lowering nor a host kernel", d.Name)
		}
		if LookupOp(d.Name) != d {
			t.Errorf("LookupOp(%q) does not return its row", d.Name)
		}
	}
	if len(Ops()) != int(numOps) {
		t.Errorf("Ops() has %d rows, want %d", len(Ops()), numOps)
	}
}

// forwardTests names, per table op, the tests that check its values
// against a plain-Go reference (a new op fails TestForwardCoverage until it
// has one).
var forwardTests = map[string]string{
	"DeviceData":   "every test (FromSlice, FromLiteral)",
	"StopGradient": "TestDetach",
	"Constant":     "TestOpsCreate", "Splat": "TestOpsCreate", "Iota": "TestOpsIota TestOpsArange",
	"Neg": "TestOpsUnary TestOpsUnsignedAndComplex", "Abs": "TestOpsUnary TestOpsUnsignedAndComplex",
	"Exp": "TestOpsUnary", "Expm1": "TestOpsUnary", "Log": "TestOpsUnary", "Log1p": "TestOpsUnary",
	"Sqrt": "TestOpsUnary", "Rsqrt": "TestOpsUnary", "Tanh": "TestOpsUnary", "Sigmoid": "TestOpsUnary",
	"Sin": "TestOpsUnary", "Cos": "TestOpsUnary", "Floor": "TestOpsUnary", "Ceil": "TestOpsUnary",
	"Round": "TestOpsUnary", "Sign": "TestOpsUnary TestOpsUnsignedAndComplex", "Not": "TestOpsUnaryLogic",
	"ReLU": "TestOpsUnary", "Erf": "TestOpsUnary", "IsFinite": "TestOpsUnaryLogic",
	"Add": "TestOpsBinary", "Sub": "TestOpsBinary", "Mul": "TestOpsBinary", "Div": "TestOpsBinary",
	"Pow": "TestOpsBinary", "Max": "TestOpsBinary", "Min": "TestOpsBinary", "Rem": "TestOpsBinary",
	"ClampMin": "TestOpsScalarForms", "ClampMax": "TestOpsScalarForms",
	"Atan2": "TestOpsBinary", "And": "TestOpsBitwise", "Or": "TestOpsBitwise", "Xor": "TestOpsBitwise",
	"Sharding":    "TestShardingAnnotationIsIdentity TestSPMDLoweringGolden",
	"FullToShard": "TestManualRegionOneDevice", "ShardToFull": "TestManualRegionOneDevice",
	"Compare": "TestOpsCompare", "Where": "TestOpsWhere", "Cast": "TestOpsCast", "Clamp": "TestOpsClamp",
	"ReduceSum": "TestOpsReductions", "ReduceMax": "TestOpsReductions TestOpsReduceSpecials",
	"ReduceMin": "TestOpsReductions TestOpsReduceSpecials", "ReduceProd": "TestOpsReductions",
	"ArgMax": "TestOpsArgMaxMin", "ArgMin": "TestOpsArgMaxMin",
	"DotGeneral": "TestOpsMatMul TestOpsEinsum TestOpsLinear", "Conv": "TestOpsConv2d",
	"Reshape": "TestOpsReshape TestOpsSqueezeUnsqueeze", "Transpose": "TestOpsPermuteTranspose",
	"Broadcast": "TestOpsBroadcastExpand", "Slice": "TestOpsSlices", "Concat": "TestOpsConcatStack",
	"Pad": "TestOpsPad", "Reverse": "TestOpsFlip",
	"TakeAlong": "TestOpsTakeAlong TestOpsIndexSelect", "ScatterAddAlong": "TestOpsScatterAdd",
	"DynamicSlice": "TestOpsDynamicSlice", "DynamicUpdateSlice": "TestOpsDynamicSlice",
	"ReduceWindow": "TestOpsReduceWindow TestOpsPool2d", "SelectAndScatter": "TestOpsReduceWindow",
	"Cumsum": "TestOpsCumsum TestOpsCumsumReverse", "Sort": "TestOpsSortTopK",
	"RngBits": "TestOpsRandUniform TestOpsRandN TestOpsManualSeed TestOpsDropout",
	"NonZero": "TestOpsNonZero", "Unique": "TestOpsUnique", "MaskedSelect": "TestOpsMaskedSelect",
	"MaskedScatter": "TestOpsMaskedScatter",
	"HostFunc":      "TestOpsHostFunc",
	"Check":         "TestTorchIndexChecks",
}

func TestForwardCoverage(t *testing.T) {
	// The named tests must exist in this package's test files.
	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = true
			}
		}
	}
	for _, d := range Ops() {
		names := strings.Fields(forwardTests[d.Name])
		if len(names) == 0 {
			t.Errorf("op %s has no forward test against a reference", d.Name)
		}
		for _, n := range names {
			if strings.HasPrefix(n, "Test") && !funcs[n] {
				t.Errorf("op %s: test %s does not exist", d.Name, n)
			}
		}
	}
	for op := range forwardTests {
		if LookupOp(op) == nil {
			t.Errorf("forwardTests names unknown op %s", op)
		}
	}
}
