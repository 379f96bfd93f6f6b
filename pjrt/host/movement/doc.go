// Package movement holds the embedded device's data-movement and reduction
// ops: broadcast_in_dim, reshape, transpose, slice, dynamic_slice,
// dynamic_update_slice, concatenate, pad, reverse, gather, scatter, sort,
// reduce, reduce_window, select_and_scatter, map and the dynamic-shape
// variants.
//
// Place in the flow: registered into kernel's op table; run by package host.
// Imports hlo and pjrt/host/kernel only.
package movement
