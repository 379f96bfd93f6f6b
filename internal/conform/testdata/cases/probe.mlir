// RUN: stablehlo-translate --interpret -split-input-file %s

// A probe records a value; the check reads it back in the same run.
func.func @probed() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.add %a, %a : tensor<2xi32>
  %p = interpreter.probe %b, probe_id = "b" : tensor<2xi32>
  %c = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  check.expect_serialized_eq %c, probe_id = "b" : tensor<2xi32>
  func.return
}
