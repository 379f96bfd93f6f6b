// Generic forms, dynamic shapes, quantized types, other dialects and ops
// the parser does not know.
module {
  func.func @dynamic(%arg0: tensor<?x5xf32, #stablehlo.bounds<8, ?>>, %arg1: tensor<2xi64>) -> tensor<?x5xf32> {
    %0 = "stablehlo.dynamic_broadcast_in_dim"(%arg0, %arg1) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<?x5xf32, #stablehlo.bounds<8, ?>>, tensor<2xi64>) -> tensor<?x5xf32>
    %1 = stablehlo.get_dimension_size %0, dim = 0 : (tensor<?x5xf32>) -> tensor<i32>
    %2 = "stablehlo.dynamic_iota"(%arg1) {iota_dimension = 0 : i64} : (tensor<2xi64>) -> tensor<?x5xf32>
    %3 = stablehlo.dynamic_reshape %2, %arg1 : (tensor<?x5xf32>, tensor<2xi64>) -> tensor<?x5xf32>
    %4 = "foo.unknown"(%3) <{bar = 1 : i32}> {baz = #foo.thing<[1, 2]>, qux} : (tensor<?x5xf32>) -> tensor<?x5xf32>
    %5 = "foo.region"(%4) ({
    ^bb0(%x: tensor<f32>):
      "foo.yield"(%x) : (tensor<f32>) -> ()
    }) : (tensor<?x5xf32>) -> tensor<?x5xf32>
    return %5 : tensor<?x5xf32>
  }
  func.func @quant(%arg0: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32> {
    %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32>
    %1 = stablehlo.uniform_quantize %0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8<0:127>:f32:0, {1.000000e-01:2,2.000000e-01:3,3.000000e-01,4.000000e-01:5}>>
    %2 = stablehlo.constant() <{value = dense<[1, 2, 3, 4]> : tensor<4xi8>}> : () -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
    %3 = stablehlo.add %2, %arg0 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
    return %0 : tensor<4xf32>
  }
  func.func @checks() {
    %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = chlo.lgamma %0 : tensor<2xf32> -> tensor<2xf32>
    %2 = chlo.broadcast_add %0, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %3 = "chlo.broadcast_compare"(%0, %2) {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %values, %indices = chlo.top_k(%0, k = 1) : tensor<2xf32> -> (tensor<1xf32>, tensor<1xi32>)
    %4 = interpreter.probe %2, probe_id = "p0" : tensor<2xf32>
    check.expect_eq_const %3, dense<[true, false]> : tensor<2xi1>
    check.expect_almost_eq_const %1, dense<[0.0, 0.0]> : tensor<2xf32>, tolerance = 1.0e-3
    check.expect_almost_eq %1, %1 : tensor<2xf32>
    check.expect_eq %0, %0 : tensor<2xf32>
    check.expect_close %0, %2, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
    check.expect_serialized_eq %4, probe_id = "p0", iter = 1 : tensor<2xf32>
    func.return
  }
  func.func @collectives(%x: tensor<4xi64>) -> tensor<4xi64> {
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xi64>) -> tensor<4xi64>
    %r = stablehlo.replica_id : tensor<ui32>
    %res:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@collectives], [@collectives]]} : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    return %0 : tensor<4xi64>
  }
  func.func private @external(tensor<2xf32>, tensor<i1> {foo.bar}) -> tensor<2xf32>
}
