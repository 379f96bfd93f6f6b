package movement

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Benchmarks: reduce-sum of 16M f32 (one axis and all axes) beside plain Go
// loops, and a 2048x2048 f32 transpose beside a naive loop.

const benchN = 4096 // benchN x benchN = 16M elements

func benchInput(dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.F32, dims...)
	for i := range l.F32() {
		l.F32()[i] = float32(i%1000) * 0.001
	}
	return l
}

func benchRun(b *testing.B, op *hlo.Op, args ...*hlo.Literal) {
	fn, err := compile(op)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]kernel.Value, len(args))
	for i, a := range args {
		in[i] = a
	}
	res := make([]kernel.Value, len(op.Results))
	// As in the planner, each result's storage goes back to the execution's
	// pool after use, so the figures are the kernel's, not the allocator's.
	x := &kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Pool: &kernel.Pool{}}
	b.SetBytes(int64(len(args[0].Data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := fn(x, in, res); err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			x.Pool.Put(r.(*hlo.Literal))
		}
	}
}

func benchReduce(b *testing.B, dims []int64, out []int64) {
	in := benchInput(benchN, benchN)
	benchRun(b, reduceOpOf(hlo.F32, []int64{benchN, benchN}, dims, out, binRegion("stablehlo.add", hlo.F32)), in, hlo.ScalarLiteral(hlo.F32, 0))
}

func BenchmarkReduceSumAll16M(b *testing.B)    { benchReduce(b, []int64{0, 1}, nil) }
func BenchmarkReduceSumAxis1_16M(b *testing.B) { benchReduce(b, []int64{1}, []int64{benchN}) }
func BenchmarkReduceSumAxis0_16M(b *testing.B) { benchReduce(b, []int64{0}, []int64{benchN}) }

var sink float32

func BenchmarkLoopSumAll16M(b *testing.B) {
	xs := benchInput(benchN, benchN).F32()
	b.SetBytes(int64(4 * len(xs)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var s float32
		for _, v := range xs {
			s += v
		}
		sink = s
	}
}

func BenchmarkLoopSumAxis1_16M(b *testing.B) {
	xs := benchInput(benchN, benchN).F32()
	out := make([]float32, benchN)
	b.SetBytes(int64(4 * len(xs)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for r := 0; r < benchN; r++ {
			var s float32
			for _, v := range xs[r*benchN : (r+1)*benchN] {
				s += v
			}
			out[r] = s
		}
	}
}

func BenchmarkLoopSumAxis0_16M(b *testing.B) {
	xs := benchInput(benchN, benchN).F32()
	out := make([]float32, benchN)
	b.SetBytes(int64(4 * len(xs)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(out)
		for r := 0; r < benchN; r++ {
			row := xs[r*benchN : (r+1)*benchN]
			for j, v := range row {
				out[j] += v
			}
		}
	}
}

func BenchmarkTranspose2048(b *testing.B) {
	in := benchInput(2048, 2048)
	benchRun(b, mkOp("stablehlo.transpose", []hlo.Type{in.Type()}, []hlo.Type{in.Type()}, attr("permutation", ints(1, 0))), in)
}

func BenchmarkLoopTranspose2048(b *testing.B) {
	const n = 2048
	xs := benchInput(n, n).F32()
	out := make([]float32, n*n)
	b.SetBytes(int64(4 * len(xs)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				out[c*n+r] = xs[r*n+c]
			}
		}
	}
}

// Per-call overhead on small tensors (the common case in replayed graphs).
func BenchmarkSmallOps(b *testing.B) {
	x := hlo.NewLiteral(hlo.F32, 4, 8)
	s := hlo.NewLiteral(hlo.F32)
	b.Run("broadcast", func(b *testing.B) {
		benchRun(b, mkOp("stablehlo.broadcast_in_dim", []hlo.Type{s.Type()}, []hlo.Type{tt(hlo.F32, 4, 8)}, attr("broadcast_dimensions", ints())), s)
	})
	b.Run("transpose", func(b *testing.B) {
		benchRun(b, mkOp("stablehlo.transpose", []hlo.Type{x.Type()}, []hlo.Type{tt(hlo.F32, 8, 4)}, attr("permutation", ints(1, 0))), x)
	})
	b.Run("slice", func(b *testing.B) {
		benchRun(b, mkOp("stablehlo.slice", []hlo.Type{x.Type()}, []hlo.Type{tt(hlo.F32, 2, 8)}, attr("start_indices", ints(1, 0)), attr("limit_indices", ints(3, 8))), x)
	})
	b.Run("concatenate", func(b *testing.B) {
		benchRun(b, mkOp("stablehlo.concatenate", []hlo.Type{x.Type(), x.Type()}, []hlo.Type{tt(hlo.F32, 8, 8)}, attr("dimension", hlo.IntAttr{Value: 0})), x, x)
	})
	b.Run("reduce", func(b *testing.B) {
		benchRun(b, reduceOpOf(hlo.F32, []int64{4, 8}, []int64{1}, []int64{4}, binRegion("stablehlo.add", hlo.F32)), x, s)
	})
	b.Run("reshape", func(b *testing.B) {
		benchRun(b, mkOp("stablehlo.reshape", []hlo.Type{x.Type()}, []hlo.Type{tt(hlo.F32, 32)}), x)
	})
}
