// Package partitioner splits a captured fx graph into device partitions
// and fallback nodes (run through their ops' Go kernels on the CPU,
// between device programs; printed "# host"), as torch.fx's
// capability-based partitioner does for torch_xla's bridge. Discover finds the nodes the device cannot run (ops
// without a lowering, or whose trial lowering uses StableHLO ops or element
// types the device does not report); Partition assigns every other call to
// a device partition so that no partition depends on a later one — a device
// node joins the earliest partition after every fallback node it depends on —
// and lists the stages to run: device partition 1, the fallback stages that
// only need it, device partition 2, ... Plan.Split is the graph of those
// stages (one call per stage, a device partition as a call of its own
// graph), which the jit replays with fx.Interpreter.
//
// Place in the flow: jit → bridge.Trace → partitioner → bridge.Compile per
// device partition. Imports fx and lazy only; it does not know the bridge.
//
//	%arg0 : f32[6] = placeholder[arg 0]
//	%gt_1 : i1[6] = Compare(%arg0, %c, dir="GT")  # device 1
//	%nonzero_1 : i64[3,1] = NonZero(%gt_1)         # host
//	%cast_1 : f32[3,1] = Cast(%nonzero_1, ...)     # device 2
package partitioner
