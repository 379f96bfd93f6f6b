// Package linalg holds the embedded device's linear-algebra ops:
// dot_general and dot (a blocked, parallel f32/f64 kernel and a generic
// path for every other type), convolution, fft, triangular_solve, cholesky
// and rng_bit_generator.
//
// Place in the flow: registered into kernel's op table; run by package host.
// Imports hlo and pjrt/host/kernel only.
package linalg
