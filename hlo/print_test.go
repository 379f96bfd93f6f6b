package hlo

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintBuiltIR prints a module assembled in code (no names, no
// locations) and checks that it parses back to the same text.
func TestPrintBuiltIR(t *testing.T) {
	f32 := NewTensorType(F32, 2)
	x := &Value{Type: f32, Index: 0}
	c := NewOp("stablehlo.constant", nil, []Type{f32}, NamedAttr{"value", &DenseElementsAttr{Type: f32, Value: LiteralFromSlice([]float32{1, 2})}})
	add := NewOp("stablehlo.add", []*Value{x, c.Results[0]}, []Type{f32})
	cmp := NewOp("stablehlo.compare", []*Value{add.Results[0], x}, []Type{NewTensorType(Bool, 2)},
		NamedAttr{"comparison_direction", EnumOf("comparison_direction", "GE")})
	sel := NewOp("stablehlo.select", []*Value{cmp.Results[0], add.Results[0], x}, []Type{f32})
	ret := NewOp("func.return", []*Value{sel.Results[0]}, nil)
	body := &Region{Blocks: []*Block{{Args: []*Value{x}, Ops: []*Op{c, add, cmp, sel, ret}}}}
	m := &Module{Name: "built", Funcs: []*Func{{Name: "main", Visibility: "public", Args: []*Value{x}, ResultTypes: []Type{f32}, Body: body}}}
	got := m.String()
	want := `module @built {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
    %0 = stablehlo.add %arg0, %cst : tensor<2xf32>
    %1 = stablehlo.compare  GE, %0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %2 = stablehlo.select %1, %0, %arg0 : tensor<2xi1>, tensor<2xf32>
    return %2 : tensor<2xf32>
  }
}
`
	if got != want {
		t.Fatalf("printed\n%s\nwant\n%s", got, want)
	}
	m2, err := ParseModule("built.mlir", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if m2.String() != got {
		t.Error("printed built IR is not a fixed point")
	}
	var buf bytes.Buffer
	if err := Print(&buf, m); err != nil || buf.String() != got {
		t.Errorf("Print wrote %q, %v", buf.String(), err)
	}
	if s := m.Funcs[0].String(); !strings.HasPrefix(s, "func.func public @main(%arg0: tensor<2xf32>)") || !strings.HasSuffix(s, "}") {
		t.Errorf("Func.String:\n%s", s)
	}
}

// TestOpString prints single ops for messages.
func TestOpString(t *testing.T) {
	src := `func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
}`
	m, err := ParseModule("f.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ops := m.Funcs[0].Body.Blocks[0].Ops
	if got := OpString(ops[1]); got != "%0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>" {
		t.Errorf("OpString = %s", got)
	}
	if got := ops[0].String(); got != "%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>" {
		t.Errorf("Op.String = %s", got)
	}
	if ops[1].Loc.String() != "f.mlir:3:3" {
		t.Errorf("reduce loc %s", ops[1].Loc)
	}
	inner := ops[1].Regions[0].Blocks[0].Ops[0]
	if inner.Name != "stablehlo.add" || inner.Loc != ops[1].Loc {
		t.Errorf("compact reduce body op %s at %s", inner.Name, inner.Loc)
	}
}

// TestNames checks MLIR's value naming: sibling regions restart from the
// same counters, conflicting names get _N suffixes from one counter.
func TestNames(t *testing.T) {
	src := `func.func @f(%a: tensor<i32>) -> tensor<i32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %w = stablehlo.while(%i = %a) : tensor<i32>
   cond {
    %k = stablehlo.constant dense<9> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %s = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }
  func.return %w : tensor<i32>
}`
	m, err := ParseModule("n.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := m.String()
	for _, want := range []string{
		"%c = stablehlo.constant dense<1>",
		"%c_0 = stablehlo.constant dense<2>",
		"%0 = stablehlo.while(%iterArg = %arg0) : tensor<i32>",
		"%c_1 = stablehlo.constant dense<9>",
		"%1 = stablehlo.compare  LT, %iterArg, %c_1",
		"%1 = stablehlo.add %iterArg, %c : tensor<i32>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
