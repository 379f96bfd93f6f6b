package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// Batch is the batch size Predict is traced for.
const Batch = 32

// params are the MLP's weights.
type params struct{ W1, B1, W2, B2 *lazy.Tensor }

func newParams(seed uint64) params {
	lazy.ManualSeed(seed)
	p := params{
		W1: lazy.RandN(lazy.F32, 784, 64).MulScalar(math.Sqrt(2.0 / 784)),
		B1: lazy.Zeros(lazy.F32, 64),
		W2: lazy.RandN(lazy.F32, 64, 10).MulScalar(math.Sqrt(2.0 / 64)),
		B2: lazy.Zeros(lazy.F32, 10),
	}
	if err := lazy.Sync(p.W1, p.B1, p.W2, p.B2); err != nil {
		panic(err)
	}
	return p
}

// images returns a batch of n random images.
func images(n int64) *lazy.Tensor {
	x := lazy.RandUniform(lazy.F32, 0, 1, n, 784)
	if err := lazy.Sync(x); err != nil {
		panic(err)
	}
	return x
}

func run(out io.Writer) error {
	p := newParams(1)
	x := images(Batch)
	probs := PredictAOT(x, p.W1, p.B1, p.W2, p.B2)
	classes := probs.ArgMax(1).Int64s()
	fmt.Fprintf(out, "predicted classes of the first 8 images: %v\n", classes[:8])
	fmt.Fprintf(out, "PredictAOT: %s\n", jit.StatsOf(PredictAOT))
	m := newClassifier()
	fmt.Fprintf(out, "classifier's classes of the first 8 images: %v\n", ClassifyAOT(m, x).Int64s()[:8])
	fmt.Fprintf(out, "ClassifyAOT: %s\n", jit.StatsOf(ClassifyAOT))
	return nil
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "aot:", err)
		os.Exit(1)
	}
}
