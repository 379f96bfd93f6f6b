package movement

import "github.com/xlajit/xlajit/pjrt/host/kernel"

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.broadcast_in_dim", Compile: compileBroadcastInDim, Fresh: true},
		// reshape and dynamic_reshape return a new header over the operand's bytes.
		kernel.Entry{Name: "stablehlo.reshape", Compile: compileReshape, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.transpose", Compile: compileTranspose, Fresh: true},
		kernel.Entry{Name: "stablehlo.slice", Compile: compileSlice, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_slice", Compile: compileDynamicSlice, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_update_slice", Compile: compileDynamicUpdateSlice, Fresh: true},
		kernel.Entry{Name: "stablehlo.concatenate", Compile: compileConcatenate, Fresh: true},
		kernel.Entry{Name: "stablehlo.pad", Compile: compilePad, Fresh: true},
		kernel.Entry{Name: "stablehlo.reverse", Compile: compileReverse, Fresh: true},
		kernel.Entry{Name: "stablehlo.gather", Compile: compileGather, Fresh: true},
		kernel.Entry{Name: "stablehlo.scatter", Compile: compileScatter, Fresh: true},
		kernel.Entry{Name: "stablehlo.sort", Compile: compileSort, Fresh: true},
		kernel.Entry{Name: "stablehlo.reduce", Compile: compileReduce, Fresh: true},
		kernel.Entry{Name: "stablehlo.reduce_window", Compile: compileReduceWindow, Fresh: true},
		kernel.Entry{Name: "stablehlo.select_and_scatter", Compile: compileSelectAndScatter, Fresh: true, Group: groupSelectScatter},
		kernel.Entry{Name: "stablehlo.map", Compile: compileMap, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_broadcast_in_dim", Compile: compileDynamicBroadcastInDim, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_iota", Compile: compileDynamicIota, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_reshape", Compile: compileDynamicReshape, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.real_dynamic_slice", Compile: compileRealDynamicSlice, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_gather", Compile: compileDynamicGather, Fresh: true},
		kernel.Entry{Name: "stablehlo.dynamic_pad", Compile: compileDynamicPad, Fresh: true},
		kernel.Entry{Name: "stablehlo.get_dimension_size", Compile: compileGetDimensionSize, Fresh: true},
	)
}
