package hlo

import (
	"errors"
	"strings"
	"testing"
)

// validModule builds a small valid module: main(x, y) with a reduce, a
// while loop and a call of a helper.
func validModule(t *testing.T) *Module {
	t.Helper()
	b := NewBuilder("m")
	b.SetLocations(false)
	h := b.Func("helper").Private()
	ha := h.Arg(tf32(2))
	h.Return(h.Neg(ha))
	f := b.Func("main")
	x := f.Arg(tf32(2))
	y := f.Arg(tf32(2))
	s := f.Add(x, y)
	r := f.Reduce([]*Value{s}, []*Value{f.ConstantScalar(F32, 0)}, []int64{0}, sumBody)
	w := f.While([]*Value{s}, func(sc *Scope, a []*Value) *Value {
		return sc.Compare(CmpLT, sc.Reduce(a, []*Value{sc.ConstantScalar(F32, 0)}, []int64{0}, sumBody)[0], sc.ConstantScalar(F32, 10))
	}, func(sc *Scope, a []*Value) []*Value { return []*Value{sc.Add(a[0], y)} })
	c := f.Call(h, w[0])
	f.Return(r[0], c[0])
	return mustBuild(t, b)
}

// findOp returns the first op called name in f (depth first).
func findOp(f *Func, name string) *Op {
	var found *Op
	f.Body.Walk(func(op *Op) bool {
		if op.Name == name {
			found = op
			return false
		}
		return true
	})
	return found
}

func verifyErrs(m *Module) []string {
	err := Verify(m)
	if err == nil {
		return nil
	}
	var ve VerifyErrors
	if !errors.As(err, &ve) {
		return []string{"not VerifyErrors: " + err.Error()}
	}
	var out []string
	for _, e := range ve {
		out = append(out, e.Error())
	}
	return out
}

func TestVerifyValid(t *testing.T) {
	if errs := verifyErrs(validModule(t)); errs != nil {
		t.Fatalf("valid module rejected: %v", errs)
	}
}

