// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @wrong_sum() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %c = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %c, dense<[2, 5]> : tensor<2xi32>
  func.return
}
