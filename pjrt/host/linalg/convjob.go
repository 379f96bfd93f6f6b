package linalg

import (
	"sync"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// convJob is one parallel loop of a planes convolution: its operands and
// the sizes its body needs, and which body runs (a function of the job
// rather than a closure over the caller's locals; a kind, not a function
// value: a generic function's value is a closure over its dictionary). Jobs are pooled with their loop
// function bound once, so that a convolution allocates nothing per
// execution for its loop.
type convJob[T float] struct {
	body                convBody
	q                   *planesConv
	kern                *microKernel[T]
	lhs, rhs, out       []T
	packed              []T // runDirect: the packed W; runAcc: the partial sums
	mp, ck, kc, aSize   int
	ypad, panels, slabs int
	planeLen            int
	cols, size, slab    int
	chunks              int
	fn                  func(lo, hi int)
}

var convJobs = floatPools{
	f32: sync.Pool{New: func() any { j := new(convJob[float32]); j.fn = j.run; return j }},
	f64: sync.Pool{New: func() any { j := new(convJob[float64]); j.fn = j.run; return j }},
}

// convBody names a convJob's loop body.
type convBody int

const (
	bodyDirect convBody = iota // directTasks
	bodyAcc                    // accChunks
)

func (j *convJob[T]) run(lo, hi int) {
	switch j.body {
	case bodyDirect:
		directTasks(j, lo, hi)
	case bodyAcc:
		accChunks(j, lo, hi)
	}
}

// runConvJob runs j's body over [0, n) on the worker pool, then clears
// and pools j.
func runConvJob[T float](j *convJob[T], n int) {
	kernel.ParallelFor(n, 1, j.fn)
	fn := j.fn
	*j = convJob[T]{fn: fn}
	poolOf[T](&convJobs).Put(j)
}

// getConvJob returns a cleared job.
func getConvJob[T float]() *convJob[T] { return poolOf[T](&convJobs).Get().(*convJob[T]) }
