// Package linalg holds the embedded device's linear-algebra ops:
// dot_general and dot, convolution and dynamic_conv, fft, triangular_solve,
// cholesky, rng_bit_generator and the batch_norm ops (training, inference,
// grad). Each file registers its ops in init.
//
// Place in the flow: registered into kernel's op table; run by package host.
// Imports hlo and pjrt/host/kernel only (and the standard library).
//
// Products (dot.go, conv.go) reduce to C[b] = A[b] x B[b] over strided
// matrix views of the operands (view.go); an operand whose free or
// contracting dimensions cannot be merged into one stride is first
// transposed into a copy (layout.go). f32 and f64 products (and f16, bf16
// and small floats, accumulated in f32) run on a packed, cache-blocked GEMM
// (gemm.go) whose micro-kernel is chosen at start-up: AVX-512 or AVX2+FMA
// assembly on amd64 when the CPU and OS support it (kernel_amd64.s, and
// kernel_narrow_amd64.s for products of at most 16 columns), else the
// portable Go kernel (kernel_go.go; build tag purego forces it). A
// product's tasks claim their work on the caller and whichever pool
// workers join it (kernel.Help).
// Integer, boolean and large complex products use exact naive loops; small
// products of any float type follow the reference interpreter's evaluation
// order (refgemm.go). Convolution lowers onto the same products with
// im2col, a chunk of rows at a time.
//
// Quantized products (quant.go) wrap the same compile functions: a
// quantized lhs, rhs and result run the product on centred storage
// integers in f64 (exact) and quantize the sums once; a hybrid product
// (float lhs, quantized rhs) runs the float op on the dequantized rhs.
// Operations without quantized types compile exactly as before.
//
// The batch_norm ops (batchnorm.go) compute every float type in float64
// and round each result once; per-feature sums run in a fixed order on
// workers that own ranges of features (bnvalues.go converts the tensors).
//
// Example: dot_general of f32[2,4,3] and f32[2,3,5] with batching dims [0]
// x [0] and contracting dims [2] x [1] is a batch of two 4x3 by 3x5 GEMMs
// read in place (A rows stride 3, columns stride 1; B rows stride 5).
package linalg
