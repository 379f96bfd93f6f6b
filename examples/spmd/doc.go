// Command spmd runs single-device code over several devices with SPMD
// sharding annotations (package spmd), on the embedded device's virtual
// devices unless PJRT_DEVICE names a plugin:
//
//   - data-parallel MNIST: a 784-128-10 MLP trained with jit.Compile, its
//     batch cut over the "data" axis of the mesh, the weights replicated;
//     the same training on one device gives the same losses and weights;
//   - tensor-parallel MLP: the first weight cut by columns, the second by
//     rows over the "model" axis; the partitioned program has one
//     all-reduce per MLP block and no other communication.
//
// It prints the shard layouts and the collectives of each partitioned
// program.
//
//	go run ./examples/spmd [-devices 4] [-steps 50] [-batch 128]
package main
