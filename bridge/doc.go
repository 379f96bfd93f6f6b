// Package bridge is the trace-once/replay core of the jit, modelled on
// torch_xla's dynamo bridge. Trace runs a function once on the real input
// tensors through the lazy runtime, records its outputs and every input it
// assigns, converts the IR into an fx.Graph and undoes every effect (mutated
// inputs and the RNG state get their old data back; the pending IR is
// dropped). Compile lowers an fx graph to StableHLO through package lazy,
// hashes it and compiles it under the hash without executing anything;
// CompileTraced does so for a trace's graph by lowering the traced IR as
// it is, or, when the executable keeps its IR (run-time checks, debug
// dumps), by copying it over placeholders (the same IR, hash and program).
// Program.Run replays: it matches arguments and captured tensors to
// buffers, executes by hash, writes results back into mutated inputs and
// rebuilds the outputs.
//
// Place in the flow: jit → bridge.Trace → (partitioner) → bridge.Compile per
// device region → Program.Run on every later call. Imports fx and lazy only;
// it does not know the partitioner.
//
//	g, _ := bridge.Trace(args, fn, bridge.TraceOptions{})
//	p, _ := bridge.Compile(g.Graph, dev)   // UncachedCompile+1, ExecuteCount+0
//	outs, _ := p.Run(args, g.Graph.Captures)
package bridge
