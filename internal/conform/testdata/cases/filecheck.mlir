// RUN: stablehlo-translate --interpret --split-input-file %s --args="[dense<[1, 2]> : tensor<2xi32>]" | FileCheck %s
// RUN: stablehlo-translate --interpret --interpreter-print-dense -split-input-file %s --args="[dense<[1, 2]> : tensor<2xi32>]" | FileCheck %s --check-prefix=DENSE
// RUN: not stablehlo-translate --interpret %s --args="oops" 2>&1 | FileCheck %s --check-prefix=ERR

// Both RUN lines pass the argument; each checks its own print format.
func.func @main(%arg0: tensor<2xi32>) -> (tensor<2xi32>, tensor<2x2xi32>) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xi32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<2xi32>) -> tensor<2x2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2x2xi32>
}
// CHECK:      tensor<2xi32> {
// CHECK-NEXT:   [2, 4]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2x2xi32> {
// CHECK-NEXT:   [
// CHECK-NEXT{LITERAL}: [2, 4],
// DENSE: dense<[2, 4]> : tensor<2xi32>
// DENSE-NEXT{LITERAL}: dense<[[2, 4], [2, 4]]> : tensor<2x2xi32>
// ERR: this diagnostic line is upstream's, not checked here

// -----

// The printed value is not what the directive says.
func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  return %arg0 : tensor<2xi32>
}
// CHECK:      tensor<2xi32> {
// CHECK-NEXT:   [1, 3]

// -----

// CHECK-DAG is outside the supported subset: the case stays skipped.
func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  return %arg0 : tensor<2xi32>
}
// CHECK:     tensor<2xi32>
// CHECK-DAG: {

// -----

// CHECK-LABEL, CHECK-SAME, CHECK-NOT and CHECK-COUNT.
func.func @main(%arg0: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  return %arg0, %arg0 : tensor<2xi32>, tensor<2xi32>
}
// CHECK-LABEL: tensor<2xi32>
// CHECK-SAME:  {
// CHECK-NOT:   [2, 1]
// CHECK-COUNT-2: [1, 2]
