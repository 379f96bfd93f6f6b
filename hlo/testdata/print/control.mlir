// A named module with attributes; control flow, reductions and calls.
module @jit_control attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<i64>) -> (tensor<f32> {jax.result_info = "result"}, tensor<i64>) {
    %init = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %sum = stablehlo.reduce(%arg0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %iota = stablehlo.iota dim = 0 : tensor<8xi64>
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %max:2 = stablehlo.reduce(%arg0 init: %init), (%iota init: %zero) across dimensions = [0] : (tensor<8xf32>, tensor<8xi64>, tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<i64>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i64>, %j: tensor<i64>) {
      %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %m = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
      %k = stablehlo.select %gt, %i, %j : tensor<i1>, tensor<i64>
      stablehlo.return %m, %k : tensor<f32>, tensor<i64>
    }
    %one = stablehlo.constant dense<1> : tensor<i64>
    %w:2 = stablehlo.while(%n = %zero, %acc = %sum) : tensor<i64>, tensor<f32>
     cond {
      %lt = stablehlo.compare LT, %n, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %n1 = stablehlo.add %n, %one : tensor<i64>
      %c = func.call @twice(%acc) : (tensor<f32>) -> tensor<f32>
      stablehlo.return %n1, %c : tensor<i64>, tensor<f32>
    }
    %pred = stablehlo.compare GT, %w#0, %one, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %r = "stablehlo.if"(%pred) ({
      stablehlo.return %w#1 : tensor<f32>
    }, {
      %neg = stablehlo.negate %w#1 : tensor<f32>
      stablehlo.return %neg : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    %idx = stablehlo.constant dense<1> : tensor<i32>
    %cs = "stablehlo.case"(%idx) ({
      stablehlo.return %r : tensor<f32>
    }, {
      stablehlo.return %init : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    %t = stablehlo.tuple %cs, %w#0 : tuple<tensor<f32>, tensor<i64>>
    %t0 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>, tensor<i64>>) -> tensor<f32>
    %ob:2 = stablehlo.optimization_barrier %t0, %w#0 : tensor<f32>, tensor<i64>
    %tok = stablehlo.after_all : !stablehlo.token
    stablehlo.custom_call @check.expect_close(%ob#0, %t0) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    %cc = stablehlo.custom_call @"my-target"(%ob#0) {api_version = 1 : i32, backend_config = {k = 1 : i64}, has_side_effect = false} : (tensor<f32>) -> tensor<f32>
    %comp = stablehlo.composite "my.twice" %cc {composite_attributes = {factor = 2 : i64}, decomposition = @twice, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
    return %comp, %ob#1 : tensor<f32>, tensor<i64>
  }
  func.func private @twice(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.add %x, %x : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @sort(%x: tensor<5xf32>, %y: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
    %0:2 = "stablehlo.sort"(%x, %y) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %1 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) {dimension = 0 : i64, is_stable = true} : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>
  }
}
