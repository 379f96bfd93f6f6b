// Package fmapeak measures the machine's f32 fused multiply-add peak: a
// loop of independent FMA chains in assembly (AVX2 and AVX-512 on amd64),
// run on every core at once, so that a GEMM's GFLOP/s can be read as a
// fraction of what the same machine reached in the same run.
package fmapeak
