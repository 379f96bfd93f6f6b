package linalg_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// BenchmarkDotGeneral times a compiled single-op module C = A x B on n x n
// operands, output allocation included, and reports GFLOP/s (2n^3 per op).
func BenchmarkDotGeneral(b *testing.B) {
	for _, dt := range []hlo.DType{hlo.F32, hlo.F64} {
		for _, n := range []int64{256, 512, 1024} {
			b.Run(fmt.Sprintf("%s/%d", dt, n), func(b *testing.B) {
				c := dotCase{lhs: []int64{n, n}, rhs: []int64{n, n}, lc: []int64{1}, rc: []int64{0}}
				m := singleOpModule("stablehlo.dot_general", []hlo.Type{tt(dt, n, n), tt(dt, n, n)}, []hlo.Type{tt(dt, n, n)}, dotAttr(c))
				p, err := host.Compile(m)
				if err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewPCG(1, 2))
				args := []kernel.Value{randLiteral(r, dt, n, n), randLiteral(r, dt, n, n)}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := p.Run(nil, args); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkConvolution times NHWC 3x3 "same" convolutions (ResNet-like
// layers) through a compiled module and reports GFLOP/s.
func BenchmarkConvolution(b *testing.B) {
	for _, s := range []struct{ n, hw, c, o int64 }{{1, 56, 64, 64}, {8, 28, 128, 128}, {1, 224, 3, 32}} {
		b.Run(fmt.Sprintf("f32/%dx%dx%dx%d_o%d", s.n, s.hw, s.hw, s.c, s.o), func(b *testing.B) {
			c := convCase{lhs: []int64{s.n, s.hw, s.hw, s.c}, rhs: []int64{3, 3, s.c, s.o}, dn: nhwc(2), pad: []int64{1, 1, 1, 1}}
			c.fill()
			od := c.outDims()
			m := singleOpModule("stablehlo.convolution", []hlo.Type{tt(hlo.F32, c.lhs...), tt(hlo.F32, c.rhs...)}, []hlo.Type{tt(hlo.F32, od...)}, c.attrs()...)
			p, err := host.Compile(m)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			args := []kernel.Value{randLiteral(r, hlo.F32, c.lhs...), randLiteral(r, hlo.F32, c.rhs...)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.Run(nil, args); err != nil {
					b.Fatal(err)
				}
			}
			flops := 2 * float64(hlo.NumElements(od)) * float64(9*s.c)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkFactor times cholesky and a left triangular_solve with n
// right-hand sides on n x n f64 matrices (n^3/3 and n^3 multiply-adds).
func BenchmarkFactor(b *testing.B) {
	for _, n := range []int64{256, 1024} {
		r := rand.New(rand.NewPCG(4, 4))
		a := hpdMatrix(r, hlo.F64, []int64{n, n}, true)
		b.Run(fmt.Sprintf("cholesky/f64/%d", n), func(b *testing.B) {
			benchOp(b, "stablehlo.cholesky", []*hlo.Literal{a}, tt(hlo.F64, n, n), float64(n*n*n)/3, hlo.NamedAttr{Name: "lower", Value: hlo.BoolAttr(true)})
		})
		rhs := randLiteral(r, hlo.F64, n, n)
		b.Run(fmt.Sprintf("triangular_solve/f64/%d", n), func(b *testing.B) {
			benchOp(b, "stablehlo.triangular_solve", []*hlo.Literal{a, rhs}, tt(hlo.F64, n, n), float64(n*n*n), triAttrs(true, true, false, "NO_TRANSPOSE")...)
		})
	}
}

// benchOp runs a compiled single-op module and reports GFLOP/s for the
// given multiply-add count.
func benchOp(b *testing.B, name string, args []*hlo.Literal, out hlo.Type, macs float64, attrs ...hlo.NamedAttr) {
	var types []hlo.Type
	var vals []kernel.Value
	for _, a := range args {
		types = append(types, a.Type())
		vals = append(vals, a)
	}
	p, err := host.Compile(singleOpModule(name, types, []hlo.Type{out}, attrs...))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Run(nil, vals); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
