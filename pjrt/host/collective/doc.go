// Package collective holds the embedded device's communication ops: the
// collectives (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_permute, collective_broadcast, collective_reduce), replica_id
// and partition_id, the point-to-point and streaming ops (send, recv,
// infeed, outfeed) and interpreter.run_parallel, which starts a grid of
// virtual devices through the program's kernel.Launcher.
//
// Devices exchange operands through the run's kernel.Comm and each member
// computes the result locally, in the same order, so results agree bit for
// bit. Process groups follow the spec's modes (groups.go); reductions run
// their region, or a native loop for the usual combiners (combine.go).
//
// Place in the flow: registered into kernel's op table; run by package host
// (whose hub implements kernel.Comm). Imports hlo and pjrt/host/kernel only.
//
// Example row: kernel.Entry{Name: "stablehlo.all_reduce", Compile:
// compileAllReduce, Fresh: true}.
package collective
