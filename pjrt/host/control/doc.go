// Package control holds the embedded device's structural ops: while, if,
// case, call, composite, optimization_barrier, tuple and get_tuple_element,
// custom_call (with the check.* targets, ProductOfElementaryHouseholderReflectors
// and shape_assertion), the check dialect and IREE's (iree_check.*), the collectives
// (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, replica_id, partition_id), interpreter.run_parallel,
// interpreter.probe with check.expect_serialized_eq (probe.go) and
// interpreter.print (print.go), and the CHLO ops of the conformance corpus.
//
// Place in the flow: registered into kernel's op table; run by package host.
// Imports hlo and pjrt/host/kernel only.
package control
