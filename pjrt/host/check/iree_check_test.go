package check_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func f64s(xs ...float64) *hlo.Literal { return hlo.LiteralFromSlice(xs) }

func f16s(xs ...float64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.F16, int64(len(xs)))
	for i, x := range xs {
		l.SetFloat(i, x)
	}
	return l
}

func i32s(xs ...int32) *hlo.Literal { return hlo.LiteralFromSlice(xs) }

// IREE's check ops with the semantics of IREE's check module: bitwise
// equality, NumPy isclose with atol/rtol in f32 (f64 for f64), truth of
// integer scalars and tensors.
func TestIreeCheckOps(t *testing.T) {
	nan := float32(math.NaN())
	otherNaN := math.Float32frombits(0x7FC00001)
	inf := float32(math.Inf(1))
	eq := func(k *Blk, g, w *hlo.Value) { k.Op("iree_check.expect_eq", []*hlo.Value{g, w}, nil) }
	eqConst := func(want *hlo.Literal) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			k.Op("iree_check.expect_eq_const", []*hlo.Value{g}, nil, Attr("value", Dense(want)))
		}
	}
	almost := func(tols ...float64) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			var attrs []hlo.NamedAttr
			if len(tols) > 0 {
				attrs = append(attrs, Attr("atol", hlo.FloatAttr{Value: tols[0]}))
			}
			if len(tols) > 1 {
				attrs = append(attrs, Attr("rtol", hlo.FloatAttr{Value: tols[1]}))
			}
			k.Op("iree_check.expect_almost_eq", []*hlo.Value{g, w}, nil, attrs...)
		}
	}
	almostConst := func(want *hlo.Literal, tols ...float64) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) {
			attrs := []hlo.NamedAttr{Attr("value", Dense(want))}
			if len(tols) > 0 {
				attrs = append(attrs, Attr("atol", hlo.FloatAttr{Value: tols[0]}), Attr("rtol", hlo.FloatAttr{Value: tols[1]}))
			}
			k.Op("iree_check.expect_almost_eq_const", []*hlo.Value{g}, nil, attrs...)
		}
	}
	scalarI32 := func(v int32) *hlo.Literal {
		l := hlo.NewLiteral(hlo.I32)
		l.SetInt(0, int64(v))
		return l
	}
	unary := func(name string) func(k *Blk, g, w *hlo.Value) {
		return func(k *Blk, g, w *hlo.Value) { k.Op(name, []*hlo.Value{g}, nil) }
	}
	cases := []struct {
		name      string
		build     func(k *Blk, g, w *hlo.Value)
		got, want *hlo.Literal
		ok        bool
	}{
		{"eq", eq, f32s(1, 2, 3), f32s(1, 2, 3), true},
		{"eq -0 is not 0", eq, f32s(1, float32(math.Copysign(0, -1))), f32s(1, 0), false},
		{"eq same nan", eq, f32s(nan), f32s(nan), true},
		{"eq other nan", eq, f32s(nan), f32s(otherNaN), false},
		{"eq ints", eq, i32s(1, 2), i32s(1, 3), false},
		{"eq_const", eqConst(i32s(4, 5)), i32s(4, 5), i32s(0, 0), true},
		{"eq_const bad", eqConst(i32s(4, 6)), i32s(4, 5), i32s(0, 0), false},
		{"almost default atol", almost(), f32s(1.00009), f32s(1), true},
		{"almost default atol fails", almost(), f32s(1.0002), f32s(1), false},
		{"almost default rtol is 0", almost(), f32s(1000.001), f32s(1000), false},
		{"almost rtol", almost(0, 1e-3), f32s(1000.9), f32s(1000), true},
		{"almost rtol scales with rhs", almost(0, 1e-3), f32s(1.5), f32s(1), false},
		{"almost rtol is relative to rhs", almost(0, 0.5), f32s(1), f32s(1.9), true},
		{"almost rtol is not relative to lhs", almost(0, 0.5), f32s(1.9), f32s(1), false},
		{"almost inf", almost(), f32s(inf), f32s(inf), true},
		{"almost inf vs finite", almost(1e30, 0), f32s(inf), f32s(3e38), false},
		{"almost finite vs inf", almost(1e30, 0), f32s(3e38), f32s(inf), false},
		{"almost nans", almost(), f32s(nan), f32s(otherNaN), true},
		{"almost nan vs 1", almost(), f32s(nan), f32s(1), false},
		{"almost 1 vs nan", almost(1e30, 1), f32s(1), f32s(nan), false},
		{"almost f16", almost(0.01, 0), f16s(1.0, 2.0), f16s(1.00977, 2.0), true},
		{"almost f64", almost(1e-9, 0), f64s(1 + 1e-10), f64s(1), true},
		{"almost f64 fails", almost(1e-9, 0), f64s(1 + 1e-8), f64s(1), false},
		{"almost_const", almostConst(f32s(2, 4)), f32s(2.00001, 4), f32s(0, 0), true},
		{"almost_const tols", almostConst(f32s(2, 4), 0, 0.1), f32s(2.1, 4.3), f32s(0, 0), true},
		{"almost_const tols fail", almostConst(f32s(2, 4), 0, 0.1), f32s(2.1, 4.5), f32s(0, 0), false},
		{"true", unary("iree_check.expect_true"), scalarI32(7), scalarI32(0), true},
		{"true fails", unary("iree_check.expect_true"), scalarI32(0), scalarI32(0), false},
		{"false", unary("iree_check.expect_false"), scalarI32(0), scalarI32(0), true},
		{"false fails", unary("iree_check.expect_false"), scalarI32(-1), scalarI32(0), false},
		{"all_true", unary("iree_check.expect_all_true"), i32s(1, -2, 3), i32s(0), true},
		{"all_true fails", unary("iree_check.expect_all_true"), i32s(1, 0, 3), i32s(0), false},
	}
	for _, c := range cases {
		log := &kernel.CheckLog{}
		if err := checkOnce(t, log, c.build, c.got, c.want); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ok := log.Passed == 1 && len(log.Failed) == 0; ok != c.ok {
			t.Errorf("%s: passed %d, failed %v; want ok=%v", c.name, log.Passed, log.Failed, c.ok)
		}
		if !c.ok && len(log.Failed) == 1 && !strings.Contains(log.Failed[0], "test.mlir:") {
			t.Errorf("%s: failure %q does not name the check's location", c.name, log.Failed[0])
		}
	}
}

