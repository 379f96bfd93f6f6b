module @splats {
  func.func public @main(%arg0: tensor<2x2xf32>, %arg1: tensor<1xf32>) -> (tensor<2x2xf32>, tensor<f32>, tensor<f32>, tensor<1xf32>) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x2xf32>
    %0 = stablehlo.multiply %arg0, %cst : tensor<2x2xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<2x2xf32>
    %1 = stablehlo.add %0, %cst_0 : tensor<2x2xf32>
    %2 = stablehlo.reshape %arg1 : (tensor<1xf32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.add %2, %cst_1 : tensor<f32>
    %4 = stablehlo.reshape %arg0 : (tensor<2x2xf32>) -> tensor<4xf32>
    %5 = stablehlo.slice %4 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<1xf32>
    %6 = stablehlo.add %5, %cst_2 : tensor<1xf32>
    %cst_3 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    return %1, %3, %cst_3, %6 : tensor<2x2xf32>, tensor<f32>, tensor<f32>, tensor<1xf32>
  }
}
