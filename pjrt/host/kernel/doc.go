// Package kernel is the contract between the embedded device's planner
// (package host) and its op families (packages elementwise, movement, linalg,
// control, chlo, collective, check): the runtime value types, the op table
// (Register, Lookup), the custom_call target table (RegisterTarget), the
// compile and run signatures, the execution context with its collective hub
// and check log, the persistent worker pool used for parallel loops
// (ParallelFor, and Help for work that shares itself out), and
// the helpers every family uses to read operands and name an op in its
// errors (opargs.go, slicedim.go).
//
// Place in the flow: hlo.Module → host.Compile → (per op) kernel.Entry.Compile
// → RunFn, run by the host planner on *hlo.Literal buffers.
//
// It imports hlo only. Example entry:
//
//	kernel.Register(kernel.Entry{Name: "stablehlo.add", Compile: compileAdd, Fresh: true})
package kernel
