// RUN: stablehlo-translate --interpret %s | FileCheck %s

// Verified by FileCheck on the interpreter's output, not by check ops.
func.func @printed() -> tensor<2xi32> {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  func.return %a : tensor<2xi32>
}

// CHECK: tensor<2xi32> {
// CHECK-NEXT:   [1, 2]
// CHECK-NEXT: }
