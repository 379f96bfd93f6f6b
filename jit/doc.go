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
//
// What a replay repeats is the traced graph, not the Go code around it:
//
//   - Go values the function reads through a closure (a captured float, a
//     flag) are constants of the graph, frozen at the trace. Pass a value
//     that changes between calls as an argument: a Go number or bool
//     argument is part of the signature (a new value traces again), a
//     tensor argument is an input of the graph.
//
//   - Non-tensor results (a slice of dims, a pointer to a struct) are what
//     the traced call returned; each call gets a deep copy of its own.
//
//   - An argument tensor the function stores where its arguments do not
//     reach (a global variable, a channel, a captured map) is, on the
//     traced call, the trace's stand-in for it, not the caller's tensor:
//     it holds that call's value, and replays store nothing. Return such
//     tensors instead.
//
//   - A function whose last result is an error and that returns a non-nil
//     error while it is traced ran once, under the trace: the call returns
//     a *Error wrapping that error (errors.Is and errors.As reach it) and
//     zero results, and the trace's tensor writes are undone, as for any
//     failed trace; the next call traces again. Go side effects (a counter,
//     a log line) happened once.
//
//   - A read of a tensor's value inside the function (Item, Float32s,
//     printing a tensor with fmt, or taking the device Buffer of one it
//     did not compute) is a graph break, even when the function
//     (or fmt) recovers the panic that reports it: calls with that
//     signature run the function as it is (FullGraph makes them fail
//     instead). So is replacing the contents of a tensor the function did
//     not make other than by Assign (TakeData, Restore, SetData, Release),
//     and putting device data into one it made (TakeData, SetData, Restore
//     of a snapshot holding data, such as an argument's): a trace would
//     read that tensor as a constant. Restore and Release of the function's
//     own IR between tensors it made compile, and so do Restore and
//     TakeData of data the trace computed (a host op's operands and
//     results). So is a Go assignment of another tensor to a place the
//     arguments reach (m.W = m.W.Sub(g), *p = y): a replay repeats tensor
//     operations, not Go assignments (write with m.W.Assign instead).
//     The first such call ran the function under the trace up to the
//     break, undid its tensor writes, and then ran it as it is: Go side
//     effects before the break (a counter, a read from a channel) happen
//     twice in that call.
//
//   - A compiled function called inside another's trace is inlined into
//     the outer graph, as torch.compile inlines a nested compiled function:
//     it is not traced or cached on its own there (its Stats count the
//     call in Calls, and nothing else), so its recompile limit counts none
//     of those calls. A graph break in its body breaks the outer trace;
//     the outer call then runs as it is and calls the inner function for
//     real, where the inner's FullGraph fails it as it fails the plain
//     outer function.
//
//   - Host functions (lazy.HostFunc) are pure callbacks, as JAX's
//     pure_callback: a call may run one more than once (a trace that needs
//     its result's values, a replay that finds a result of a new size and
//     runs the call lazily) and must give the same results for the same
//     inputs.
package jit
