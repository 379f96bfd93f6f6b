package chlo_test

import (
	"bytes"
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestChloBroadcast(t *testing.T) {
	m23 := TT(hlo.I64, 2, 3)
	v3 := TT(hlo.I64, 3)
	v2 := TT(hlo.I64, 2)
	// numpy-style: [2,3] + [3]
	k := NewBlk(m23, v3)
	k.Ret("func.return", k.V("chlo.broadcast_add", []*hlo.Value{k.Arg(0), k.Arg(1)}, m23))
	res, _ := Run(t, Module(Fn("main", k)), hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3), Ints(10, 20, 30))
	WantInts(t, res[0], 11, 22, 33, 14, 25, 36)
	// explicit broadcast_dimensions: [2] along dim 0 of [2,3]
	k = NewBlk(v2, m23)
	k.Ret("func.return", k.V("chlo.broadcast_subtract", []*hlo.Value{k.Arg(0), k.Arg(1)}, m23,
		Attr("broadcast_dimensions", &hlo.DenseArrayAttr{DType: hlo.I64, Ints: []int64{0}})))
	res, _ = Run(t, Module(Fn("main", k)), Ints(100, 200), hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3))
	WantInts(t, res[0], 99, 98, 97, 196, 195, 194)
	// compare with a chlo enum, degenerate dims stretched.
	k = NewBlk(TT(hlo.I64, 2, 1), TT(hlo.I64, 1, 3))
	k.Ret("func.return", k.V("chlo.broadcast_compare", []*hlo.Value{k.Arg(0), k.Arg(1)}, TT(hlo.Bool, 2, 3),
		Attr("comparison_direction", hlo.EnumAttr{Dialect: "chlo", Kind: "comparison_direction", Value: "LT"})))
	res, _ = Run(t, Module(Fn("main", k)), hlo.LiteralFromSlice([]int64{1, 5}, 2, 1), hlo.LiteralFromSlice([]int64{0, 3, 6}, 1, 3))
	WantInts(t, res[0], 0, 1, 1, 0, 0, 1)
}

func TestChloTopKMulhiNextAfter(t *testing.T) {
	f := TT(hlo.F32, 2, 4)
	k := NewBlk(f)
	o := k.Op("chlo.top_k", []*hlo.Value{k.Arg(0)}, []hlo.Type{TT(hlo.F32, 2, 2), TT(hlo.I32, 2, 2)}, Attr("k", hlo.IntAttr{Value: 2}))
	k.Ret("func.return", o.Results...)
	nan := float32(math.NaN())
	res, _ := Run(t, Module(Fn("main", k)), hlo.LiteralFromSlice([]float32{1, 3, 3, 2, -1, nan, 0, float32(math.Inf(1))}, 2, 4))
	vals := res[0].(*hlo.Literal).F32()
	if vals[0] != 3 || vals[1] != 3 || !math.IsNaN(float64(vals[2])) || !math.IsInf(float64(vals[3]), 1) {
		t.Errorf("top_k values %v", vals)
	}
	WantInts(t, res[1], 1, 2, 1, 3) // ties in index order; NaN above +Inf

	i8 := TT(hlo.I8, 3)
	k = NewBlk(i8, i8)
	k.Ret("func.return", k.V("chlo.mulhi", []*hlo.Value{k.Arg(0), k.Arg(1)}, i8))
	res, _ = Run(t, Module(Fn("main", k)), hlo.LiteralFromSlice([]int8{64, -64, -64}), hlo.LiteralFromSlice([]int8{4, 4, -4}))
	WantInts(t, res[0], 1, -1, 1)
	i64v := TT(hlo.I64, 2)
	k = NewBlk(i64v, i64v)
	k.Ret("func.return", k.V("chlo.mulhi", []*hlo.Value{k.Arg(0), k.Arg(1)}, i64v))
	res, _ = Run(t, Module(Fn("main", k)), Ints(-1, math.MinInt64), Ints(math.MaxInt64, 2))
	WantInts(t, res[0], -1, -1)

	b := TT(hlo.BF16, 3)
	k = NewBlk(b, b)
	k.Ret("func.return", k.V("chlo.next_after", []*hlo.Value{k.Arg(0), k.Arg(1)}, b))
	x, y := hlo.NewLiteral(hlo.BF16, 3), hlo.NewLiteral(hlo.BF16, 3)
	for i, v := range [][2]float64{{1, 2}, {0, -1}, {1, 1}} {
		x.SetFloat(i, v[0])
		y.SetFloat(i, v[1])
	}
	res, _ = Run(t, Module(Fn("main", k)), x, y)
	r := res[0].(*hlo.Literal)
	if r.Float(0) != 1+1.0/128 || r.Bits(1) != 0x8001 || r.Float(2) != 1 {
		t.Errorf("next_after = %v %#x %v", r.Float(0), r.Bits(1), r.Float(2))
	}
}

