// Package host is the embedded CPU device, the default pjrt.Client and the
// reference for op semantics. Compile verifies a StableHLO module
// (hlo.Verify) and turns each function into a plan: ops in program order,
// each compiled once by its kernel.Entry (attributes decoded, strides and
// regions prepared), values in dense frame slots freed after their last
// use. Runs of elementwise ops over
// same-shaped tensors (with broadcasts of scalars as splats and constants
// bound at compile time) fuse into one step that walks the elements in
// cache-sized tiles on all cores. Storage of dead intermediates made by
// Fresh kernels is recycled for later results of the same size, or taken
// over in place, within an execution and by the next one; pure steps whose
// results nothing reads (a transpose every reader takes through strides)
// are dropped. Execute runs the plan on *hlo.Literal buffers, after
// checking the arguments against the entry's parameters (ExecuteReading
// reads the last results as bytes and keeps their storage: check flags);
// results the caller drops are recycled (kernel's recycle.go).
// XLAJIT_HOST_DEVICES=N (1 to 4096) gives N virtual devices whose
// collectives meet in a Hub. Each step reserves its results' bytes in its
// device's memory account before it runs (account.go): an allocation
// beyond XLAJIT_HOST_MEMORY_LIMIT is a *pjrt.OutOfMemoryError, and
// MemoryInfo reports the bytes of buffers and live intermediates. A
// program compiled with UseSPMDPartitioning is first partitioned by the
// gspmd sub-package into the program each device runs on its shards
// (SPMDExecutable: the layouts of arguments and results, the reshards).
//
// The op families register the kernels (families.go imports them):
// elementwise (StableHLO's elementwise ops, and Row, which makes every
// elementwise row), movement (shape, indexing, reductions), linalg (dot,
// convolution, factorizations, FFT, RNG), control (structural ops and
// custom_call), chlo (the CHLO dialect), collective (communication between
// devices) and check (the test dialects). Each imports kernel, the
// contract between them and the planner, never the planner, and no other
// family but elementwise (internal/archtest checks it).
//
// Place in the flow: lazy's graph executor → pjrt.Client.Compile/Execute →
// here. Imports hlo, pjrt and its own op families only.
//
// A plan, as Program.PlanString prints it for debugging:
//
//	%2 = stablehlo.dot_general(%0, %1)  free [%0]
//	%7 = fused[splat stablehlo.add stablehlo.tanh](%2, %b const) tile 2048 %7 in %2
package host
