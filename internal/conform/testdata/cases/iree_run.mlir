// RUN: iree-run-mlir --Xcompiler,iree-input-type=stablehlo --Xcompiler,iree-hal-target-device=local %s --input="2x3xf32=[1 2 3][4 5 6]" --input=3 | FileCheck %s
// RUN: (iree-run-mlir --function=column_sums %s --input="2x3xf32=1" --input=0) | FileCheck %s --check-prefix=ONE

// Every exported function runs with all the inputs, in file order; the
// output is checked by FileCheck.
func.func @doubled(%x: tensor<2x3xf32>, %k: i32) -> (tensor<2x3xf32>, i32) {
  %b = util.optimization_barrier %x : tensor<2x3xf32>
  %d = tensor.cast %b : tensor<2x3xf32> to tensor<?x3xf32>
  %s = stablehlo.add %d, %d : tensor<?x3xf32>
  %c = tensor.cast %s : tensor<?x3xf32> to tensor<2x3xf32>
  check.expect_true(%k) : i32
  return %c, %k : tensor<2x3xf32>, i32
}
// CHECK-LABEL: EXEC @doubled
// CHECK-NEXT:  result[0]: hal.buffer_view
// CHECK-NEXT:  2x3xf32=[2 4 6][8 10 12]
// CHECK-NEXT:  result[1]: i32=3

func.func @column_sums(%x: tensor<?x3xf32>, %k: i32) -> tensor<3xf32> {
  %z = arith.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
// CHECK-LABEL: EXEC @column_sums
// CHECK:       3xf32=5 7 9
// ONE-NOT:     EXEC @doubled
// ONE:         EXEC @column_sums
// ONE-NEXT:    result[0]: hal.buffer_view
// ONE-NEXT:    3xf32=2 2 2

func.func private @not_exported(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}
