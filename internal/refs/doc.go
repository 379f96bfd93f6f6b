// Package refs drops the references a short, reused slice holds, for the
// replay path's scratch slices (arguments, results, fused operands).
//
// It is a leaf: it imports nothing, and every package may import it.
package refs
