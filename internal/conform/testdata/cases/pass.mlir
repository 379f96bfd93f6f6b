// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @add_checks() {
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %c = stablehlo.add %a, %b : tensor<3xi32>
  check.expect_eq_const %c, dense<[11, 22, 33]> : tensor<3xi32>
  func.return
}

// -----

// A case without checks passes when it runs; the entry is @main because
// there are several functions.
func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.add %x, %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

func.func @main() -> tensor<2xf32> {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
