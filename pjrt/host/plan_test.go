package host

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestAddOne(t *testing.T) {
	b := newFunc("main", f32t())
	one := b.constant(hlo.ScalarLiteral(hlo.F32, 1))
	m := module(b.ret(b.op("stablehlo.add", f32t(), []*hlo.Value{b.arg(0), one})))
	p := mustCompile(t, m)
	for _, x := range []float32{1, -3.5, 1e30} {
		got := run(t, p, hlo.ScalarLiteral(hlo.F32, float64(x)))
		if got[0].F32()[0] != x+1 {
			t.Errorf("%v + 1 = %v", x, got[0].F32()[0])
		}
	}
}

// TestChainFusion checks tanh(x*a+b)*c against a float64 reference and the
// fused plan's shape: one fused step.
func TestChainFusion(t *testing.T) {
	const n = 10000
	p := mustCompile(t, tanhChain(n))
	steps := p.entry.body.steps
	fused := 0
	for _, s := range steps {
		if s.fused != nil {
			fused++
			if len(s.fused.members) != 7 || len(s.fused.outVals) != 1 {
				t.Errorf("fused step has %d members and %d outputs, want 7 and 1", len(s.fused.members), len(s.fused.outVals))
			}
		}
	}
	if fused != 1 {
		t.Errorf("%d fused steps, want 1", fused)
	}
	x := hlo.NewLiteral(hlo.F32, n)
	for i := range x.F32() {
		x.F32()[i] = float32(i-n/2) / 1000
	}
	got := run(t, p, x, hlo.ScalarLiteral(hlo.F32, 0.5), hlo.ScalarLiteral(hlo.F32, 0.25), hlo.ScalarLiteral(hlo.F32, 2))[0]
	for i, v := range x.F32() {
		a := float32(v * 0.5)
		a = a + 0.25
		want := float32(math.Tanh(float64(a))) * 2
		if got.F32()[i] != want {
			t.Fatalf("element %d (x=%v): got %v, want %v", i, v, got.F32()[i], want)
		}
	}
}

// tanhChain is main(x: f32[n], a, b, c: f32[]) = tanh(x*a+b)*c.
func tanhChain(n int64) *hlo.Module {
	b := newFunc("main", f32t(n), f32t(), f32t(), f32t())
	x := b.arg(0)
	y := b.op("stablehlo.multiply", f32t(n), []*hlo.Value{x, b.splat(b.arg(1), n)})
	y = b.op("stablehlo.add", f32t(n), []*hlo.Value{y, b.splat(b.arg(2), n)})
	y = b.op("stablehlo.tanh", f32t(n), []*hlo.Value{y})
	y = b.op("stablehlo.multiply", f32t(n), []*hlo.Value{y, b.splat(b.arg(3), n)})
	return module(b.ret(y))
}

func TestPlanString(t *testing.T) {
	p := mustCompile(t, tanhChain(100))
	got := p.PlanString()
	want := "%10 = fused[splat stablehlo.multiply splat stablehlo.add stablehlo.tanh splat stablehlo.multiply](%1, %0, %2, %3) tile 112  free [%1, %0, %2, %3]\n"
	if got != want {
		t.Errorf("plan:\n%s\nwant:\n%s", got, want)
	}
}

// TestOneElementConstantsAreFixedTiles: constants of one element of the
// fusion's shape (how the lowering writes a Go number applied to a
// one-element tensor) join the fusion as fixed tiles, one per distinct
// value, like splats of more elements: the step reads no constant inputs.
func TestOneElementConstantsAreFixedTiles(t *testing.T) {
	m := parseText(t, `func.func @main(%x: tensor<1xf32>) -> tensor<1xf32> {
  %c0 = stablehlo.constant dense<1.0> : tensor<1xf32>
  %0 = stablehlo.add %x, %c0 : tensor<1xf32>
  %c1 = stablehlo.constant dense<0.5> : tensor<1xf32>
  %1 = stablehlo.multiply %0, %c1 : tensor<1xf32>
  %c2 = stablehlo.constant dense<1.0> : tensor<1xf32>
  %2 = stablehlo.add %1, %c2 : tensor<1xf32>
  return %2 : tensor<1xf32>
}`)
	p := mustCompile(t, m)
	want := "%2 = fused[splat stablehlo.add splat stablehlo.multiply stablehlo.add](%x) tile 16  free [%x]\n"
	if got := p.PlanString(); got != want {
		t.Errorf("plan:\n%s\nwant:\n%s", got, want)
	}
	got := run(t, p, hlo.LiteralFromSlice([]float32{3}, 1))[0]
	if got.F32()[0] != 3 {
		t.Errorf("(3+1)*0.5+1 = %v, want 3", got.F32()[0])
	}
}
