// Package spmd is SPMD (GSPMD) for lazy tensors, as PyTorch/XLA's
// torch_xla.distributed.spmd: describe the devices as a Mesh, mark how a
// few tensors are cut across it with a partition spec (MarkSharding), and
// keep writing single-device code. Tensors live on the SPMD device (one
// virtual device spanning the mesh, lazy.SPMDDevice; UseSPMD makes it the
// default); every program over them is compiled once with SPMD
// partitioning and runs on each device's shards, with the collectives the
// partitioner inserts (XLA's GSPMD on PJRT plugins, package
// pjrt/host/gspmd on the embedded device).
//
// Place in the flow: user code → spmd → lazy (annotations in the IR,
// sharded data, SPMD compiles) → pjrt. Imports lazy and pjrt only.
//
// A 2x2 mesh and the layout of an f32[8,6] cut by rows over "data":
//
//	mesh := spmd.MustMesh([]int{0, 1, 2, 3}, []int{2, 2}, "data", "model")
//	spmd.MarkSharding(x, mesh, "data", nil) // {devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
//	fmt.Print(spmd.Visualize(x.Sharding(), x.Dims()))
//
//	┌────────────────────┐
//	│ dev 0,1 [0:4][0:6] │
//	├────────────────────┤
//	│ dev 2,3 [4:8][0:6] │
//	└────────────────────┘
package spmd
