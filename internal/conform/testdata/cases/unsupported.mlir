// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @needs_unknown_op() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = "xlajit_test.no_such_op"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %b, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}
