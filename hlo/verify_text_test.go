package hlo

import (
	"strings"
	"testing"
)

// Hand-written invalid modules: Verify must reject each with an error at
// the op's source position.
func TestVerifyInvalidText(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"result type", `
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "stablehlo.add"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}`, "t.mlir:3:3: stablehlo.add: result #0 has type tensor<3x2xf32>, inferred tensor<2x3xf32> from operands (tensor<2x3xf32>, tensor<2x3xf32>)"},
		{"operand types", `
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.multiply"(%a, %b) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}`, "t.mlir:3:3: stablehlo.multiply: operand types tensor<2x3xf32> and tensor<3x2xf32> differ"},
		{"return type", `
func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {
  return %a : tensor<2xf32>
}`, "t.mlir:3:3: func.return types (tensor<2xf32>) differ from the result types (tensor<2xi32>) of @main"},
		{"reduce body", `
func.func @main(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.convert"(%x) : (tensor<f32>) -> tensor<i32>
    "stablehlo.return"(%c) : (tensor<i32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}`, "t.mlir:3:3: stablehlo.reduce: body region returns tensor<i32> as result #0, want tensor<f32>"},
		{"while cond", `
func.func @main(%i: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.while"(%i) ({
  ^bb0(%x: tensor<i32>):
    "stablehlo.return"(%x) : (tensor<i32>) -> ()
  }, {
  ^bb0(%x: tensor<i32>):
    "stablehlo.return"(%x) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}`, "t.mlir:3:3: stablehlo.while: cond region returns (tensor<i32>), want (tensor<i1>)"},
		{"dot_general", `
func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}`, "t.mlir:3:3: stablehlo.dot_general: contracting dimension sizes differ: tensor<2x3xf32> dimension 1 is 3, tensor<4x5xf32> dimension 0 is 4"},
		{"transpose", `
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %a, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}`, "t.mlir:3:3: stablehlo.transpose: permutation [1, 1]: 1 repeats"},
		{"broadcast", `
func.func @main(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}`, "t.mlir:3:3: stablehlo.broadcast_in_dim: operand tensor<3xf32> dimension 0 (size 3) cannot broadcast to result tensor<2x4xf32> dimension 1 (size 4)"},
		{"if branches", `
func.func @main(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%a) : (tensor<2xf32>) -> ()
  }, {
    "stablehlo.return"(%b) : (tensor<3xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}`, "t.mlir:3:3: stablehlo.if: false_branch region returns (tensor<3xf32>), want (tensor<2xf32>)"},
		{"sort comparator", `
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:3:3: stablehlo.sort: comparator region returns (tensor<f32>), want (tensor<i1>)"},
		{"call signature", `
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @main(%a: tensor<3xf32>) -> tensor<2xf32> {
  %0 = func.call @g(%a) : (tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}`, "t.mlir:6:3: func.call: operand types (tensor<3xf32>) do not match the arguments (tensor<2xf32>) of callee @g"},
		{"gather", `
func.func @main(%a: tensor<5x4xf32>, %i: tensor<3x1xi32>) -> tensor<3x4xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 4>} : (tensor<5x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}`, "t.mlir:3:3: stablehlo.gather: slice_sizes [2, 4]: collapsed or batching dimension 0 has size 2, want <= 1"},
		{"region escape", `
func.func @main(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %1 = stablehlo.add %0, %s : tensor<f32>
  return %1 : tensor<f32>
}`, "t.mlir:8:"},
	}
	for _, c := range cases {
		m, err := ParseModule("t.mlir", []byte(c.src))
		if err == nil {
			err = Verify(m)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
