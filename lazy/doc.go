// Package lazy is the lazy-tensor core, as in PyTorch/XLA: an op runs
// nothing, it appends an IR node (hashed as it is built) and returns a
// tensor holding the pending value; a cut (Sync, Item, Float32s, String, a
// host op) collects the pending IR of the tensors it needs, hashes the
// graph, finds or compiles the program in the LRU compile cache (and the
// optional persistent cache), and executes it on the tensors' device through
// pjrt.Client. One op table (optable.go, rows in ops_*.go) gives every op its
// shape rule, lowering to StableHLO, Go kernel and gradient rule; printing,
// hashing, lowering, host fallback and autodiff (Grad) all read it. Eager
// mode is a cut after every op. Metrics (Counter, MetricsReport) and dumps
// (XLAJIT_DEBUG, XLAJIT_SAVE_TENSORS_FILE) are parsed in debug.go. The SPMD
// device (spmd.go, SPMDDevice) spans every device of a client: its data is
// sharded, its programs carry sharding annotations and are partitioned at
// compile time (package spmd is the user API).
//
// The API follows PyTorch's semantics: type promotion (promote.go), true
// division, f32 accumulation of f16/bf16 reductions, and errors where
// PyTorch raises, including value-dependent ones (an index out of range)
// that the program checks as it runs (checks.go). TestTorchOracle replays
// PyTorch results recorded by scripts/torch_oracle.py.
//
// Conventions of the API: axes (and ranks, counts of Go values) are int and
// may be negative (counted from the end); dimension sizes, and anything
// measured in elements, are int64. A reduction drops the axes it reduces;
// its KeepDims form (SumKeepDims, ArgMaxKeepDims, VarKeepDims, ...) keeps
// them as size 1, as PyTorch's keepdim=True. Names follow Go's initialisms
// (ReLU, GELU, RNGState).
//
// Every public op checks its arguments before it records anything (nil
// tensors, element types, axes, dims with overflow checks, attribute
// ranges, devices) and panics with an *Error naming the op, the operand
// shapes and the caller's file:line; a rejected op changes no state (ops
// made of several inner ops run first on shape-only stand-ins, dry.go).
// Try and AsError turn only those errors (and hlo builder errors and
// ReportedErrors) into error values: any other panic is a bug and goes on.
//
// Place in the flow: user code and the jit (fx, bridge, partitioner, jit)
// build on it; it lowers to hlo and runs through pjrt. It imports hlo and
// pjrt (with the embedded device pjrt/host) only, never fx, bridge,
// partitioner or jit.
//
// A graph as printed by Graph.String:
//
//	%0 : f32[2,3] = DeviceData()  # param 0
//	%1 : f32[3,2] = DeviceData()  # param 1
//	%2 : f32[2,2] = DotGeneral(%0, %1, lhs_batch=[], rhs_batch=[], lhs_contract=[1], rhs_contract=[0])
//	%3 : f32[2,2] = ReLU(%2)
//	return %3
package lazy
