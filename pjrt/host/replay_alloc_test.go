package host

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// sgdStep is a linear model's training step with momentum: the gradient
// goes through reshapes (views) and a reduction, the loss is returned, and
// the weights and momentum are updated (donated by the caller).
const sgdStep = `
func.func @main(%w: tensor<32x16xf32>, %v: tensor<32x16xf32>, %x: tensor<8x32xf32>, %y: tensor<8x16xf32>) -> (tensor<f32>, tensor<32x16xf32>, tensor<32x16xf32>) {
  %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %d = stablehlo.subtract %p, %y : tensor<8x16xf32>
  %sq = stablehlo.multiply %d, %d : tensor<8x16xf32>
  %flat = stablehlo.reshape %sq : (tensor<8x16xf32>) -> tensor<128xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %loss = stablehlo.reduce(%flat init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<128xf32>, tensor<f32>) -> tensor<f32>
  %g = stablehlo.dot_general %x, %d, contracting_dims = [0] x [0] : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  %g1 = stablehlo.reshape %g : (tensor<32x16xf32>) -> tensor<512xf32>
  %g2 = stablehlo.reshape %g1 : (tensor<512xf32>) -> tensor<32x16xf32>
  %mu = stablehlo.constant dense<0.9> : tensor<32x16xf32>
  %lr = stablehlo.constant dense<0.01> : tensor<32x16xf32>
  %vm = stablehlo.multiply %v, %mu : tensor<32x16xf32>
  %vn = stablehlo.add %vm, %g2 : tensor<32x16xf32>
  %step = stablehlo.multiply %vn, %lr : tensor<32x16xf32>
  %wn = stablehlo.subtract %w, %step : tensor<32x16xf32>
  return %loss, %wn, %vn : tensor<f32>, tensor<32x16xf32>, tensor<32x16xf32>
}
`

// TestReplayAllocations runs a training step in a loop, its updated
// weights and momentum donated back each time: in steady state an
// execution allocates only what it hands out (the three buffers, in one
// allocation, the loss and the result list), however many intermediates it
// makes. Intermediates
// recycled through the run state's pool (views included), run states kept
// across garbage collections, donated storage no result took, and
// allocation-free parallel loops and products make that so.
func TestReplayAllocations(t *testing.T) {
	m, err := hlo.ParseModule("sgd.mlir", []byte(sgdStep))
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(1)
	exe, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]pjrt.Buffer, 4)
	for i, a := range m.Entry().Args {
		tt := a.TensorType()
		l := hlo.NewLiteral(tt.DType, tt.Dims...)
		for k := range l.F32() {
			l.F32()[k] = float32((k*7+i)%11) / 10
		}
		in[i] = c.WrapLiteral(l, 0)
	}
	opts := pjrt.ExecuteOptions{Donate: []int{0, 1}}
	step := func() {
		out, err := exe.Execute(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		out[0].Delete()
		in[0], in[1] = out[1], out[2]
	}
	for i := 0; i < 3; i++ {
		step()
	}
	if raceBuild {
		t.Skip("the race detector drops sync.Pool entries at random")
	}
	if n := testing.AllocsPerRun(50, step); n > 3 {
		t.Errorf("a steady-state step allocates %.0f objects, want at most 3", n)
	}
}
