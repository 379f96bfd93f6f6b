// Package fx is the captured graph of a traced function, in the style of
// torch.fx: typed nodes (placeholder, call, output) in program order, each
// with its dtype, shape and Go call site; a one-line-per-node printer and
// its parser (the stable text serialization), Lint, an Interpreter that runs
// the graph node by node over lazy tensors, and the conversion from a lazy
// trace. A call node holds its op's definition (a row of lazy's op table);
// only the parser looks ops up by name.
//
// Place in the flow: bridge.Trace records a function through package lazy,
// converts the recorded IR here, and the partitioner and bridge.Compile read
// the graph. The Interpreter is the one node-by-node runner: bridge.Compile
// records a graph's IR with it (a trace's own graph is compiled from the
// traced IR that FromTraceIR hands on, lowered as it is or copied, which
// gives the same IR), and
// the jit replays a partitioned graph's split graph (device partitions,
// host nodes between them) with it.
// Imports lazy only (and hlo through lazy's types).
//
//	%x : f32[2,3] = placeholder[arg 0]
//	%w : f32[3,4] = placeholder[capture 0]
//	%dot_1 : f32[2,4] = DotGeneral(%x, %w, lhs_batch=[], rhs_batch=[], lhs_contract=[1], rhs_contract=[0])  # model.go:12
//	output(%dot_1)
package fx
