// Package hlo is the StableHLO IR of xlajit: element types, tensor, tuple
// and token types, modules of functions of ops with regions and attributes,
// dense literals, a parser for the pretty and generic MLIR forms, a printer
// for the pretty form JAX emits, a verifier with shape inference, and the
// builder the lazy lowering uses.
//
// Place in the flow: lazy lowers its IR to an hlo.Module; pjrt clients
// compile it; the conformance runner parses the corpus into it.
// Imports the standard library only.
//
//	module @jit_f {
//	  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
//	    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
//	    return %0 : tensor<2xf32>
//	  }
//	}
package hlo

//go:generate go run github.com/xlajit/xlajit/cmd/hlogen
