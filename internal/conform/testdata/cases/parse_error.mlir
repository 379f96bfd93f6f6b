// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @broken() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.add %a, %a : tensor<2xi32
  func.return
}
