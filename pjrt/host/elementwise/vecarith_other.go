//go:build !amd64 || purego

package elementwise

// Without the assembly the Go loops do all the work.
var vecISAs []vecISA

func vecBinaryISA[T float32 | float64](op vecOp, isa vecISA) (func(d, a, b *T, bytes int), int) {
	return nil, 0
}
