package control_test

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestChloBroadcast(t *testing.T) {
	m23 := tt(hlo.I64, 2, 3)
	v3 := tt(hlo.I64, 3)
	v2 := tt(hlo.I64, 2)
	// numpy-style: [2,3] + [3]
	k := newBlk(m23, v3)
	k.ret("func.return", k.v("chlo.broadcast_add", []*hlo.Value{k.arg(0), k.arg(1)}, m23))
	res, _ := run(t, module(fn("main", k)), hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3), vec(10, 20, 30))
	wantInts(t, res[0], 11, 22, 33, 14, 25, 36)
	// explicit broadcast_dimensions: [2] along dim 0 of [2,3]
	k = newBlk(v2, m23)
	k.ret("func.return", k.v("chlo.broadcast_subtract", []*hlo.Value{k.arg(0), k.arg(1)}, m23,
		attr("broadcast_dimensions", &hlo.DenseArrayAttr{DType: hlo.I64, Ints: []int64{0}})))
	res, _ = run(t, module(fn("main", k)), vec(100, 200), hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3))
	wantInts(t, res[0], 99, 98, 97, 196, 195, 194)
	// compare with a chlo enum, degenerate dims stretched.
	k = newBlk(tt(hlo.I64, 2, 1), tt(hlo.I64, 1, 3))
	k.ret("func.return", k.v("chlo.broadcast_compare", []*hlo.Value{k.arg(0), k.arg(1)}, tt(hlo.Bool, 2, 3),
		attr("comparison_direction", hlo.EnumAttr{Dialect: "chlo", Kind: "comparison_direction", Value: "LT"})))
	res, _ = run(t, module(fn("main", k)), hlo.LiteralFromSlice([]int64{1, 5}, 2, 1), hlo.LiteralFromSlice([]int64{0, 3, 6}, 1, 3))
	wantInts(t, res[0], 0, 1, 1, 0, 0, 1)
}

func TestChloTopKMulhiNextAfter(t *testing.T) {
	f := tt(hlo.F32, 2, 4)
	k := newBlk(f)
	o := k.op("chlo.top_k", []*hlo.Value{k.arg(0)}, []hlo.Type{tt(hlo.F32, 2, 2), tt(hlo.I32, 2, 2)}, attr("k", hlo.IntAttr{Value: 2}))
	k.ret("func.return", o.Results...)
	nan := float32(math.NaN())
	res, _ := run(t, module(fn("main", k)), hlo.LiteralFromSlice([]float32{1, 3, 3, 2, -1, nan, 0, float32(math.Inf(1))}, 2, 4))
	vals := res[0].(*hlo.Literal).F32()
	if vals[0] != 3 || vals[1] != 3 || !math.IsNaN(float64(vals[2])) || !math.IsInf(float64(vals[3]), 1) {
		t.Errorf("top_k values %v", vals)
	}
	wantInts(t, res[1], 1, 2, 1, 3) // ties in index order; NaN above +Inf

	i8 := tt(hlo.I8, 3)
	k = newBlk(i8, i8)
	k.ret("func.return", k.v("chlo.mulhi", []*hlo.Value{k.arg(0), k.arg(1)}, i8))
	res, _ = run(t, module(fn("main", k)), hlo.LiteralFromSlice([]int8{64, -64, -64}), hlo.LiteralFromSlice([]int8{4, 4, -4}))
	wantInts(t, res[0], 1, -1, 1)
	i64v := tt(hlo.I64, 2)
	k = newBlk(i64v, i64v)
	k.ret("func.return", k.v("chlo.mulhi", []*hlo.Value{k.arg(0), k.arg(1)}, i64v))
	res, _ = run(t, module(fn("main", k)), vec(-1, math.MinInt64), vec(math.MaxInt64, 2))
	wantInts(t, res[0], -1, -1)

	b := tt(hlo.BF16, 3)
	k = newBlk(b, b)
	k.ret("func.return", k.v("chlo.next_after", []*hlo.Value{k.arg(0), k.arg(1)}, b))
	x, y := hlo.NewLiteral(hlo.BF16, 3), hlo.NewLiteral(hlo.BF16, 3)
	for i, v := range [][2]float64{{1, 2}, {0, -1}, {1, 1}} {
		x.SetFloat(i, v[0])
		y.SetFloat(i, v[1])
	}
	res, _ = run(t, module(fn("main", k)), x, y)
	r := res[0].(*hlo.Literal)
	if r.Float(0) != 1+1.0/128 || r.Bits(1) != 0x8001 || r.Float(2) != 1 {
		t.Errorf("next_after = %v %#x %v", r.Float(0), r.Bits(1), r.Float(2))
	}
}

func TestChloScanAndRaggedDot(t *testing.T) {
	// Reverse cumulative sum with operandSegmentSizes absent: the split
	// comes from the body's argument types.
	v4 := tt(hlo.I64, 4)
	body := newBlk(i64, i64)
	s := body.v("test.add", []*hlo.Value{body.arg(0), body.arg(1)}, i64)
	body.ret("stablehlo.return", s, s)
	k := newBlk(v4, i64)
	o := k.op("chlo.scan", []*hlo.Value{k.arg(0), k.arg(1)}, []hlo.Type{v4, i64},
		attr("dimension", hlo.IntAttr{Value: 0}), attr("is_reverse", hlo.BoolAttr(true)))
	o.Regions = []*hlo.Region{body.region()}
	k.ret("func.return", o.Results...)
	res, _ := run(t, module(fn("main", k)), vec(1, 2, 3, 4), scalar(0))
	wantInts(t, res[0], 10, 9, 7, 4)
	wantInts(t, res[1], 10)

	// Mode 2 (ragged contracting dimension): [m,k] x [k,n] -> [g,m,n].
	lhs := hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	rhs := hlo.LiteralFromSlice([]int64{1, 10, 100}, 3, 1)
	k = newBlk(lhs.Type(), rhs.Type(), tt(hlo.I64, 2))
	k.ret("func.return", k.v("chlo.ragged_dot", []*hlo.Value{k.arg(0), k.arg(1), k.arg(2)}, tt(hlo.I64, 2, 2, 1),
		attr("ragged_dot_dimension_numbers", hlo.OpaqueAttr{Text: "#chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], " +
			"lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>"})))
	res, _ = run(t, module(fn("main", k)), lhs, rhs, vec(2, 1))
	wantInts(t, res[0], 21, 54, 300, 600)
}
