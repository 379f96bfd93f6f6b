// Bare functions (an anonymous module), pretty elementwise forms and the
// dense literal spellings MLIR accepts.
func.func @literals() -> (tensor<3xf32>, tensor<2x2xi8>) {
  %splat = stablehlo.constant dense<1.5> : tensor<2x3xf32>
  %nested = stablehlo.constant dense<[[1, -2], [127, -128]]> : tensor<2x2xi8>
  %bits = stablehlo.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
  %round = stablehlo.constant dense<[0.1, 3.40282347E+38, 1.0e-45, 123456789.0]> : tensor<4xf32>
  %f16 = stablehlo.constant dense<[1.0, 65504.0, 0.333333343, -0.0]> : tensor<4xf16>
  %bf16 = stablehlo.constant dense<[1.0, 3.14159274, 0x7F80]> : tensor<3xbf16>
  %f8 = stablehlo.constant dense<[0.1, 448.0, -2.5]> : tensor<3xf8E4M3FN>
  %f4 = stablehlo.constant dense<[0.5, 6.0, -1.5]> : tensor<3xf4E2M1FN>
  %bools = stablehlo.constant dense<[true, false, 1, 0]> : tensor<4xi1>
  %i4 = stablehlo.constant dense<[-8, 7, -1]> : tensor<3xi4>
  %u64 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %complex = stablehlo.constant dense<[(1.0, -2.5), (0x7FC00000, 0.0)]> : tensor<2xcomplex<f32>>
  %empty = stablehlo.constant dense<> : tensor<0x3xf32>
  %hexsplat = stablehlo.constant dense<"0x0000803F"> : tensor<2x2xf32>
  %f64 = stablehlo.constant dense<0.1> : tensor<f64>
  %x = stablehlo.add %bits, %bits : tensor<3xf32>
  %y = stablehlo.convert %nested : (tensor<2x2xi8>) -> tensor<2x2xf32>
  func.return %x, %nested : tensor<3xf32>, tensor<2x2xi8>
}

func.func private @ops(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<4xi1>) -> tensor<4xf32> {
  %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.compare EQ, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  %3 = stablehlo.clamp %a, %b, %a : tensor<4xf32>
  %4 = stablehlo.exponential %2 {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : tensor<4xf32>
  %5 = stablehlo.tanh %4 {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  %6 = stablehlo.reduce_precision %5, format = e5m2 : tensor<4xf32>
  %7 = stablehlo.bitcast_convert %6 : (tensor<4xf32>) -> tensor<4xi32>
  %8 = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>
  %9 = stablehlo.real %8 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %10 = stablehlo.is_finite %9 : (tensor<4xf32>) -> tensor<4xi1>
  %11 = stablehlo.not %10 : tensor<4xi1>
  %12 = "stablehlo.multiply"(%9, %3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %13 = stablehlo.power %12, %b : tensor<4xf32>
  %14 = stablehlo.atan2 %13, %a : tensor<4xf32>
  %15 = stablehlo.count_leading_zeros %7 : tensor<4xi32>
  %16 = stablehlo.shift_right_logical %15, %7 : tensor<4xi32>
  return %14 : tensor<4xf32>
}
