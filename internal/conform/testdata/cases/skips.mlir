// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @quantized() {
  %a = stablehlo.constant() {value = dense<[1, 2]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  %b = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2xf32>
  check.expect_almost_eq_const %b, dense<[0.5, 1.0]> : tensor<2xf32>
  func.return
}

// -----

// A round-trip program: dynamic argument dimensions and no check op.
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @probed() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %p = interpreter.probe %a, probe_id = "a" : tensor<2xi32>
  func.return
}
