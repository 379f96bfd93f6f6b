// Package movement holds the embedded device's data-movement and reduction
// ops: broadcast_in_dim (and the legacy broadcast), reshape, transpose,
// slice, dynamic_slice, dynamic_update_slice, concatenate, pad, reverse,
// gather, scatter, sort, reduce, reduce_window, select_and_scatter, map and
// the dynamic-shape variants (dynamic_broadcast_in_dim, dynamic_iota,
// dynamic_reshape, real_dynamic_slice, dynamic_gather, dynamic_pad,
// get_dimension_size), and torch_index_select.
//
// Place in the flow: registered into kernel's op table (register.go); run by
// package host. Imports hlo and pjrt/host/kernel only.
//
// Every pure data-movement op compiles to a box: a strided copy over
// element bytes (hlo.DType.Size), so one loop serves every element type.
// Unit dimensions are dropped and contiguous ones merged at compile time,
// and a transposed box copies in 32x32 tiles. A transpose of f32[2048,2048]
// with permutation [1, 0] prints (in the box's terms) as
//
//	dims [2048 2048]  dst strides [2048 1]  src strides [1 2048]  tile 0
//
// Bodies of reduce, scatter, sort, map, reduce_window and select_and_scatter
// run, in order of preference, as typed loops (a single add, multiply,
// maximum, minimum, and, or or xor of the two arguments, or a lone
// compare), as scalar register programs (bodies of native-typed
// elementwise ops, see scalar.go), or as region plans called per element.
package movement
