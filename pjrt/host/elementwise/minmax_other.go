//go:build !amd64 || purego

package elementwise

func max32(d, a, b []float32) { maxK(d, a, b) }
func min32(d, a, b []float32) { minK(d, a, b) }
