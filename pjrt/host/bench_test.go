package host

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// addOneModule is main(x: f32[]) = x + 1.
func addOneModule() *hlo.Module {
	b := newFunc("main", f32t())
	one := b.constant(hlo.ScalarLiteral(hlo.F32, 1))
	return module(b.ret(b.op("stablehlo.add", f32t(), []*hlo.Value{b.arg(0), one})))
}

// BenchmarkExecuteTiny is the per-call overhead of the embedded device: a
// compiled x + 1 on one f32 through Client.Compile and Executable.Execute.
func BenchmarkExecuteTiny(b *testing.B) {
	c := NewClient(1)
	exe, err := c.Compile(addOneModule(), pjrt.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	x, err := c.BufferFromHost(hlo.ScalarLiteral(hlo.F32, 2), 0)
	if err != nil {
		b.Fatal(err)
	}
	args := []pjrt.Buffer{x}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exe.Execute(args, pjrt.ExecuteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		out[0].Delete()
	}
}

const chainN = 1 << 20

func chainArgs() (x []float32, a, bb, c float32) {
	x = make([]float32, chainN)
	for i := range x {
		x[i] = float32(i%2001-1000) / 300
	}
	return x, 0.75, 0.125, 1.5
}

// BenchmarkChainDevice runs tanh(x*a+b)*c on 1M f32 through the device
// (one fused step). Bytes are the input read plus the output written.
func BenchmarkChainDevice(b *testing.B) {
	benchChain(b, true)
}

// BenchmarkChainDeviceUnfused is the same program with one step per op.
func BenchmarkChainDeviceUnfused(b *testing.B) {
	benchChain(b, false)
}

func benchChain(b *testing.B, fuse bool) {
	p, err := compile(tanhChain(chainN), fuse)
	if err != nil {
		b.Fatal(err)
	}
	c := NewClient(1)
	exe := &Executable{client: c, prog: p, nOut: 1}
	xs, a, bb, cc := chainArgs()
	var args []pjrt.Buffer
	for _, l := range []*hlo.Literal{hlo.LiteralFromSlice(xs), hlo.ScalarLiteral(hlo.F32, float64(a)), hlo.ScalarLiteral(hlo.F32, float64(bb)), hlo.ScalarLiteral(hlo.F32, float64(cc))} {
		buf, err := c.BufferFromHost(l, 0)
		if err != nil {
			b.Fatal(err)
		}
		args = append(args, buf)
	}
	b.SetBytes(chainN * 8)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exe.Execute(args, pjrt.ExecuteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		out[0].Delete()
	}
}

// BenchmarkChainGoLoop is the plain Go loop over []float32 with math.Tanh.
func BenchmarkChainGoLoop(b *testing.B) {
	xs, a, bb, c := chainArgs()
	y := make([]float32, chainN)
	b.SetBytes(chainN * 8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j, v := range xs {
			y[j] = float32(math.Tanh(float64(v*a+bb))) * c
		}
	}
}
