//go:build !amd64 || purego

package elementwise

// Without the assembly the Go loops do all the work.
const haveVec = false

const vecLanes = 4

func exp32Vec(d, a []float32)      { exp32g(d, a) }
func tanh32Vec(d, a []float32)     { tanh32g(d, a) }
func logistic32Vec(d, a []float32) { logistic32g(d, a) }
func log32Vec(d, a []float32)      { log32g(d, a) }
func erf32Vec(d, a []float32)      { erf32g(d, a) }

func fastVec(name string, isa vecISA) (func(d, a []float32), int) { return nil, 0 }
