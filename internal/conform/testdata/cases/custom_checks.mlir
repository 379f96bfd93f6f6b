// RUN: stablehlo-opt -inline %s | stablehlo-translate --interpret

module @jit_main {
  func.func public @main() -> (tensor<i1>) {
    %0 = call @inputs() : () -> tensor<2xf32>
    %1 = call @expected() : () -> tensor<2xf32>
    %2 = stablehlo.negate %0 : tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    %3 = stablehlo.custom_call @check.eq(%2, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
    return %3 : tensor<i1>
  }
  func.func private @inputs() -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
  func.func private @expected() -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[-1.5, 2.0]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
}
