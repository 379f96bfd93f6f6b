// Package jit is the public face of xlajit: Compile wraps a Go function over
// lazy tensors so that its first call with a new input signature traces it
// once on the real tensors, compiles the recorded graph by hash without
// running it, restores every input the trace touched, and every later call
// with the same signature replays the compiled program.
//
// Place in the flow: user code → jit.Compile → bridge.Trace → partitioner
// (device regions and host nodes) → bridge.Compile per region → replay.
// Imports bridge, partitioner, fx and lazy.
//
// Explain, recompile reasons and warnings name a place inside the
// arguments by its path, "arg 0.Blocks.1.Wqkv": struct fields (or their
// `nn:"name"` tags), slice and array indexes after dots, embedded structs'
// fields promoted (FieldPath, IndexPath). Package nn names a model's
// parameters with the same paths without "arg N.".
//
//	step := jit.Compile(func(x, w *lazy.Tensor) *lazy.Tensor { return x.MatMul(w).ReLU() })
//	y := step(x, w)            // call 1: trace + compile; later calls replay by hash
//	fmt.Println(jit.StatsOf(step))
//	// calls=1 traces=1 compiles=1 replays=1 recompiles=0 graph_breaks=0 host_fallbacks=0
package jit
