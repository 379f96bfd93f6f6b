package linalg

// SetIm2colChunk shrinks the im2col chunk for a test and returns the undo.
func SetIm2colChunk(n int) func() {
	old := im2colChunk
	im2colChunk = n
	return func() { im2colChunk = old }
}
