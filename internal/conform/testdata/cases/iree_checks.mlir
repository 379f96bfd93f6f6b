// IREE's end-to-end test layout: no @main, every public function is a test
// case of its own, written with IREE's check dialect and test helpers.

func.func @helpers_and_checks() {
  %x = util.unfoldable_constant dense<[1.5, -2.0, 4.0]> : tensor<3xf32>
  %k = arith.constant dense<2.0> : tensor<3xf32>
  %y = stablehlo.multiply %x, %k : tensor<3xf32>
  %b:2 = util.optimization_barrier %y, %x : tensor<3xf32>, tensor<3xf32>
  check.expect_almost_eq_const(%b#0, dense<[3.0, -4.0, 8.00005]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_almost_eq_const(%b#0, dense<[3.1, -4.1, 8.2]> : tensor<3xf32>, atol 0.0, rtol 0.05) : tensor<3xf32>
  check.expect_almost_eq(%b#1, %x, atol 1.0e-6) : tensor<3xf32>
  check.expect_eq(%b#1, %x) : tensor<3xf32>
  %one = util.unfoldable_constant 1 : i32
  %zero = arith.constant 0 : i32
  check.expect_true(%one) : i32
  check.expect_false(%zero) : i32
  %mask = util.unfoldable_constant dense<[1, 7, -1]> : tensor<3xi32>
  check.expect_all_true(%mask) : tensor<3xi32>
  return
}

// A dynamic constant feeds a dynamically typed add; the cast back states
// the shape the result has.
func.func @dynamic_shapes() {
  %d = flow.tensor.dynamic_constant dense<[1, 2, 3, 4]> : tensor<4xi32> -> tensor<?xi32>
  %s = stablehlo.add %d, %d : tensor<?xi32>
  %c = tensor.cast %s : tensor<?xi32> to tensor<4xi32>
  check.expect_eq_const(%c, dense<[2, 4, 6, 8]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func private @twice(%x: tensor<2xi32>) -> tensor<2xi32> {
  %y = stablehlo.add %x, %x : tensor<2xi32>
  return %y : tensor<2xi32>
}

func.func @calls_private_helper() {
  %x = util.unfoldable_constant dense<[3, 5]> : tensor<2xi32>
  %y = call @twice(%x) : (tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const(%y, dense<[6, 10]> : tensor<2xi32>) : tensor<2xi32>
  return
}

// Exact equality is bitwise: -0.0 is not 0.0.
func.func @bitwise_equality() {
  %x = util.unfoldable_constant dense<[0.0, 1.0]> : tensor<2xf32>
  %n = stablehlo.negate %x : tensor<2xf32>
  check.expect_eq_const(%n, dense<[0.0, -1.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

// The default tolerance is atol 1e-4, rtol 0: large values must be exact
// to 1e-4.
func.func @almost_eq_fails() {
  %x = util.unfoldable_constant dense<[1000.0, 2.0]> : tensor<2xf32>
  %y = stablehlo.add %x, %x : tensor<2xf32>
  check.expect_almost_eq_const(%y, dense<[2000.001, 4.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}

// A test function must not take arguments.
func.func @takes_an_argument(%a: tensor<f32>) {
  check.expect_almost_eq_const(%a, dense<1.0> : tensor<f32>) : tensor<f32>
  return
}

// This function does not parse; the file's other cases still run.
func.func @unparsable() {
  %x = util.unfoldable_constant dense<1> : tensor<i32>
  %y = xlajit_test.pretty_unknown %x : tensor<i32>
  check.expect_eq_const(%y, dense<1> : tensor<i32>) : tensor<i32>
  return
}

func.func @unsupported_op() {
  %x = util.unfoldable_constant dense<1> : tensor<i32>
  %y = "xlajit_test.no_such_op"(%x) : (tensor<i32>) -> tensor<i32>
  check.expect_eq_const(%y, dense<1> : tensor<i32>) : tensor<i32>
  return
}

// tensor.cast between incompatible types is an error naming it.
func.func @bad_cast() {
  %x = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %c = tensor.cast %x : tensor<2xi32> to tensor<3xi32>
  check.expect_eq_const(%c, dense<[1, 2, 0]> : tensor<3xi32>) : tensor<3xi32>
  return
}
