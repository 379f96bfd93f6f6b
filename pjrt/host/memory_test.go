package host

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

func mustExe(t *testing.T, c *Client, src string) pjrt.Executable {
	t.Helper()
	exe, err := c.Compile(parseText(t, src), pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func upload(t *testing.T, c *Client, l *hlo.Literal, dev int) pjrt.Buffer {
	t.Helper()
	b, err := c.BufferFromHost(l, dev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMemoryInfoCountsIntermediates: while a program runs, its live
// intermediates count as bytes in use on its device, so the peak of a run
// is its arguments, outputs and the largest set of intermediates alive at
// once; afterwards only buffers count, and ResetPeakBytes starts a new
// peak.
func TestMemoryInfoCountsIntermediates(t *testing.T) {
	c := NewClientWithLimit(2, 256<<20)
	const mib = 1 << 20
	// y = exp(x) and z = y.y are alive together with x (3 MiB); w = z + y
	// is the only output.
	exe := mustExe(t, c, `
func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %y = stablehlo.exponential %x : tensor<512x512xf32>
  %z = stablehlo.dot_general %y, %y, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %w = stablehlo.add %z, %y : tensor<512x512xf32>
  return %w : tensor<512x512xf32>
}`)
	x := upload(t, c, hlo.NewLiteral(hlo.F32, 512, 512), 1)
	if mi, _ := c.MemoryInfo(1); mi.BytesInUse != mib || mi.PeakBytes != mib || mi.BytesLimit != 256<<20 {
		t.Fatalf("after the upload: %+v", mi)
	}
	if err := pjrt.ResetPeakBytes(c, 1); err != nil {
		t.Fatal(err)
	}
	out, err := exe.Execute([]pjrt.Buffer{x}, pjrt.ExecuteOptions{Device: 1})
	if err != nil {
		t.Fatal(err)
	}
	mi, _ := c.MemoryInfo(1)
	if mi.BytesInUse != 2*mib {
		t.Errorf("after the run: %d bytes in use, want the argument and the output (%d)", mi.BytesInUse, 2*mib)
	}
	if mi.PeakBytes < 3*mib || mi.PeakBytes > 4*mib {
		t.Errorf("peak %d bytes, want x, y and z alive together (%d) and at most w too", mi.PeakBytes, 3*mib)
	}
	if other, _ := c.MemoryInfo(0); other.BytesInUse != 0 || other.PeakBytes != 0 {
		t.Errorf("device 0 holds nothing, reports %+v", other)
	}
	if err := c.ResetPeakBytes(1); err != nil {
		t.Fatal(err)
	}
	if mi, _ := c.MemoryInfo(1); mi.PeakBytes != 2*mib {
		t.Errorf("peak after reset = %d, want the bytes in use %d", mi.PeakBytes, 2*mib)
	}
	x.Delete()
	out[0].Delete()
	out[0].Delete() // a second Delete releases nothing
	if mi, _ := c.MemoryInfo(1); mi.BytesInUse != 0 {
		t.Errorf("after Delete: %d bytes in use", mi.BytesInUse)
	}
}

// TestMemoryAccountingLoops: a loop's iterations give back what they take,
// so a loop of many iterations ends with only its buffers counted and
// peaks at a few states, not one per iteration; concurrent executions
// leave the count exact too.
func TestMemoryAccountingLoops(t *testing.T) {
	c := NewClientWithLimit(1, 64<<20)
	exe := mustExe(t, c, `
func.func @main(%x: tensor<128x128xf32>) -> (tensor<i64>, tensor<128x128xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<128x128xf32>
  cond {
    %n = stablehlo.constant dense<200> : tensor<i64>
    %p = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %j = stablehlo.add %i, %one : tensor<i64>
    %t = stablehlo.transpose %v, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %w = stablehlo.tanh %t : tensor<128x128xf32>
    stablehlo.return %j, %w : tensor<i64>, tensor<128x128xf32>
  }
  return %r#0, %r#1 : tensor<i64>, tensor<128x128xf32>
}`)
	const state = 128 * 128 * 4
	x := upload(t, c, hlo.NewLiteral(hlo.F32, 128, 128), 0)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 3; k++ {
				out, err := exe.Execute([]pjrt.Buffer{x}, pjrt.ExecuteOptions{})
				if err != nil {
					errs <- err
					return
				}
				for _, b := range out {
					b.Delete()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mi, _ := c.MemoryInfo(0)
	if mi.BytesInUse != state {
		t.Errorf("%d bytes in use after the runs, want the argument's %d", mi.BytesInUse, state)
	}
	if mi.PeakBytes > state+8*8*state {
		t.Errorf("peak %d bytes: more than a few states per execution (%d each)", mi.PeakBytes, state)
	}
	x.Delete()
}

// TestCompactSplatConstants: a splat constant too large to expand at
// compile time is made at run time, fresh each execution (so returning it
// needs no copy), and equals the expanded constant, alone and fused.
func TestCompactSplatConstants(t *testing.T) {
	c := NewClientWithLimit(1, 64<<20)
	big := `dense<2.500000e+00> : tensor<300x300xf32>`
	exe := mustExe(t, c, `
func.func @main(%x: tensor<300x300xf32>) -> (tensor<300x300xf32>, tensor<300x300xf32>, tensor<300x300xf32>) {
  %c = stablehlo.constant `+big+`
  %s = stablehlo.add %x, %c : tensor<300x300xf32>
  %d = stablehlo.dot_general %x, %c, contracting_dims = [1] x [0] : (tensor<300x300xf32>, tensor<300x300xf32>) -> tensor<300x300xf32>
  return %c, %s, %d : tensor<300x300xf32>, tensor<300x300xf32>, tensor<300x300xf32>
}`)
	xs := make([]float32, 300*300)
	for i := range xs {
		xs[i] = float32(i%7) - 3
	}
	x := upload(t, c, hlo.LiteralFromSlice(xs, 300, 300), 0)
	for rep := 0; rep < 2; rep++ {
		out, err := exe.Execute([]pjrt.Buffer{x}, pjrt.ExecuteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got [3]*hlo.Literal
		for i := range got {
			got[i], _ = out[i].ToHost()
		}
		for i := 0; i < 300*300; i++ {
			row := i / 300
			dot := float32(0)
			for k := 0; k < 300; k++ {
				dot += xs[row*300+k] * 2.5
			}
			if got[0].F32()[i] != 2.5 || got[1].F32()[i] != xs[i]+2.5 || math.Abs(float64(got[2].F32()[i]-dot)) > 1e-3 {
				t.Fatalf("element %d: constant %v, sum %v, dot %v (want 2.5, %v, %v)", i, got[0].F32()[i], got[1].F32()[i], got[2].F32()[i], xs[i]+2.5, dot)
			}
		}
	}
	p := exe.(*Executable).Program()
	if !strings.Contains(p.PlanString(), "stablehlo.constant") {
		t.Errorf("the returned splat is not made by a step:\n%s", p.PlanString())
	}
	if p.entry.copyOut[0] {
		t.Errorf("the run-time splat is copied on return")
	}
}

// TestCallChain: a chain of functions each calling the next compiles in
// time linear in its length (a lookup by scanning the function list made
// 20k functions take seconds), runs, and recursion and chains deeper than
// the call depth limit are errors.
func TestCallChain(t *testing.T) {
	chain := func(n int) *hlo.Module {
		var b strings.Builder
		for i := 0; i < n-1; i++ {
			b.WriteString("func.func private @f" + itoa(i) + "(%x: tensor<i64>) -> tensor<i64> {\n  %r = func.call @f" + itoa(i+1) + "(%x) : (tensor<i64>) -> tensor<i64>\n  return %r : tensor<i64>\n}\n")
		}
		b.WriteString("func.func private @f" + itoa(n-1) + "(%x: tensor<i64>) -> tensor<i64> {\n  %c = stablehlo.constant dense<1> : tensor<i64>\n  %r = stablehlo.add %x, %c : tensor<i64>\n  return %r : tensor<i64>\n}\n")
		b.WriteString("func.func @main(%x: tensor<i64>) -> tensor<i64> {\n  %r = func.call @f0(%x) : (tensor<i64>) -> tensor<i64>\n  return %r : tensor<i64>\n}\n")
		return parseText(t, b.String())
	}
	timeCompile := func(n int) float64 {
		m := chain(n)
		best := math.Inf(1)
		for k := 0; k < 3; k++ {
			start := cpuSeconds()
			p, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			best = min(best, cpuSeconds()-start)
			if got := run(t, p, hlo.ScalarLiteral(hlo.I64, 41)); got[0].I64()[0] != 42 {
				t.Fatalf("chain of %d: got %d", n, got[0].I64()[0])
			}
		}
		return best
	}
	small, large := timeCompile(2000), timeCompile(20000)
	t.Logf("compile (CPU time): 2000 functions %.3fs, 20000 functions %.3fs", small, large)
	if large > 40*small+0.05 {
		t.Errorf("compile time grows faster than linearly: %.3fs for 2000 functions, %.3fs for 20000", small, large)
	}

	rec := parseText(t, `
func.func private @g(%x: tensor<i64>) -> tensor<i64> {
  %r = func.call @h(%x) : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func private @h(%x: tensor<i64>) -> tensor<i64> {
  %r = func.call @g(%x) : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func @main(%x: tensor<i64>) -> tensor<i64> {
  %r = func.call @g(%x) : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}`)
	if _, err := Compile(rec); err == nil || !strings.Contains(err.Error(), "recursive call of @g (@g -> @h -> @g)") {
		t.Errorf("recursion: %v", err)
	}
	defer func(old int) { callDepthLimit = old }(callDepthLimit)
	callDepthLimit = 100
	if _, err := Compile(chain(150)); err == nil || !strings.Contains(err.Error(), "@main nests function calls 150 deep, more than the 100") {
		t.Errorf("deep chain: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func nowSeconds() float64 { return float64(time.Now().UnixNano()) / 1e9 }
