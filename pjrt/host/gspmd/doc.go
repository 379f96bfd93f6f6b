// Package gspmd is the embedded device's SPMD partitioner: it turns a
// StableHLO program over whole tensors, whose entry arguments, results and
// @Sharding custom calls carry XLA shardings (mhlo.sharding), into the one
// program every device of an SPMD execution runs on its shards, with the
// collectives GSPMD would insert (arXiv 2105.04663): local ops where the
// layouts allow, all-reduce of partial sums for cut contractions and
// reductions, all-gather where an op needs a dimension whole. Layouts
// propagate forward from the annotations (unannotated arguments are
// replicated); an op the rules do not cover runs on whole tensors, its cut
// operands gathered and counted as reshards. Padding of uneven shards is
// masked with the identity before it can reach a sum.
//
// Place in the flow: pjrt/host.Client.Compile calls Partition for
// programs compiled with UseSPMDPartitioning, then plans the result like
// any program. Imports hlo and pjrt only.
//
// A partitioned program (x cut by rows over 2 devices, w whole; the
// contraction over x's columns is local):
//
//	func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf32>) -> tensor<4x3xf32> {
//	  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : ...
//	  return %0 : tensor<4x3xf32>
//	}
package gspmd
