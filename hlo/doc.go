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
//
// # The op table
//
// Every op the package knows is one row of the table in hlo/optable: its
// name, elementwise class, pretty syntax (a format, FORMS.md), inherent
// attributes, result names, type rule, builder method, and why the
// embedded device has no kernel for it when it has none. `go generate
// ./hlo` (cmd/hlogen) turns the rows into the parser's form list
// (ops_forms_gen.go), the printer's attribute and result-name lists
// (ops_attrs_gen.go), the inference map (ops_infer_gen.go), the builder
// methods of elementwise ops without attributes (builder_gen.go) and
// FORMS.md. What a row cannot say stays hand-written, and the row names
// it: custom format directives and whole syntaxes (parse_custom.go,
// print_custom.go; HandSyntax), type rules (infer_*.go; Infer names the
// function) and builders that set attributes (builder_*.go; Builder names
// the method). Tests hold the pieces together: TestOpTableCoversHlo (every
// op hlo knows has a row, every named builder and hand-written syntax
// exists), cmd/hlogen's TestGeneratedCurrent (the generated files match
// the table) and pjrt/host's TestKernelsMatchOpTable (every row has an
// embedded-device kernel or a reason, every kernel has a row).
//
// # Adding a new elementwise StableHLO op
//
// Say the spec gains stablehlo.foo, a unary op on floating-point and
// complex tensors, without attributes:
//
//  1. Add its row to hlo/optable/ops_elementwise.go:
//
//     {Name: "stablehlo.foo", Class: Unary, Form: FormUnary, Infer: "unaryRule(kFpCx)", Builder: "Foo", Params: "x"},
//
//     FormUnary is the syntax `%x : T`; Infer is its type rule, here the
//     generic unary rule with the element kinds of the spec's constraints
//     (infer_elementwise.go; binaryRule for two operands; an op with a rule
//     of its own gets a function there and names it). Params makes the
//     generator write the builder (*Scope).Foo(x). An op with attributes
//     lists them in Inherent, puts them in its Form (@name:kind), drops
//     Params and gets a hand-written builder in builder_ops.go.
//
//  2. Run `go generate ./hlo`. Parsing, printing (pretty and generic),
//     verification and the builder now know the op; cmd/hlogen rejects a
//     row that contradicts itself, and TestGeneratedCurrent fails when the
//     generated files are stale.
//
//  3. Give the embedded device its kernel: a row in the elementwise
//     family of pjrt/host (pjrt/host/elementwise, the Go function per
//     element type). Until then TestKernelsMatchOpTable fails, unless the
//     row says why there is none (NoKernel).
//
//  4. Test it: the kernel's values against a reference in the family's
//     tests, and a parse/print round trip of both forms (rng_test.go shows
//     one, with the builder).
//
// stablehlo.rng was added this way (a row in ops_linalg.go, since it is
// not elementwise: its result's shape comes from an operand's values; a
// hand-written builder, Rng, because it sets rng_distribution; the kernel
// in pjrt/host/linalg/rng_dist.go).
package hlo

//go:generate go run github.com/xlajit/xlajit/cmd/hlogen
