package hlo_test

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// The verifier reuses its type lists from op to op: an op without results
// still declares an empty list (custom_call, whose results cannot be
// inferred, needs it), first in a function or after ops that had results.
func TestVerifyOpWithoutResults(t *testing.T) {
	src := `func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  stablehlo.custom_call @first(%a) {has_side_effect = true} : (tensor<2xf32>) -> ()
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  stablehlo.custom_call @side_effect(%0) {has_side_effect = true} : (tensor<2xf32>) -> ()
  "stablehlo.custom_call"(%0) {call_target_name = "other", has_side_effect = true} : (tensor<2xf32>) -> ()
  return %0 : tensor<2xf32>
}
`
	m, err := hlo.ParseModule("t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}
