// Package elementwise holds the embedded device's elementwise ops for every
// element type: unary and binary math, compare, select, clamp, convert,
// bitcast_convert, reduce_precision, constant and iota, with tile functions
// the planner fuses into one loop.
//
// Place in the flow: registered into kernel's op table; run by package host.
// Imports hlo and pjrt/host/kernel only.
package elementwise
