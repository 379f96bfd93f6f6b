package optable

// Shape and data-movement ops.
var shapeOps = []Op{
	{Name: "stablehlo.broadcast", Form: "$ , sizes = @broadcast_sizes:arr attrs : T:fn", Inherent: "broadcast_sizes", Infer: "inferBroadcast"},
	{Name: "stablehlo.broadcast_in_dim", Form: "$ , dims = @broadcast_dimensions:arr attrs : T:fn", Inherent: "broadcast_dimensions", Infer: "inferBroadcastInDim", Builder: "BroadcastInDim"},
	{Name: "stablehlo.concatenate", Form: "$$, dim = @dimension:i64 attrs : T:fn", Inherent: "dimension", Infer: "inferConcatenate", Builder: "Concatenate"},
	{Name: "stablehlo.constant", HandSyntax: "parse_custom.go, print_custom.go", Inherent: "value", Infer: "inferConstant", Builder: "Constant"},
	{Name: "stablehlo.dynamic_broadcast_in_dim", Form: "$ , $ , dims = @broadcast_dimensions:arr attrs : T:fn", Inherent: "broadcast_dimensions known_expanding_dimensions known_nonexpanding_dimensions", Infer: "inferDynamicBroadcastInDim"},
	{Name: "stablehlo.dynamic_gather", Inherent: "dimension_numbers indices_are_sorted", Infer: "inferDynamicGather"},
	{Name: "stablehlo.dynamic_iota", Form: "$ , dim = @iota_dimension:i64 attrs : T:fn", Inherent: "iota_dimension", Infer: "inferDynamicIota"},
	{Name: "stablehlo.dynamic_pad", Form: FormFn, Infer: "inferDynamicPad"},
	{Name: "stablehlo.dynamic_reshape", Form: FormFn, Infer: "inferDynamicReshape"},
	{Name: "stablehlo.dynamic_slice", Form: "$ , $$, sizes = @slice_sizes:arr attrs : T:fn", Inherent: "slice_sizes", Infer: "inferDynamicSlice", Builder: "DynamicSlice"},
	{Name: "stablehlo.dynamic_update_slice", Form: FormFn, Infer: "inferDynamicUpdateSlice", Builder: "DynamicUpdateSlice"},
	{Name: "stablehlo.gather", Inherent: "dimension_numbers indices_are_sorted slice_sizes", Infer: "inferGather", Builder: "Gather"},
	{Name: "stablehlo.get_dimension_size", Form: "$ , dim = @dimension:i64 attrs : T:fn", Inherent: "dimension", Infer: "inferGetDimensionSize", Builder: "GetDimensionSize"},
	{Name: "stablehlo.iota", Form: "dim = @iota_dimension:i64 attrs : r0", Inherent: "iota_dimension", Infer: "inferIota", Builder: "Iota"},
	{Name: "stablehlo.pad", Form: "$ , $ , low = @edge_padding_low:arr , high = @edge_padding_high:arr , interior = @interior_padding:arr attrs : T:fn", Inherent: "edge_padding_high edge_padding_low interior_padding", Infer: "inferPad", Builder: "Pad"},
	{Name: "stablehlo.real_dynamic_slice", Form: FormFn, Infer: "inferRealDynamicSlice"},
	{Name: "stablehlo.reshape", Form: FormFn, Infer: "inferReshape", Builder: "Reshape"},
	{Name: "stablehlo.reverse", Form: "$ , dims = @dimensions:arr attrs : T:same", Inherent: "dimensions", Infer: "inferReverse", Builder: "Reverse"},
	{Name: "stablehlo.scatter", Inherent: "indices_are_sorted scatter_dimension_numbers unique_indices", Infer: "inferScatter", Builder: "Scatter"},
	{Name: "stablehlo.set_dimension_size", Form: "$ , $ , dim = @dimension:i64 attrs : T:fn", Inherent: "dimension", Infer: "inferSetDimensionSize", NoKernel: "legacy XLA dynamic-shape op, read for old text only"},
	{Name: "stablehlo.slice", Form: "$ !slice attrs : T:fn", Inherent: "limit_indices start_indices strides", Infer: "inferSlice", Builder: "Slice"},
	{Name: "stablehlo.transpose", Form: "$ , dims = @permutation:arr attrs : T:fn", Inherent: "permutation", Infer: "inferTranspose", Builder: "Transpose"},
}
