package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

func inferTakeAlong(in []Shape, a Attrs) ([]Shape, error) {
	x, idx := in[0], in[1]
	axis := int(a.Int("axis"))
	if !idx.DType.IsInt() {
		return nil, fmt.Errorf("indices must be integers, got %s", idx.DType)
	}
	if idx.Rank() != x.Rank() || axis < 0 || axis >= x.Rank() {
		return nil, fmt.Errorf("indices must have the operand's rank and axis must be in range")
	}
	for d := range x.Dims {
		if d != axis && idx.Dims[d] != x.Dims[d] {
			return nil, fmt.Errorf("indices and operand differ on axis %d", d)
		}
	}
	if x.Dims[axis] == 0 && idx.Size() > 0 {
		return nil, fmt.Errorf("indices into axis %d of size 0", axis)
	}
	return []Shape{NewShape(x.DType, idx.Dims...)}, nil
}

func batchAxes(rank, axis int) []int64 {
	var out []int64
	for d := 0; d < rank; d++ {
		if d != axis {
			out = append(out, int64(d))
		}
	}
	return out
}

func init() {
	define(opTakeAlong, &OpDef{
		Name:  "TakeAlong",
		Infer: inferTakeAlong,
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			x, idx := tensorType(in[0]), tensorType(in[1])
			axis := int(n.attrs.Int("axis"))
			r := len(x.Dims)
			iv := lc.S.Reshape(in[1], append(append([]int64(nil), idx.Dims...), 1)...)
			b := batchAxes(r, axis)
			sizes := make([]int64, r) // 1, or 0 on an empty axis (whose indices are empty)
			for i := range sizes {
				sizes[i] = min(1, x.Dims[i])
			}
			return []*hlo.Value{lc.S.Gather(in[0], iv, &hlo.GatherDimsAttr{
				CollapsedSliceDims: []int64{int64(axis)}, OperandBatchingDims: b, StartIndicesBatchingDims: b,
				StartIndexMap: []int64{int64(axis)}, IndexVectorDim: int64(r),
			}, sizes, false)}
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{apply1(opScatterAddAlong, a, ZerosLike(x[0]), x[1], dy[0]), nil}
		},
	})
	define(opScatterAddAlong, &OpDef{
		Name: "ScatterAddAlong",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if _, err := inferTakeAlong(in[:2], a); err != nil {
				return nil, err
			}
			if !in[2].Equal(NewShape(in[0].DType, in[1].Dims...)) {
				return nil, fmt.Errorf("source must have the indices' shape and the operand's dtype")
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			x, idx := tensorType(in[0]), tensorType(in[1])
			axis := int(n.attrs.Int("axis"))
			r := len(x.Dims)
			iv := lc.S.Reshape(in[1], append(append([]int64(nil), idx.Dims...), 1)...)
			b := batchAxes(r, axis)
			return lc.S.Scatter([]*hlo.Value{in[0]}, iv, []*hlo.Value{in[2]}, &hlo.ScatterDimsAttr{
				InsertedWindowDims: []int64{int64(axis)}, InputBatchingDims: b, ScatterIndicesBatchingDims: b,
				ScatterDimsToOperandDims: []int64{int64(axis)}, IndexVectorDim: int64(r),
			}, func(s *hlo.Scope, args []*hlo.Value) []*hlo.Value {
				return single(s.Add(args[0], args[1]))
			})
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			return []*Tensor{dy[0], nil, apply1(opTakeAlong, a, dy[0], x[1])}
		},
	})
	define(opDynamicSlice, &OpDef{
		Name: "DynamicSlice",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			sizes := a.Ints("sizes")
			if len(in)-1 != in[0].Rank() || len(sizes) != in[0].Rank() {
				return nil, fmt.Errorf("needs one start index and one size per axis")
			}
			for i, s := range in[1:] {
				if s.Rank() != 0 || !s.DType.IsInt() {
					return nil, fmt.Errorf("start index %d must be an integer scalar", i)
				}
				if s.DType != in[1].DType {
					return nil, fmt.Errorf("start indices must share one type (%s, %s)", in[1].DType, s.DType)
				}
				if sizes[i] < 0 || sizes[i] > in[0].Dims[i] {
					return nil, fmt.Errorf("size %d out of range on axis %d", sizes[i], i)
				}
			}
			return []Shape{NewShape(in[0].DType, sizes...)}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.DynamicSlice(in[0], in[1:], n.attrs.Ints("sizes")))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			out := make([]*Tensor, len(x))
			out[0] = apply1(opDynamicUpdateSlice, nil, append([]*Tensor{ZerosLike(x[0]), dy[0]}, x[1:]...)...)
			return out
		},
	})
	define(opDynamicUpdateSlice, &OpDef{
		Name: "DynamicUpdateSlice",
		Infer: func(in []Shape, a Attrs) ([]Shape, error) {
			if len(in)-2 != in[0].Rank() || in[1].Rank() != in[0].Rank() || in[1].DType != in[0].DType {
				return nil, fmt.Errorf("needs an update of the operand's rank and dtype and one start index per axis")
			}
			for i, s := range in[2:] {
				if s.Rank() != 0 || !s.DType.IsInt() {
					return nil, fmt.Errorf("start index %d must be an integer scalar", i)
				}
				if s.DType != in[2].DType {
					return nil, fmt.Errorf("start indices must share one type (%s, %s)", in[2].DType, s.DType)
				}
				if in[1].Dims[i] > in[0].Dims[i] {
					return nil, fmt.Errorf("update larger than operand on axis %d", i)
				}
			}
			return []Shape{in[0]}, nil
		},
		Lower: func(lc *LowerCtx, n *Node, in []*hlo.Value) []*hlo.Value {
			return single(lc.S.DynamicUpdateSlice(in[0], in[1], in[2:]))
		},
		VJP: func(x, y, dy []*Tensor, a Attrs) []*Tensor {
			out := make([]*Tensor, len(x))
			starts := x[2:]
			out[0] = apply1(opDynamicUpdateSlice, nil, append([]*Tensor{dy[0], ZerosLike(x[1])}, starts...)...)
			out[1] = apply1(opDynamicSlice, Attrs{{"sizes", append([]int64(nil), x[1].Dims()...)}}, append([]*Tensor{dy[0]}, starts...)...)
			return out
		},
	})
}
