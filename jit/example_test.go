package jit_test

import (
	"fmt"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

func ExampleCompile() {
	// A train step: forward, gradient and an in-place update of w. The
	// first call traces and compiles; later calls replay the program.
	w := lazy.FromSlice([]float32{0, 0})
	step := jit.Compile(func(x, y *lazy.Tensor, lr float64) *lazy.Tensor {
		loss := x.MatMul(w).Sub(y).Square().Mean()
		g := lazy.Grad(loss, w)[0]
		w.Assign(w.Sub(g.MulScalar(lr)))
		return loss
	})
	x := lazy.FromSlice([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	y := lazy.FromSlice([]float32{2, -1, 1}) // y = x @ [2, -1]
	for i := 1; i <= 200; i++ {
		loss := step(x, y, 0.5)
		if i == 1 || i == 200 {
			fmt.Printf("step %d: loss %.4f\n", i, loss.Item())
		}
	}
	fmt.Printf("w = %.3f\n", w.Float32s())
	fmt.Println(jit.StatsOf(step))
	// Output:
	// step 1: loss 2.0000
	// step 200: loss 0.0000
	// w = [2.000 -1.000]
	// calls=200 traces=1 compiles=1 replays=200 recompiles=0 graph_breaks=0 host_fallbacks=0
}

func ExampleStatsOf() {
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Exp().Sum() })
	a := lazy.FromSlice([]float32{1, 2, 3})
	b := lazy.FromSlice([]float32{1, 2, 3, 4})
	f(a)
	f(a)
	fmt.Println(jit.StatsOf(f))
	f(b) // a new shape: a second trace
	f(a) // both signatures stay compiled
	s := jit.StatsOf(f)
	fmt.Println(s)
	fmt.Println(s.Traces, s.Recompiles)
	// Output:
	// calls=2 traces=1 compiles=1 replays=2 recompiles=0 graph_breaks=0 host_fallbacks=0
	// calls=4 traces=2 compiles=2 replays=4 recompiles=1 graph_breaks=0 host_fallbacks=0
	// 2 1
}

func ExampleExplain() {
	// act is a plain Go value: part of the input signature.
	layer := jit.Compile(func(x *lazy.Tensor, act string) *lazy.Tensor {
		if act == "relu" {
			return x.ReLU()
		}
		return x.Tanh()
	}, jit.WithName("layer"))
	x := lazy.FromSlice([]float32{-1, 0, 1})
	layer(x, "relu")
	layer(x, "tanh")                                // a changed static argument
	layer(lazy.FromSlice([]float32{-1, 1}), "tanh") // a new shape
	fmt.Print(jit.Explain(layer))

	// Reading a value inside the function is a graph break: the function
	// runs lazily from then on, and Explain names the call site.
	clip := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor {
		if x.ReduceMax().Item() > 1 {
			return x.DivScalar(x.ReduceMax().Item())
		}
		return x
	}, jit.WithName("clip"))
	fmt.Println(clip(lazy.FromSlice([]float32{1, 4})).Float32s())
	fmt.Print(jit.Explain(clip))
	// Output:
	// layer: calls=3 traces=3 compiles=3 replays=3 recompiles=2 graph_breaks=0 host_fallbacks=0
	//   trace: arg 0=f32[3]@cpu:0, arg 1="relu"
	//   recompile 1: arg 1: "relu" -> "tanh"
	//   recompile 2: arg 0: f32[3]@cpu:0 -> f32[2]@cpu:0
	// [0.25 1]
	// clip: calls=1 traces=0 compiles=0 replays=0 recompiles=0 graph_breaks=1 host_fallbacks=0
	//   graph break: Item at jit/example_test.go:72
}

func ExampleFullGraph() {
	// Under FullGraph a graph break is an error (returned when the
	// function's last result is an error, a panic otherwise) instead of a
	// silent fallback to lazy mode.
	f := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) {
		if x.Sum().Item() > 0 {
			return x, nil
		}
		return x.Neg(), nil
	}, jit.FullGraph(), jit.WithName("f"))
	_, err := f(lazy.FromSlice([]float32{1, 2}))
	fmt.Println(err)

	// So is going past the recompile limit.
	g := jit.Compile(func(x *lazy.Tensor) (*lazy.Tensor, error) { return x.AddScalar(1), nil },
		jit.FullGraph(), jit.WithRecompileLimit(1), jit.WithName("g"))
	_, err = g(lazy.Zeros(lazy.F32, 2))
	fmt.Println(err)
	_, err = g(lazy.Zeros(lazy.F32, 3))
	fmt.Println(err)
	// Output:
	// jit f: graph break: Item at jit/example_test.go:94 reads a tensor value inside the traced function
	// <nil>
	// jit g: recompile limit 1 reached (arg 0: f32[2]@cpu:0 -> f32[3]@cpu:0)
}
