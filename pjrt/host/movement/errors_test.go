package movement

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// Bad attributes are compile-time errors naming the op, its location, the
// attribute and the shapes involved.
func TestCompileErrors(t *testing.T) {
	f32 := func(d ...int64) hlo.Type { return tt(hlo.F32, d...) }
	withBody := func(op *hlo.Op, r *hlo.Region) *hlo.Op { op.Regions = []*hlo.Region{r}; return op }
	cases := []struct {
		op   *hlo.Op
		want []string
	}{
		{mkOp("stablehlo.broadcast_in_dim", []hlo.Type{f32(3)}, []hlo.Type{f32(4, 2)}, attr("broadcast_dimensions", ints(1))),
			[]string{"broadcast_dimensions", "f32[3]", "f32[4,2]"}},
		{mkOp("stablehlo.transpose", []hlo.Type{f32(2, 3)}, []hlo.Type{f32(3, 2)}, attr("permutation", ints(1, 1))),
			[]string{"permutation", "f32[2,3]"}},
		{mkOp("stablehlo.reshape", []hlo.Type{f32(2, 3)}, []hlo.Type{f32(7)}),
			[]string{"f32[2,3]", "f32[7]"}},
		{mkOp("stablehlo.slice", []hlo.Type{f32(4)}, []hlo.Type{f32(2)}, attr("start_indices", ints(3)), attr("limit_indices", ints(5)), attr("strides", ints(1))),
			[]string{"slice", "f32[4]"}},
		{mkOp("stablehlo.dynamic_slice", []hlo.Type{f32(4), tt(hlo.I32)}, []hlo.Type{f32(5)}, attr("slice_sizes", ints(5))),
			[]string{"slice_sizes", "f32[4]"}},
		{mkOp("stablehlo.concatenate", []hlo.Type{f32(2, 3), f32(2, 4)}, []hlo.Type{f32(4, 3)}, attr("dimension", hlo.IntAttr{Value: 0})),
			[]string{"dimension", "f32[2,3]", "f32[2,4]"}},
		{mkOp("stablehlo.pad", []hlo.Type{f32(3), f32()}, []hlo.Type{f32(1)}, attr("edge_padding_low", ints(-2)), attr("edge_padding_high", ints(-2)), attr("interior_padding", ints(0))),
			[]string{"padding", "f32[3]"}},
		{mkOp("stablehlo.reverse", []hlo.Type{f32(3)}, []hlo.Type{f32(3)}, attr("dimensions", ints(1))),
			[]string{"dimensions", "f32[3]"}},
		{gatherOp(hlo.F32, []int64{3, 4}, []int64{2, 1}, []int64{2, 4}, hlo.I32,
			&hlo.GatherDimsAttr{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}, []int64{2, 4}),
			[]string{"slice_sizes", "f32[3,4]", "i32[2,1]"}},
		{scatterOpOf(hlo.F32, []int64{4}, []int64{2, 1}, []int64{2, 5}, &hlo.ScatterDimsAttr{UpdateWindowDims: []int64{1}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1},
			binRegion("stablehlo.add", hlo.F32)),
			[]string{"update window dimension", "f32[4]", "f32[2,5]"}},
		{reduceOpOf(hlo.F32, []int64{2, 3}, []int64{2}, []int64{2}, binRegion("stablehlo.add", hlo.F32)),
			[]string{"dimensions", "f32[2,3]"}},
		{withBody(mkOp("stablehlo.sort", []hlo.Type{f32(3)}, []hlo.Type{f32(3)}, attr("dimension", hlo.IntAttr{Value: 1})), binRegion("stablehlo.add", hlo.F32)),
			[]string{"dimension", "f32[3]"}},
		{withBody(mkOp("stablehlo.reduce_window", []hlo.Type{f32(4), f32()}, []hlo.Type{f32(3)}, attr("window_dimensions", ints(0))), binRegion("stablehlo.add", hlo.F32)),
			[]string{"window_dimensions", "f32[4]"}},
		{reduceOpOf(hlo.F32, []int64{2, 3}, []int64{1}, []int64{2}, binRegion("stablehlo.add", hlo.F64)),
			[]string{"body", "f32[2,3]"}},
	}
	for _, c := range cases {
		c.op.Loc = hlo.Loc{File: "t.mlir", Line: 3, Col: 4}
		_, err := compile(c.op)
		if err == nil {
			t.Errorf("%s: no error", c.op.Name)
			continue
		}
		msg := err.Error()
		for _, w := range append([]string{c.op.Name, "t.mlir:3:4"}, c.want...) {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not mention %q", c.op.Name, msg, w)
			}
		}
	}
}
