// RUN: iree-run-mlir --Xcompiler,iree-flow-trace-dispatch-tensors %s | FileCheck %s

// An option that changes what iree-run-mlir prints is not reproduced: the
// case is skipped, naming it.
func.func @traced() -> tensor<2xf32> {
  %x = util.unfoldable_constant dense<1.0> : tensor<2xf32>
  return %x : tensor<2xf32>
}
// CHECK: EXEC @traced
