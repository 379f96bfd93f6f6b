package plugin

import (
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// checkModule builds, without the parser:
//
//	func @main(%a: tensor<2xf32>) -> tensor<i1> {
//	  %0 = stablehlo.abs %a
//	  check.expect_eq_const %0, dense<...>
//	  %1 = stablehlo.custom_call @check.eq(%0, %a) : tensor<i1>
//	  func.return %1
//	}
func checkModule() (*hlo.Module, *hlo.Value, *hlo.Value) {
	t := hlo.NewTensorType(hlo.F32, 2)
	a := &hlo.Value{Name: "a", Type: t}
	abs := hlo.NewOp("stablehlo.abs", []*hlo.Value{a}, []hlo.Type{t})
	expect := hlo.NewOp("check.expect_eq_const", []*hlo.Value{abs.Results[0]}, nil)
	eq := hlo.NewOp("stablehlo.custom_call", []*hlo.Value{abs.Results[0], a}, []hlo.Type{hlo.NewTensorType(hlo.Bool)},
		hlo.NamedAttr{Name: "call_target_name", Value: hlo.SymbolRefAttr{Name: "check.eq"}})
	ret := hlo.NewOp("func.return", []*hlo.Value{eq.Results[0]}, nil)
	blk := &hlo.Block{Args: []*hlo.Value{a}, Ops: []*hlo.Op{abs, expect, eq, ret}}
	f := &hlo.Func{Name: "main", Args: blk.Args, ResultTypes: []hlo.Type{hlo.NewTensorType(hlo.Bool)}, Body: &hlo.Region{Blocks: []*hlo.Block{blk}}}
	return &hlo.Module{Funcs: []*hlo.Func{f}}, a, abs.Results[0]
}

func TestLiftChecks(t *testing.T) {
	m, a, abs := checkModule()
	n, err := LiftChecks(m)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Entry()
	ops := f.Body.Blocks[0].Ops
	if n != 3 || len(ops) != 2 || ops[0].Name != "stablehlo.abs" || ops[1].Name != "func.return" {
		t.Fatalf("lifted %d, ops %v", n, ops)
	}
	ret := ops[1].Operands
	if len(ret) != 3 || ret[0] != abs || ret[1] != abs || ret[2] != a || len(f.ResultTypes) != 3 {
		t.Errorf("results after lifting: %v (%d types)", ret, len(f.ResultTypes))
	}

	// A check result used by another op cannot be lifted.
	m2, _, _ := checkModule()
	blk := m2.Entry().Body.Blocks[0]
	eqRes := blk.Ops[2].Results[0]
	not := hlo.NewOp("stablehlo.not", []*hlo.Value{eqRes}, []hlo.Type{eqRes.Type})
	blk.Ops = append(blk.Ops[:3], not, blk.Ops[3])
	blk.Ops[4].Operands = []*hlo.Value{not.Results[0]}
	if _, err := LiftChecks(m2); err == nil || !strings.Contains(err.Error(), "uses the result of a check") {
		t.Errorf("LiftChecks with a used check result: %v", err)
	}
}

func TestCompareLiterals(t *testing.T) {
	want := hlo.LiteralFromSlice([]float32{1, 2, float32(math.NaN()), float32(math.Inf(1))}, 4)
	got := hlo.LiteralFromSlice([]float32{1.00001, 2, float32(math.NaN()), float32(math.Inf(1))}, 4)
	tol := DefaultTolerance(hlo.F32)
	if d := CompareLiterals(got, want, tol); d != nil {
		t.Errorf("within tolerance: %s", d.Msg)
	}
	got.F32()[1] = 2.1
	if d := CompareLiterals(got, want, tol); d == nil || !strings.Contains(d.Msg, "1 of 4 elements differ") || !strings.Contains(d.Msg, "index 1") {
		t.Errorf("outside tolerance: %+v", d)
	}
	got.F32()[1], got.F32()[3] = 2, float32(math.Inf(-1))
	if d := CompareLiterals(got, want, tol); d == nil {
		t.Errorf("-inf vs +inf accepted")
	}
	i1 := hlo.LiteralFromSlice([]int32{1, 2}, 2)
	i2 := hlo.LiteralFromSlice([]int32{1, 3}, 2)
	if d := CompareLiterals(i2, i1, Tolerance{RTol: 1}); d == nil {
		t.Errorf("integers compared with a tolerance")
	}
	if d := CompareLiterals(hlo.LiteralFromSlice([]int32{1, 2}, 1, 2), i1, tol); d == nil || !strings.Contains(d.Msg, "i32[1,2]") {
		t.Errorf("shape mismatch: %+v", d)
	}
	res := CompareOutputs([]*hlo.Literal{i1}, []*hlo.Literal{i1, i2}, nil, nil, nil)
	if res.OK() || len(res.Diffs) != 1 {
		t.Errorf("output count mismatch not reported: %+v", res)
	}
}

func TestRandomArgs(t *testing.T) {
	var args []*hlo.Value
	for _, dt := range hlo.AllDTypes() {
		args = append(args, &hlo.Value{Type: hlo.NewTensorType(dt, 3, 2)})
	}
	f := &hlo.Func{Name: "main", Args: args}
	a1, err := RandomArgs(f, 7)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := RandomArgs(f, 7)
	a3, _ := RandomArgs(f, 8)
	same := 0
	for i := range a1 {
		if !a1[i].Equal(a2[i]) {
			t.Errorf("%v: not deterministic", a1[i].DType)
		}
		if a1[i].Equal(a3[i]) {
			same++
		}
		for j := 0; j < a1[i].NumElements(); j++ {
			if v := a1[i].Complex(j); math.IsNaN(real(v)) || math.Abs(real(v)) > 16 {
				t.Errorf("%v element %d = %v out of range", a1[i].DType, j, v)
			}
		}
	}
	if same > len(a1)/2 {
		t.Errorf("seeds 7 and 8 give the same arguments for %d of %d types", same, len(a1))
	}
	if _, err := RandomArgs(&hlo.Func{Args: []*hlo.Value{{Type: hlo.NewTensorType(hlo.F32, hlo.DynamicDim)}}}, 1); err == nil {
		t.Errorf("dynamic argument accepted")
	}
}
