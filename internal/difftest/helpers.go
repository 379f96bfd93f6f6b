package difftest

// Helpers the printed programs call (exported so that a printed program
// pasted into a test of another package compiles).

// MergeAxes returns dims with axes a and a+1 merged into one.
func MergeAxes(dims []int64, a int) []int64 {
	return append(append(append([]int64{}, dims[:a]...), dims[a]*dims[a+1]), dims[a+2:]...)
}

// SplitAxis returns dims with axis a split into f and dims[a]/f.
func SplitAxis(dims []int64, a int, f int64) []int64 {
	return append(append(append([]int64{}, dims[:a]...), f, dims[a]/f), dims[a+1:]...)
}

// Stride2 returns strides of 1 for rank axes except 2 for axis a.
func Stride2(rank, a int) []int64 {
	s := make([]int64, rank)
	for i := range s {
		s[i] = 1
	}
	s[a] = 2
	return s
}