func TestVerifyInvalid(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(m *Module)
		want   string
	}{
		{"result type", func(m *Module) {
			findOp(m.Func("main"), "stablehlo.add").Results[0].Type = tf32(3)
		}, "stablehlo.add: result #0 has type tensor<3xf32>, inferred tensor<2xf32> from operands (tensor<2xf32>, tensor<2xf32>)"},
		{"use before def", func(m *Module) {
			body := m.Func("main").Body.Blocks[0]
			body.Ops[0], body.Ops[1] = body.Ops[1], body.Ops[0] // constant and add swap: fine
			add := findOp(m.Func("main"), "stablehlo.add")
			neg := NewOp("stablehlo.negate", []*Value{add.Results[0]}, []Type{tf32(2)})
			neg.Loc = Loc{File: "x.mlir", Line: 7, Col: 3}
			body.Ops = append([]*Op{neg}, body.Ops...)
		}, "x.mlir:7:3: stablehlo.negate: operand #0 (result #0 of stablehlo.add) is used before its definition or outside its scope"},
		{"other function value", func(m *Module) {
			ret := m.Func("main").Body.Blocks[0].Ops
			last := ret[len(ret)-1]
			last.Operands[1] = m.Func("helper").Args[0]
		}, "func.return: operand #1 (block argument #0) is used before its definition or outside its scope"},
		{"region value outside", func(m *Module) {
			red := findOp(m.Func("main"), "stablehlo.reduce")
			inner := red.Regions[0].Blocks[0].Ops[0].Results[0]
			ret := m.Func("main").Body.Blocks[0].Ops
			ret[len(ret)-1].Operands[0] = inner
		}, "func.return: operand #0 (result #0 of stablehlo.add) is used before its definition or outside its scope"},
		{"return types", func(m *Module) {
			m.Func("main").ResultTypes[1] = tf32(3)
		}, "func.return types (tensor<f32>, tensor<2xf32>) differ from the result types (tensor<f32>, tensor<3xf32>) of @main"},
		{"missing terminator", func(m *Module) {
			b := m.Func("helper").Body.Blocks[0]
			b.Ops = b.Ops[:len(b.Ops)-1]
		}, "@helper: function @helper ends with stablehlo.negate, want func.return"},
		{"stablehlo.return in func", func(m *Module) {
			b := m.Func("helper").Body.Blocks[0]
			b.Ops[len(b.Ops)-1].Name = "stablehlo.return"
		}, "stablehlo.return outside the region of a stablehlo op"},
		{"terminator in middle", func(m *Module) {
			b := m.Func("helper").Body.Blocks[0]
			b.Ops = append([]*Op{NewOp("func.return", nil, nil)}, b.Ops...)
		}, "func.return must be the last op of its block"},
		{"reduce body type", func(m *Module) {
			red := findOp(m.Func("main"), "stablehlo.reduce")
			red.Regions[0].Blocks[0].Args[0].Type = tf32(1)
		}, "stablehlo.reduce: body region arguments #0 and #1 are tensor<1xf32> and tensor<f32>, want 0-d tensors"},
		{"while cond type", func(m *Module) {
			w := findOp(m.Func("main"), "stablehlo.while")
			cmp := findOp(&Func{Body: w.Regions[0]}, "stablehlo.compare")
			cmp.Results[0].Type = NewTensorType(I32)
		}, "stablehlo.while: cond region returns (tensor<i32>), want (tensor<i1>)"},
		{"region terminator", func(m *Module) {
			w := findOp(m.Func("main"), "stablehlo.while")
			ops := w.Regions[1].Blocks[0].Ops
			ops[len(ops)-1].Name = "func.return"
		}, "func.return outside a function body"},
		{"callee missing", func(m *Module) {
			findOp(m.Func("main"), "func.call").SetAttr("callee", SymbolRefAttr{Name: "nope"})
		}, "func.call: callee @nope is not a function of this module"},
		{"call signature", func(m *Module) {
			m.Func("helper").Args[0].Type = tf32(4)
		}, "func.call: operand types (tensor<2xf32>) do not match the arguments (tensor<4xf32>) of callee @helper"},
		{"unknown op", func(m *Module) {
			findOp(m.Func("main"), "stablehlo.add").Name = "stablehlo.plus"
		}, "stablehlo.plus: unknown op"},
		{"result count", func(m *Module) {
			add := findOp(m.Func("main"), "stablehlo.add")
			add.Results = append(add.Results, &Value{Type: tf32(2), Def: add, Index: 1})
		}, "stablehlo.add: op has 2 results, want 1 (tensor<2xf32>)"},
		{"duplicate function", func(m *Module) {
			m.Funcs = append(m.Funcs, m.Func("helper"))
		}, "function @helper is defined twice"},
		{"called computation", func(m *Module) {
			f := m.Func("main")
			cc := NewOp("stablehlo.custom_call", nil, nil, NamedAttr{"call_target_name", StringAttr("t")},
				NamedAttr{"called_computations", ArrayAttr{SymbolRefAttr{Name: "gone"}}})
			f.Body.Blocks[0].Ops = append([]*Op{cc}, f.Body.Blocks[0].Ops...)
		}, "stablehlo.custom_call: called computation @gone is not a function of this module"},
		{"result size", func(m *Module) {
			findOp(m.Func("main"), "stablehlo.add").Results[0].Type = tf32(1<<32, 1<<32, 16)
		}, "stablehlo.add: result #0: tensor<4294967296x4294967296x16xf32>: element count overflows int64"},
		{"argument size", func(m *Module) {
			m.Func("helper").Args[0].Type = NewTensorType(F64, 1<<61)
		}, "function @helper argument #0: tensor<2305843009213693952xf64>: byte size overflows int64"},
		{"missing operand", func(m *Module) {
			findOp(m.Func("main"), "stablehlo.add").Operands[1] = nil
		}, "stablehlo.add: operand #1 is missing"},
	}
	for _, c := range cases {
		m := validModule(t)
		c.mutate(m)
		errs := verifyErrs(m)
		found := false
		for _, e := range errs {
			found = found || strings.Contains(e, c.want)
		}
		if !found {
			t.Errorf("%s: errors %q do not include %q", c.name, errs, c.want)
		}
	}
}

func TestVerifyCollectsAll(t *testing.T) {
	m := validModule(t)
	findOp(m.Func("main"), "stablehlo.add").Results[0].Type = tf32(3)
	findOp(m.Func("helper"), "stablehlo.negate").Results[0].Type = tf32(5)
	errs := verifyErrs(m)
	if len(errs) < 3 { // add, negate, helper's return, ...
		t.Fatalf("got %d errors: %q", len(errs), errs)
	}
}

func TestVerifyDynamicAndForeign(t *testing.T) {
	b := NewBuilder("m")
	f := b.Func("main")
	x := f.Arg(NewTensorType(F32, DynamicDim, 3))
	y := f.Add(x, x)
	// A declared static result is compatible with an inferred dynamic one.
	y.Type = tf32(4, 3)
	z := f.Op("chlo.whatever", []*Value{y}, nil, NewTensorType(I8, 1))
	f.Return(y, z[0])
	if _, err := b.Build(); err != nil {
		t.Fatalf("Build: %v", err)
	}
	// Foreign ops are still checked for SSA.
	m := b.Module()
	z[0].Def.Operands[0] = &Value{Type: tf32(4, 3), Name: "ghost"}
	if err := Verify(m); err == nil || !strings.Contains(err.Error(), "chlo.whatever: operand #0 %ghost is used before its definition") {
		t.Errorf("got %v", err)
	}
}
