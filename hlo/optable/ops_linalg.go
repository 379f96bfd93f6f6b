package optable

// Linear algebra, reductions, random numbers and normalization.
var linalgOps = []Op{
	{Name: "stablehlo.batch_norm_grad", Inherent: "epsilon feature_index", ResultNames: "grad_operand grad_scale grad_offset", Infer: "inferBatchNormGrad", Builder: "BatchNormGrad"},
	{Name: "stablehlo.batch_norm_inference", Inherent: "epsilon feature_index", Infer: "inferBatchNormInference", Builder: "BatchNormInference"},
	{Name: "stablehlo.batch_norm_training", Inherent: "epsilon feature_index", ResultNames: "output batch_mean batch_var", Infer: "inferBatchNormTraining", Builder: "BatchNormTraining"},
	{Name: "stablehlo.cholesky", Form: "$ [[ , lower = @lower:bool=false ]] attrs : T:same", Inherent: "lower", Infer: "inferCholesky", Builder: "Cholesky"},
	{Name: "stablehlo.convolution", Form: "( $$ ) dim_numbers = !convdims , window = { !window } attrs : T:fn", Inherent: "batch_group_count dimension_numbers feature_group_count lhs_dilation padding precision_config rhs_dilation window_reversal window_strides", Infer: "inferConvolution", Builder: "Convolution"},
	{Name: "stablehlo.dot", Form: "$ , $ ~ !precision attrs : T:fn", Inherent: "precision_config", Infer: "inferDot", Builder: "Dot"},
	{Name: "stablehlo.dot_general", Form: "$ , $ , !dotdims ~ !precalg attrs : T:fn", Inherent: "algorithm dot_dimension_numbers precision_config", Infer: "inferDotGeneral", Builder: "DotGeneral"},
	{Name: "stablehlo.dynamic_conv", Inherent: "batch_group_count dimension_numbers feature_group_count lhs_dilation precision_config rhs_dilation window_reversal window_strides", Infer: "inferDynamicConv"},
	{Name: "stablehlo.fft", Form: "$ , type = @fft_type:enum.fft_type , length = @fft_length:arr attrs : T:fn", Inherent: "fft_length fft_type", Infer: "inferFft", Builder: "Fft"},
	{Name: "stablehlo.map", Inherent: "dimensions", Infer: "inferMap", Builder: "Map"},
	{Name: "stablehlo.reduce", HandSyntax: "parse_custom.go, print_custom.go", Inherent: "dimensions", Infer: "inferReduce", Builder: "Reduce"},
	{Name: "stablehlo.reduce_window", Inherent: "base_dilations padding window_dilations window_dimensions window_strides", Infer: "inferReduceWindow", Builder: "ReduceWindow"},
	{Name: "stablehlo.rng", Form: "$ , $ , $ , distribution = @rng_distribution:enum.rng_distribution attrs : T:fn", Inherent: "rng_distribution", Infer: "inferRng", Builder: "Rng"},
	{Name: "stablehlo.rng_bit_generator", Form: "$ , algorithm = @rng_algorithm:enum.rng_algorithm attrs : T:fn", Inherent: "rng_algorithm", ResultNames: "output_state output", Infer: "inferRngBitGenerator", Builder: "RngBitGenerator"},
	{Name: "stablehlo.select_and_scatter", Inherent: "padding window_dimensions window_strides", Infer: "inferSelectAndScatter", Builder: "SelectAndScatter"},
	{Name: "stablehlo.sort", Inherent: "dimension is_stable", Infer: "inferSort", Builder: "Sort"},
	{Name: "stablehlo.triangular_solve", Inherent: "left_side lower transpose_a unit_diagonal", Infer: "inferTriangularSolve", Builder: "TriangularSolve"},
}
