package linalg_test

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// runText parses and runs a module whose entry takes no arguments.
func runText(t *testing.T, src string) []kernel.Value {
	t.Helper()
	m, err := hlo.ParseModule("test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, err := host.Compile(m)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	res, err := p.Run(nil, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// The attribute spellings the parser produces reach the kernels: the
// pretty dot_general form with an algorithm, and convolution's window
// syntax.
func TestParsedForms(t *testing.T) {
	res := runText(t, `
func.func @main() -> tensor<2x2xf32> {
  %a = stablehlo.constant dense<[[1.00390625, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT],
    algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
    : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}`)
	// 1.00390625 is not a bf16 value: rounded to 1.0 (ties to even).
	if got := res[0].(*hlo.Literal).F32(); got[0] != 1 || got[1] != 2 || got[3] != 4 {
		t.Fatalf("bf16 algorithm: got %v", got)
	}
	res = runText(t, `
func.func @main() -> tensor<1x2x2x1xi64> {
  %lhs = stablehlo.constant dense<[[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]], [[12], [13], [16], [17]]]]> : tensor<1x4x4x1xi64>
  %rhs = stablehlo.constant dense<1> : tensor<3x3x1x1xi64>
  %r = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {stride = [4, 4], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
    : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  return %r : tensor<1x2x2x1xi64>
}`)
	want := []int64{1, 5, 10, 14}
	got := res[0].(*hlo.Literal).I64()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("convolution: got %v, want %v", got, want)
		}
	}
}
