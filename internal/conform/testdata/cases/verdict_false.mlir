// RUN: stablehlo-opt -inline %s | stablehlo-translate --interpret

module @jit_main {
  func.func public @main() -> (tensor<i1>) {
    %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %1 = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
    %2 = stablehlo.custom_call @check.eq(%0, %1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
    return %2 : tensor<i1>
  }
}
