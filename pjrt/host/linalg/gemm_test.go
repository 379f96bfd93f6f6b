package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// f64Gemm is the float64 reference: c[b][i][j] = sum_p a(b,i,p)*b(b,p,j).
func f64Gemm[T float](batch, m, n, k int, a, b matrix[T]) []float64 {
	c := make([]float64, batch*m*n)
	for bi := 0; bi < batch; bi++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for p := 0; p < k; p++ {
					s += float64(a.data[a.off[bi]+i*a.rs+p*a.cs]) * float64(b.data[b.off[bi]+p*b.rs+j*b.cs])
				}
				c[(bi*m+i)*n+j] = s
			}
		}
	}
	return c
}

// randMatrix makes a batch of m x k views, row-major or transposed.
func randMatrix[T float](r *rand.Rand, batch, rows, cols int, transposed bool) matrix[T] {
	data := make([]T, batch*rows*cols+3)
	for i := range data {
		data[i] = T(r.Float64()*2 - 1)
	}
	mt := matrix[T]{data: data, off: make([]int, batch)}
	for b := range mt.off {
		mt.off[b] = 3 + b*rows*cols
	}
	if transposed {
		mt.rs, mt.cs = 1, rows
	} else {
		mt.rs, mt.cs = cols, 1
	}
	return mt
}

func checkGemm[T float](t *testing.T, kern *microKernel[T], batch, m, n, k int, ta, tb bool, tol float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(m*1000+n), uint64(k)))
	a := randMatrix[T](r, batch, m, k, ta)
	b := randMatrix[T](r, batch, k, n, tb)
	c := make([]T, batch*m*n)
	off := make([]int, batch)
	for i := range off {
		off[i] = i * m * n
	}
	gemm(kern, batch, m, n, k, a, b, matrix[T]{data: c, off: off, rs: n, cs: 1})
	want := f64Gemm(batch, m, n, k, a, b)
	for i := range want {
		if d := math.Abs(float64(c[i]) - want[i]); d > tol*float64(k) {
			t.Fatalf("%s batch=%d m=%d n=%d k=%d ta=%v tb=%v: c[%d]=%v want %v", kern.name, batch, m, n, k, ta, tb, i, c[i], want[i])
		}
	}
}

func gemmShapes() [][4]int {
	return [][4]int{
		{1, 1, 1, 1}, {1, 4, 6, 3}, {1, 7, 5, 9}, {2, 13, 17, 31}, {1, 33, 65, 300},
		{3, 150, 20, 7}, {1, 2, 300, 40}, {1, 300, 2, 40}, {1, 200, 190, 600},
		{1, 6, 16, 1}, {5, 12, 32, 8}, {1, 1, 1000, 3},
	}
}

func testKernels[T float](t *testing.T, kerns []*microKernel[T], tol float64) {
	for _, kern := range kerns {
		for _, s := range gemmShapes() {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					checkGemm(t, kern, s[0], s[1], s[2], s[3], ta, tb, tol)
				}
			}
		}
	}
}

func TestGemmF32(t *testing.T) { testKernels(t, kernelsF32(), 1e-6) }
func TestGemmF64(t *testing.T) { testKernels(t, kernelsF64(), 1e-14) }

func BenchmarkGemmKernel(b *testing.B) {
	for _, kern := range kernelsF32() {
		for _, n := range []int{256, 512} {
			b.Run(fmt.Sprintf("f32/%s/%d", kern.name, n), func(b *testing.B) {
				benchGemm(b, kern, n)
			})
		}
	}
	for _, kern := range kernelsF64() {
		b.Run(fmt.Sprintf("f64/%s/%d", kern.name, 512), func(b *testing.B) {
			benchGemm(b, kern, 512)
		})
	}
}

func benchGemm[T float](b *testing.B, kern *microKernel[T], n int) {
	r := rand.New(rand.NewPCG(1, 2))
	x := randMatrix[T](r, 1, n, n, false)
	y := randMatrix[T](r, 1, n, n, false)
	c := matrix[T]{data: make([]T, n*n), off: []int{0}, rs: n, cs: 1}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gemm(kern, 1, n, n, n, x, y, c)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
