// Package gentrace is the part of `xlajit gen` that runs inside the user's
// package: the generator writes a temporary test file (build tag
// xlajit_gen) that lists the marked functions and calls Run, which traces
// each one on placeholder tensors through jit.TraceAOT and writes the
// results as JSON for the generator to read. It also parses the shapes of
// the //xlajit:trace directive, so the generator and the traced program
// read them alike.
//
// Place in the flow: codegen (x/tools, jennifer; never linked into user
// programs) → go test -tags xlajit_gen → gentrace.Run → jit.TraceAOT →
// bridge.Trace. Imports jit, fx, lazy and hlo only (room codegen): it must
// not import x/tools or jennifer, since it is built into the user's test
// binary.
//
//	[{"Name":"Predict","Pos":"model.go:20","Signature":"func(*lazy.Tensor, *lazy.Tensor) *lazy.Tensor",
//	  "Graph":"%arg0 : f32[64,784] = placeholder[arg 0]\n...","Hash":"6c0f…","HLO":"module @jit_6c0f… {…}"}]
package gentrace
