package host

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// A transpose whose readers all read its operand through strides (GEMMs
// of a linear layer's forward and backward passes) runs no step: its copy
// would be made and dropped on every execution. Results are unchanged.
func TestDeadTransposeRunsNoStep(t *testing.T) {
	m := parseText(t, `func.func public @main(%x: tensor<4x6xf32>, %w: tensor<5x6xf32>, %g: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x6xf32>) {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<5x6xf32>) -> tensor<6x5xf32>
  %y = stablehlo.dot_general %x, %t, contracting_dims = [1] x [0] : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %z = stablehlo.dot_general %g, %t, contracting_dims = [1] x [1] : (tensor<4x5xf32>, tensor<6x5xf32>) -> tensor<4x6xf32>
  return %y, %z : tensor<4x5xf32>, tensor<4x6xf32>
}`)
	fused, plain := compileBoth(t, 0, m)
	if s := fused.PlanString(); strings.Contains(s, "transpose") {
		t.Errorf("the plan runs a transpose nothing reads:\n%s", s)
	}
	r := rand.New(rand.NewSource(1))
	args := []*hlo.Literal{randLiteral(r, hlo.F32, 24, []int64{4, 6}), randLiteral(r, hlo.F32, 30, []int64{5, 6}), randLiteral(r, hlo.F32, 20, []int64{4, 5})}
	want := run(t, plain, args...)
	for rep := 0; rep < 2; rep++ {
		got := run(t, fused, args...)
		for i := range want {
			if !got[i].Equal(want[i]) {
				t.Fatalf("result %d differs fused vs unfused: %v, want %v", i, got[i], want[i])
			}
		}
	}
}

// A transpose that is returned, or read by a step that needs it, stays.
func TestLiveTransposeKeepsItsStep(t *testing.T) {
	m := parseText(t, `func.func public @main(%w: tensor<5x6xf32>) -> (tensor<6x5xf32>, tensor<5x6xf32>) {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<5x6xf32>) -> tensor<6x5xf32>
  %u = stablehlo.transpose %w, dims = [1, 0] : (tensor<5x6xf32>) -> tensor<6x5xf32>
  %v = stablehlo.transpose %u, dims = [1, 0] : (tensor<6x5xf32>) -> tensor<5x6xf32>
  return %t, %v : tensor<6x5xf32>, tensor<5x6xf32>
}`)
	fused := mustCompile(t, m)
	if n := strings.Count(fused.PlanString(), "transpose"); n != 3 {
		t.Errorf("plan has %d transposes, want 3:\n%s", n, fused.PlanString())
	}
}
