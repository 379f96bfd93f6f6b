//go:build !amd64 || purego

package elementwise

// Without the assembly the Go loops do all the work.
const haveVec = false

func exp32Vec(d, a []float32)      { exp32g(d, a) }
func tanh32Vec(d, a []float32)     { tanh32g(d, a) }
func logistic32Vec(d, a []float32) { logistic32g(d, a) }
