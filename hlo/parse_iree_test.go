package hlo

import (
	"strings"
	"testing"
)

// IREE's test helpers and check dialect parse into the ops parse_iree.go
// describes and print back as written.
func TestParseIREEForms(t *testing.T) {
	src := `func.func @t(%arg0: tensor<2xf32>, %arg1: i32) {
  %0 = util.unfoldable_constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %1 = util.unfoldable_constant 1 : i32
  %2 = arith.constant 2.500000e+00 : f32
  %3 = arith.constant dense<3> : tensor<i32>
  %4 = util.unfoldable_constant true
  %5:2 = util.optimization_barrier %0, %3 : tensor<2xf32>, tensor<i32>
  %6 = flow.tensor.dynamic_constant dense<[1, 2]> : tensor<2xi32> -> tensor<?xi32>
  %7 = tensor.cast %6 : tensor<?xi32> to tensor<2xi32>
  check.expect_true(%1) : i32
  check.expect_false(%arg1) : i32
  check.expect_all_true(%7) : tensor<2xi32>
  check.expect_eq(%5#0, %arg0) : tensor<2xf32>
  check.expect_eq_const(%7, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  check.expect_almost_eq(%0, %arg0) : tensor<2xf32>
  check.expect_almost_eq(%0, %arg0, atol 1.000000e-02) : tensor<2xf32>
  check.expect_almost_eq_const(%0, dense<1.000000e+00> : tensor<2xf32>, atol 0.000000e+00, rtol 1.000000e-03) : tensor<2xf32>
  check.expect_eq %0, %arg0 : tensor<2xf32>
  return
}
`
	m, err := ParseModule("t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ops := m.Funcs[0].Body.Blocks[0].Ops
	var names []string
	for _, op := range ops {
		names = append(names, op.Name)
	}
	want := "util.unfoldable_constant util.unfoldable_constant arith.constant arith.constant util.unfoldable_constant " +
		"util.optimization_barrier flow.tensor.dynamic_constant tensor.cast iree_check.expect_true iree_check.expect_false " +
		"iree_check.expect_all_true iree_check.expect_eq iree_check.expect_eq_const iree_check.expect_almost_eq " +
		"iree_check.expect_almost_eq iree_check.expect_almost_eq_const check.expect_eq func.return"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("ops\n got %s\nwant %s", got, want)
	}
	for i, typ := range map[int]string{0: "tensor<2xf32>", 1: "i32", 2: "f32", 3: "tensor<i32>", 4: "i1", 6: "tensor<?xi32>", 7: "tensor<2xi32>"} {
		if got := ops[i].Results[0].Type.String(); got != typ {
			t.Errorf("op %d (%s): result type %s, want %s", i, ops[i].Name, got, typ)
		}
	}
	if a, ok := AttrFloat(ops[15].Attr("rtol")); !ok || a != 1e-3 {
		t.Errorf("rtol %v", ops[15].Attr("rtol"))
	}
	if ops[13].Attr("atol") != nil || ops[14].Attr("atol") == nil {
		t.Errorf("atol given only where written: %v %v", ops[13].Attr("atol"), ops[14].Attr("atol"))
	}
	if len(ops[5].Results) != 2 || len(ops[5].Operands) != 2 {
		t.Errorf("barrier: %d results, %d operands", len(ops[5].Results), len(ops[5].Operands))
	}
	// Printing gives the source back, and it parses to the same ops.
	printed := m.String()
	for _, line := range strings.Split(strings.TrimSpace(src), "\n")[1:] {
		if line = strings.TrimSpace(line); line != "}" && !strings.Contains(printed, line) {
			t.Errorf("printed text lacks %q:\n%s", line, printed)
		}
	}
	m2, err := ParseModule("re.mlir", []byte(printed))
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	if m2.String() != printed {
		t.Errorf("second print differs:\n%s\n%s", printed, m2.String())
	}
}

func TestParseIREEErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"func.func @f(%a: tensor<2xi32>) {\n  check.expect_eq<%a>(%a, %a) : tensor<2xi32>\n  return\n}",
			"e.mlir:2:18: check.expect_eq with a device operand (<%device>) is not supported"},
		{"func.func @f(%a: tensor<2xf32>) {\n  check.expect_almost_eq(%a, %a, rtol 1.0) : tensor<2xf32>\n  return\n}",
			"e.mlir:2:34: expected 'atol'"},
		{"func.func @f() {\n  %0 = util.unfoldable_constant \"x\"\n  return\n}",
			"e.mlir:2:33: util.unfoldable_constant needs a dense elements value or a typed scalar"},
		{"func.func @f(%a: tensor<2xi32>) {\n  check.expect_eq(%a, %a) : tensor<3xi32>\n  return\n}",
			"e.mlir:2:19: "},
		{"func.func @f(%a: tensor<2xi32>) {\n  %0 = tensor.cast %a : tensor<2xi32> into tensor<2xi32>\n  return\n}",
			"e.mlir:2:39: expected 'to'"},
	} {
		_, err := ParseModule("e.mlir", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.src, err, c.want)
		}
	}
}
