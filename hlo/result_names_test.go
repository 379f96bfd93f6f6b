package hlo

import "testing"

// ResultNames gives the left side of an op's printed line, nested ops and
// other functions' numbering included.
func TestResultNames(t *testing.T) {
	m, err := ParseModule("names.mlir", []byte(`
func.func @f(%a: tensor<i64>) -> tensor<i64> {
  %c = stablehlo.constant dense<1> : tensor<i64>
  %x = stablehlo.add %a, %c : tensor<i64>
  %w:2 = stablehlo.while(%i = %x, %s = %x) : tensor<i64>, tensor<i64>
  cond {
    %t = stablehlo.compare LT, %i, %s : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return %i, %s : tensor<i64>, tensor<i64>
  }
  return %w#0 : tensor<i64>
}
func.func @g() -> tensor<i64> {
  %y = stablehlo.constant dense<2.0> : tensor<f32>
  %z = stablehlo.iota dim = 0 : tensor<3xi64>
  %c = stablehlo.constant dense<2> : tensor<i64>
  return %c : tensor<i64>
}`))
	if err != nil {
		t.Fatal(err)
	}
	f, g := m.Funcs[0], m.Funcs[1]
	ops := f.Body.Blocks[0].Ops
	cmp := ops[2].Regions[0].Blocks[0].Ops[0]
	for _, c := range []struct {
		f    *Func
		op   *Op
		want string
	}{
		{f, ops[0], "%c"},
		{f, ops[1], "%0"},
		{f, ops[2], "%1:2"},
		{f, cmp, "%2"},
		{f, ops[3], ""}, // func.return has no results
		{g, ops[1], ""}, // not in g
		{g, g.Body.Blocks[0].Ops[0], "%cst"},
		{g, g.Body.Blocks[0].Ops[1], "%0"},
		{g, g.Body.Blocks[0].Ops[2], "%c"},
	} {
		if got := c.f.ResultNames(c.op); got != c.want {
			t.Errorf("@%s %s: got %q, want %q", c.f.Name, c.op.Name, got, c.want)
		}
	}
}
