// Package chlo holds the embedded device's CHLO ops (the client HLO
// dialect JAX emits) as kernels rather than their StableHLO
// decompositions: the element-wise special and inverse trigonometric
// functions (rows.go, elementwise.go; their float64 and complex128 kernels
// in special.go, cmath.go, decomp.go, dd.go), the broadcasting binary ops,
// top_k, constant and constant_like, scan and ragged_dot.
//
// Element-wise ops are declared as StableHLO's are, with package
// elementwise's Row and MathRow (rows.go), so they fuse with their
// neighbours and give the same bits fused and alone. Each computes in
// float64 (complex128) and rounds once to the element type. An op both
// dialects define is one row: chlo.tan is stablehlo.tan (kernel.Alias).
//
// Place in the flow: registered into kernel's op table; run by package
// host. Imports hlo, pjrt/host/kernel and pjrt/host/elementwise.
//
// Example row: elementwise.MathRow("chlo.erfc", specialCost,
// elementwise.Math{Real: elementwise.Same(math.Erfc)}) in elementwise.go.
package chlo
