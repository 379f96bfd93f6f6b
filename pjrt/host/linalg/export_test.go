package linalg

// SetIm2colChunk shrinks the im2col chunk for a test and returns the undo.
func SetIm2colChunk(n int) func() {
	old := im2colChunk
	im2colChunk = n
	return func() { im2colChunk = old }
}

// The raw generators, for known-answer tests.
var (
	ThreeFry2x32 = threeFry2x32
	Philox4x32   = philox4x32
)
