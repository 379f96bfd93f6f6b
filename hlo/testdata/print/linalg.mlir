// Pretty forms with custom directives, and ops MLIR prints generically.
func.func @linalg(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x5xf32>, %img: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x16xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %lhs, %rhs, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = "stablehlo.dot_general"(%lhs, %rhs) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %2 = stablehlo.convolution(%img, %k)
    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {stride = [2, 2], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [0, 1]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}
    : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x4x3x16xf32>
  %3 = "stablehlo.convolution"(%img, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>
  %4 = stablehlo.transpose %0, dims = [0, 2, 1] : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32>
  %5 = stablehlo.slice %lhs [0:2, 1:3:2, 0:4] : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %7 = stablehlo.reshape %6 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %8 = stablehlo.concatenate %7, %7, dim = 0 : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<12x4xf32>
  %pv = stablehlo.constant dense<0.0> : tensor<f32>
  %9 = stablehlo.pad %8, %pv, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<12x4xf32>, tensor<f32>) -> tensor<13x5xf32>
  %10 = stablehlo.reverse %9, dims = [1] : tensor<13x5xf32>
  %i = stablehlo.constant dense<1> : tensor<i32>
  %11 = stablehlo.dynamic_slice %10, %i, %i, sizes = [2, 2] : (tensor<13x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %12 = stablehlo.dynamic_update_slice %10, %11, %i, %i : (tensor<13x5xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<13x5xf32>
  %c = stablehlo.convert %12 : (tensor<13x5xf32>) -> tensor<13x5xcomplex<f32>>
  %13 = stablehlo.fft %c, type = FFT, length = [5] : (tensor<13x5xcomplex<f32>>) -> tensor<13x5xcomplex<f32>>
  %idx = stablehlo.constant dense<[[0], [2]]> : tensor<2x1xi64>
  %14 = "stablehlo.gather"(%10, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 5>, indices_are_sorted = false} : (tensor<13x5xf32>, tensor<2x1xi64>) -> tensor<2x5xf32>
  %15 = "stablehlo.scatter"(%10, %idx, %14) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<13x5xf32>, tensor<2x1xi64>, tensor<2x5xf32>) -> tensor<13x5xf32>
  %sq = stablehlo.slice %15 [0:5, 0:5] : (tensor<13x5xf32>) -> tensor<5x5xf32>
  %16 = stablehlo.cholesky %sq, lower = true : tensor<5x5xf32>
  %17 = "stablehlo.triangular_solve"(%16, %sq) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  %state = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %18:2 = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %19 = stablehlo.dot %sq, %17, precision = [DEFAULT, DEFAULT] : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  return %0 : tensor<2x3x5xf32>
}
