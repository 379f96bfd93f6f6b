// RUN: stablehlo-translate --interpret -split-input-file %s

// Quantized types run: a quantized dot_general (0.5*0.5 + 1.0*1.0 = 1.25,
// 10 in the i32 result's storage at scale 0.125), dequantized for the check.
func.func @quantized() {
  %a = stablehlo.constant() {value = dense<[[1, 2]]> : tensor<1x2xi8>} : () -> tensor<1x2x!quant.uniform<i8:f32, 0.5:0>>
  %b = stablehlo.constant() {value = dense<[[2], [4]]> : tensor<2x1xi8>} : () -> tensor<2x1x!quant.uniform<i8:f32, 0.25:0>>
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x1x!quant.uniform<i8:f32, 0.25:0>>) -> tensor<1x1x!quant.uniform<i32:f32, 0.125:0>>
  %f = stablehlo.uniform_dequantize %d : (tensor<1x1x!quant.uniform<i32:f32, 0.125:0>>) -> tensor<1x1xf32>
  check.expect_almost_eq_const %f, dense<1.25> : tensor<1x1xf32>
  func.return
}
