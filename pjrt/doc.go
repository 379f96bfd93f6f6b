// Package pjrt is the device seam: the Client, Buffer and Executable
// interfaces every device implements, and the registry that picks a client
// from PJRT_DEVICE (unset or CPU: the embedded device of package pjrt/host;
// CUDA, TPU or an absolute .so path: a PJRT plugin through pjrt/plugin).
// Whole programs cross the seam, never single ops. Sharding (XLA's
// HloSharding and its text) and ShardedBuffer describe tensors laid out
// over the devices of an SPMD program.
//
// Place in the flow: lazy (graph executor) → pjrt.Client → device.
// Imports hlo only.
//
//	c, _ := pjrt.Open("")                     // embedded CPU device
//	exe, _ := c.Compile(module, pjrt.CompileOptions{})
//	out, _ := exe.Execute(args, pjrt.ExecuteOptions{})
package pjrt
