// RUN: stablehlo-translate --interpret -split-input-file %s

// A round-trip program: dynamic argument dimensions and no check op.
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
