module @spmd attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"}, %arg1: tensor<6x3xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]0,1,2,3}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x6xf32>, tensor<6x3xf32>) -> tensor<8x3xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[2,2]0,1,2,3}"} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x3xf32>
    %3 = stablehlo.maximum %1, %2 : tensor<8x3xf32>
    %4 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = "{devices=[4,1]0,1,2,3}"} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    return %4 : tensor<8x3xf32>
  }
}
