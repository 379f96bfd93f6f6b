// Package elementwise holds the embedded device's elementwise ops for every
// element type: unary and binary math, compare, select, clamp, convert,
// bitcast_convert, reduce_precision, constant and iota, with tile functions
// the planner fuses into one loop, plus uniform_quantize and
// uniform_dequantize.
//
// Each op is one table row (kernel.Register in init) whose tile function
// computes dst[lo:hi] from its operands; the same function runs unfused
// (Entry.Compile) and fused (Elementwise.Prepare), so both give the same
// bits. Row declares such a row, for this package and for every other
// family with elementwise ops (the CHLO family's rows use Row and MathRow). Integers wrap (sub-byte types in their byte storage, wrapped back);
// f16, bf16, f8, f6, f4 and tf32 are computed in float64 and rounded once,
// as the reference interpreter does; float32 exp, log, tanh and logistic
// use the fast paths of fastmath.go (AVX2 on amd64), correctly rounded but
// for rare one-ULP cases. Per-tensor quantized operands are dequantized,
// computed in the expressed type and quantized back.
//
// Place in the flow: registered into kernel's op table; run by package host.
// Imports hlo and pjrt/host/kernel only.
//
// Example row: Row("stablehlo.add", costCheap, prepareAdd) makes
// kernel.Entry{Name: "stablehlo.add", Fresh: true,
// Elementwise: &kernel.Elementwise{Prepare: prepareAdd, Cost: 1}, Compile: ...}.
package elementwise
