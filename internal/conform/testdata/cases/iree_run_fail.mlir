// RUN: iree-run-mlir %s --input="2xi32=1 2" | FileCheck %s

// The printed result is not what the directive says.
func.func @identity(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
// CHECK: EXEC @identity
// CHECK: 2xi32=1 3

// -----

// The input does not fit the argument.
func.func @wants_floats(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
// CHECK: EXEC @wants_floats

// -----

// Every function gets every input: one input for two arguments is an
// error.
func.func @two_args(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
// CHECK: EXEC @two_args
