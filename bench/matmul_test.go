package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

var sizes = []int{256, 512, 1024}

// BenchmarkMatMul runs C = A x B on square row-major matrices with each
// implementation and reports GFLOP/s (2n^3 per product). xlajit runs a
// compiled dot_general module on the embedded device, output allocation
// included.
func BenchmarkMatMul(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("impl=xlajit/dtype=f32/n=%d", n), func(b *testing.B) { benchXlajit(b, hlo.F32, n) })
		b.Run(fmt.Sprintf("impl=gonum/dtype=f32/n=%d", n), func(b *testing.B) { benchGonum32(b, n) })
		b.Run(fmt.Sprintf("impl=naive/dtype=f32/n=%d", n), func(b *testing.B) { benchNaive(b, n) })
		b.Run(fmt.Sprintf("impl=xlajit/dtype=f64/n=%d", n), func(b *testing.B) { benchXlajit(b, hlo.F64, n) })
		b.Run(fmt.Sprintf("impl=gonum/dtype=f64/n=%d", n), func(b *testing.B) { benchGonum64(b, n) })
	}
}

func gflops(b *testing.B, n int) {
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func randF32(n int) []float32 {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*2 - 1
	}
	return x
}

func randF64(n int) []float64 {
	r := rand.New(rand.NewPCG(uint64(n), 2))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.Float64()*2 - 1
	}
	return x
}

// matmulModule is func @main(%a, %b) { return dot_general(%a, %b) }.
func matmulModule(dt hlo.DType, n int64) *hlo.Module {
	t := hlo.NewTensorType(dt, n, n)
	f := &hlo.Func{Name: "main", ResultTypes: []hlo.Type{t}, Body: &hlo.Region{Blocks: []*hlo.Block{{}}}}
	f.Args = []*hlo.Value{{Type: t, Index: 0}, {Type: t, Index: 1}}
	f.Body.Blocks[0].Args = f.Args
	dot := hlo.NewOp("stablehlo.dot_general", f.Args, []hlo.Type{t}, hlo.NamedAttr{
		Name:  "dot_dimension_numbers",
		Value: &hlo.DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}},
	})
	f.Body.Blocks[0].Ops = []*hlo.Op{dot, hlo.NewOp("func.return", dot.Results, nil)}
	return &hlo.Module{Funcs: []*hlo.Func{f}}
}

func benchXlajit(b *testing.B, dt hlo.DType, n int) {
	p, err := host.Compile(matmulModule(dt, int64(n)))
	if err != nil {
		b.Fatal(err)
	}
	var x, y *hlo.Literal
	if dt == hlo.F32 {
		x, y = hlo.LiteralFromSlice(randF32(n*n), int64(n), int64(n)), hlo.LiteralFromSlice(randF32(n*n + 1)[1:], int64(n), int64(n))
	} else {
		x, y = hlo.LiteralFromSlice(randF64(n*n), int64(n), int64(n)), hlo.LiteralFromSlice(randF64(n*n + 1)[1:], int64(n), int64(n))
	}
	args := []kernel.Value{x, y}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Run(nil, args); err != nil {
			b.Fatal(err)
		}
	}
	gflops(b, n)
}

func benchGonum32(b *testing.B, n int) {
	a := blas32.General{Rows: n, Cols: n, Stride: n, Data: randF32(n * n)}
	x := blas32.General{Rows: n, Cols: n, Stride: n, Data: randF32(n*n + 1)[1:]}
	c := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, c)
	}
	gflops(b, n)
}

func benchGonum64(b *testing.B, n int) {
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: randF64(n * n)}
	x := blas64.General{Rows: n, Cols: n, Stride: n, Data: randF64(n*n + 1)[1:]}
	c := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, c)
	}
	gflops(b, n)
}

// benchNaive is the plain triple loop a Go user writes first (i-k-j order
// so the inner loop walks rows; one goroutine).
func benchNaive(b *testing.B, n int) {
	a, x := randF32(n*n), randF32(n*n + 1)[1:]
	c := make([]float32, n*n)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		clear(c)
		for i := 0; i < n; i++ {
			ci := c[i*n : (i+1)*n]
			for k := 0; k < n; k++ {
				aik := a[i*n+k]
				bk := x[k*n : (k+1)*n]
				for j := range ci {
					ci[j] += aik * bk[j]
				}
			}
		}
	}
	gflops(b, n)
}

// TestMatMulAgrees checks that the compared implementations compute the
// same product (so the benchmark compares like with like).
func TestMatMulAgrees(t *testing.T) {
	const n = 67
	p, err := host.Compile(matmulModule(hlo.F32, n))
	if err != nil {
		t.Fatal(err)
	}
	av, bv := randF32(n*n), randF32(n*n + 1)[1:]
	res, err := p.Run(nil, []kernel.Value{hlo.LiteralFromSlice(av, n, n), hlo.LiteralFromSlice(bv, n, n)})
	if err != nil {
		t.Fatal(err)
	}
	got := res[0].(*hlo.Literal).F32()
	c := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, blas32.General{Rows: n, Cols: n, Stride: n, Data: av}, blas32.General{Rows: n, Cols: n, Stride: n, Data: bv}, 0, c)
	for i := range got {
		if d := got[i] - c.Data[i]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("element %d: xlajit %v, gonum %v", i, got[i], c.Data[i])
		}
	}
}