// Shapes and element types must match, as IREE requires; a mismatch at
// run time is a failed check, not a crash.
func TestIreeCheckMismatchedShapes(t *testing.T) {
	log := &kernel.CheckLog{}
	k := NewBlk(TT(hlo.F32, hlo.DynamicDim), TT(hlo.F32, hlo.DynamicDim))
	k.Op("iree_check.expect_eq", []*hlo.Value{k.Arg(0), k.Arg(1)}, nil)
	k.Ret("func.return")
	p, err := host.Compile(Module(Fn("main", k)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(&kernel.Ctx{Checks: log}, []kernel.Value{f32s(1, 2), f32s(1, 2, 3)}); err != nil {
		t.Fatal(err)
	}
	if len(log.Failed) != 1 || !strings.Contains(log.Failed[0], "shapes differ") {
		t.Errorf("log %+v", log)
	}
}

func TestIreeCheckCompileErrors(t *testing.T) {
	for _, c := range []struct {
		op    string
		in    []hlo.Type
		attrs []hlo.NamedAttr
		want  string
	}{
		{"iree_check.expect_almost_eq", []hlo.Type{TT(hlo.I32, 2), TT(hlo.I32, 2)}, nil, "compares float tensors"},
		{"iree_check.expect_almost_eq", []hlo.Type{TT(hlo.F32, 2), TT(hlo.F32, 2)}, []hlo.NamedAttr{Attr("atol", hlo.FloatAttr{Value: -1})}, "atol -1"},
		{"iree_check.expect_eq", []hlo.Type{TT(hlo.F32, 2), TT(hlo.F32, 3)}, nil, "compares two tensors of one type"},
		{"iree_check.expect_eq_const", []hlo.Type{TT(hlo.F32, 2)}, []hlo.NamedAttr{Attr("value", Dense(i32s(1, 2)))}, "does not match the operand type"},
		{"iree_check.expect_true", []hlo.Type{TT(hlo.I32, 2)}, nil, "want a scalar integer"},
		{"iree_check.expect_false", []hlo.Type{TT(hlo.F32)}, nil, "want integer elements"},
		{"iree_check.expect_all_true", []hlo.Type{TT(hlo.F32, 2)}, nil, "want integer elements"},
	} {
		k := NewBlk(c.in...)
		var args []*hlo.Value
		for i := range c.in {
			args = append(args, k.Arg(i))
		}
		k.Op(c.op, args, nil, c.attrs...)
		k.Ret("func.return")
		_, err := host.Compile(Module(Fn("main", k)))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s: got %v, want an error containing %q", c.op, err, c.want)
		}
	}
}
