// Package host is the embedded CPU device, the default pjrt.Client and the
// reference for op semantics. Compile verifies a StableHLO module and turns
// each function into a plan: ops in program order, each compiled once by its
// kernel.Entry (attributes decoded, strides and regions prepared), values in
// dense frame slots freed after their last use. Execute runs the plan on
// *hlo.Literal buffers; XLAJIT_HOST_DEVICES=N gives N virtual devices whose
// collectives meet in a Hub.
//
// Place in the flow: lazy's graph executor → pjrt.Client.Compile/Execute →
// here. Imports hlo, pjrt and its own op families only.
//
// A plan, as printed for debugging:
//
//	%0 = stablehlo.add(%arg0, %arg1)   in [0 1] out [2] free [0 1]
package host
