package lazy_test

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

func ExampleFromSlice() {
	x := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3) // copied to the default device
	fmt.Println(x.Shape(), x.Float32s())
	fmt.Println(x)
	i := lazy.FromSlice([]int64{7, 8}) // no dims: 1-D
	fmt.Println(i.Shape(), i.Int64s())
	// Output:
	// f32[2,3] [1 2 3 4 5 6]
	// f32[2,3] [[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]
	// i64[2] [7 8]
}

func ExampleTensor_MatMul() {
	a := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := lazy.FromSlice([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	fmt.Println(a.MatMul(b).Float32s())
	// Batched: [2, 2, 3] x [3, 2] -> [2, 2, 2].
	batch := lazy.Stack(0, a, a.MulScalar(10))
	fmt.Println(batch.MatMul(b).Shape())
	// Output:
	// [4 5 10 11]
	// f32[2,2,2]
}

// Every reduction drops the axes it reduces; its KeepDims form keeps them
// as size 1 (PyTorch's keepdim=True), which broadcasts back against x.
func ExampleTensor_SumKeepDims() {
	x := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.Sum(1).Shape(), x.SumKeepDims(1).Shape())
	fmt.Println(x.ArgMax(1).Int64s(), x.ArgMaxKeepDims(1).Shape())
	fmt.Println(x.Sub(x.MeanKeepDims(1)).Float32s()) // centred rows
	// Output:
	// f32[2] f32[2,1]
	// [2 2] i64[2,1]
	// [-1 0 1 -1 0 1]
}

func ExampleGrad() {
	// loss = sum(w * x^2): d/dx = 2 w x, d/dw = x^2.
	x := lazy.FromSlice([]float64{1, 2, 3})
	w := lazy.FromSlice([]float64{0.5, -1, 2})
	loss := x.Square().Mul(w).Sum()
	g := lazy.Grad(loss, x, w)
	fmt.Println(loss.Item(), g[0].Float64s(), g[1].Float64s())
	// Output:
	// 14.5 [1 -4 12] [1 4 9]
}

func ExampleSync() {
	x := lazy.FromSlice([]float32{1, 2, 3})
	y := x.Exp().Sum() // recorded, not run
	z := x.MulScalar(2)
	fmt.Println(y.IsPending(), z.IsPending())
	before := lazy.Counter(lazy.MetricExecuteCount)
	if err := lazy.Sync(y, z); err != nil { // one graph computes both
		panic(err)
	}
	fmt.Println(y.IsPending(), z.IsPending(), lazy.Counter(lazy.MetricExecuteCount)-before)
	// Output:
	// true true
	// false false 1
}

func ExampleCounter() {
	exec := lazy.Counter(lazy.MetricExecuteCount)
	toHost := lazy.Counter(lazy.MetricTransferFromDevice)
	items := lazy.Counter(lazy.MetricGraphCutPrefix + "Item")

	x := lazy.FromSlice([]float32{3, 4})
	n := x.Square().Sum().Sqrt().Item() // a cut: run the graph, copy the result to the host

	fmt.Println(n)
	fmt.Println("executions:", lazy.Counter(lazy.MetricExecuteCount)-exec)
	fmt.Println("transfers to the host:", lazy.Counter(lazy.MetricTransferFromDevice)-toHost)
	fmt.Println("cuts by Item:", lazy.Counter(lazy.MetricGraphCutPrefix+"Item")-items)
	// Output:
	// 5
	// executions: 1
	// transfers to the host: 1
	// cuts by Item: 1
}

func ExampleTensor_Assign() {
	// Gradient descent on f(w) = sum((w - 3)^2): each Assign replaces w's
	// value in place; the updates stay pending until w is read.
	w := lazy.FromSlice([]float64{0, 10})
	for range 3 {
		loss := w.SubScalar(3).Square().Sum()
		g := lazy.Grad(loss, w)[0]
		w.Assign(w.Sub(g.MulScalar(0.25)))
	}
	fmt.Println(w.IsPending(), w.Float64s())
	// Output:
	// true [2.625 3.875]
}

func ExampleHostFunc() {
	// cumulativeMax is Go code run on the host between device computations.
	cumulativeMax := func(in []*hlo.Literal) ([]*hlo.Literal, error) {
		out := in[0].Clone()
		v := out.F32()
		for i := 1; i < len(v); i++ {
			v[i] = max(v[i], v[i-1])
		}
		return []*hlo.Literal{out}, nil
	}
	x := lazy.FromSlice([]float32{1, 3, 2, 5, 4})
	y := lazy.HostFunc("cumulativeMax", cumulativeMax, x.Shape())(x.MulScalar(2))[0]
	fmt.Println(y.AddScalar(1).Float32s())
	// Output:
	// [3 7 7 11 11]
}