func TestChloScanAndRaggedDot(t *testing.T) {
	// Reverse cumulative sum with operandSegmentSizes absent: the split
	// comes from the body's argument types.
	v4 := TT(hlo.I64, 4)
	body := NewBlk(I64, I64)
	s := body.V("test.add", []*hlo.Value{body.Arg(0), body.Arg(1)}, I64)
	body.Ret("stablehlo.return", s, s)
	k := NewBlk(v4, I64)
	o := k.Op("chlo.scan", []*hlo.Value{k.Arg(0), k.Arg(1)}, []hlo.Type{v4, I64},
		Attr("dimension", hlo.IntAttr{Value: 0}), Attr("is_reverse", hlo.BoolAttr(true)))
	o.Regions = []*hlo.Region{body.Region()}
	k.Ret("func.return", o.Results...)
	res, _ := Run(t, Module(Fn("main", k)), Ints(1, 2, 3, 4), Scalar(0))
	WantInts(t, res[0], 10, 9, 7, 4)
	WantInts(t, res[1], 10)

	// Mode 2 (ragged contracting dimension): [m,k] x [k,n] -> [g,m,n].
	lhs := hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	rhs := hlo.LiteralFromSlice([]int64{1, 10, 100}, 3, 1)
	k = NewBlk(lhs.Type(), rhs.Type(), TT(hlo.I64, 2))
	k.Ret("func.return", k.V("chlo.ragged_dot", []*hlo.Value{k.Arg(0), k.Arg(1), k.Arg(2)}, TT(hlo.I64, 2, 2, 1),
		Attr("ragged_dot_dimension_numbers", hlo.OpaqueAttr{Text: "#chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], " +
			"lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []>"})))
	res, _ = Run(t, Module(Fn("main", k)), lhs, rhs, Ints(2, 1))
	WantInts(t, res[0], 21, 54, 300, 600)
}

// chlo.tan and stablehlo.tan are one op: the same bits for every float and
// complex type, near the poles of the real tangent and for large imaginary
// parts included.
func TestChloTanIsStablehloTan(t *testing.T) {
	xs := []float64{0, -0.0, 1, -2.5, math.Pi / 2, 1e10, math.Inf(1), math.NaN(), 1e-30}
	for _, dt := range []hlo.DType{hlo.F16, hlo.BF16, hlo.F32, hlo.F64, hlo.C64, hlo.C128} {
		n := int64(len(xs) * len(xs))
		in := hlo.NewLiteral(dt, n)
		for i := range int(n) {
			re, im := xs[i/len(xs)], xs[i%len(xs)]*300
			if dt.IsComplex() {
				in.SetComplex(i, complex(re, im))
			} else {
				in.SetFloat(i, re+im)
			}
		}
		var got [2]*hlo.Literal
		for j, op := range []string{"chlo.tan", "stablehlo.tan"} {
			k := NewBlk(TT(dt, n))
			k.Ret("func.return", k.V(op, []*hlo.Value{k.Arg(0)}, TT(dt, n)))
			res, _ := Run(t, Module(Fn("main", k)), in)
			got[j] = res[0].(*hlo.Literal)
		}
		for i := range int(n) {
			a, b := got[0].Data[i*dt.Size():(i+1)*dt.Size()], got[1].Data[i*dt.Size():(i+1)*dt.Size()]
			if !bytes.Equal(a, b) {
				t.Errorf("%s: tan of element %d: chlo %x, stablehlo %x", dt, i, a, b)
			}
		}
	}
}
