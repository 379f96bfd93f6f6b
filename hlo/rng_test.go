package hlo

import (
	"strings"
	"testing"
)

// TestRngRoundTrip: stablehlo.rng in its pretty and generic forms parses to
// the same op and prints in the pretty form, and the builder makes it.
func TestRngRoundTrip(t *testing.T) {
	pretty := `module {
  func.func @main(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<2xi64>) -> tensor<3x5xf32> {
    %0 = stablehlo.rng %arg0, %arg1, %arg2, distribution =  NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
}
`
	generic := strings.Replace(pretty, "stablehlo.rng %arg0, %arg1, %arg2, distribution =  NORMAL :",
		`"stablehlo.rng"(%arg0, %arg1, %arg2) {rng_distribution = #stablehlo<rng_distribution NORMAL>} :`, 1)
	want := pretty // MLIR prints the enum after two spaces
	for _, src := range []string{pretty, generic} {
		m, err := ParseModule("rng.mlir", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(m); err != nil {
			t.Fatal(err)
		}
		if got := m.String(); got != want {
			t.Errorf("printed\n%s\nwant\n%s", got, want)
		}
		op := m.Funcs[0].Body.Blocks[0].Ops[0]
		if e, ok := op.Attr("rng_distribution").(EnumAttr); !ok || e.Value != "NORMAL" || e.Kind != "rng_distribution" {
			t.Errorf("rng_distribution = %#v", op.Attr("rng_distribution"))
		}
	}

	b := NewBuilder("m")
	f := b.Func("main")
	lo, hi := f.Arg(NewTensorType(F32)), f.Arg(NewTensorType(F32))
	f.Return(f.Rng(RngUniform, lo, hi, NewTensorType(F32, 2, 3)))
	m := mustBuild(t, b)
	text := m.String()
	if !strings.Contains(text, "stablehlo.rng %arg0, %arg1, %c, distribution =  UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>") {
		t.Errorf("builder printed\n%s", text)
	}
	again, err := ParseModule("rng.mlir", []byte(text))
	if err != nil || again.String() != text {
		t.Errorf("builder output does not round-trip: %v", err)
	}

	b = NewBuilder("m")
	f = b.Func("main")
	i := f.Arg(NewTensorType(I32))
	f.Return(f.Rng(RngNormal, i, i, NewTensorType(I32, 2)))
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "NORMAL") {
		t.Errorf("NORMAL over i32: error %v", err)
	}
}
