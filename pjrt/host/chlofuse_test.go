package host

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// CHLO's elementwise rows are made as StableHLO's are (elementwise.Row):
// fused into a loop with StableHLO neighbours, they give the bits they give
// alone.
func TestChloFusedMatchesUnfused(t *testing.T) {
	const src = `
func.func @main(%a: tensor<N x f32>, %b: tensor<N x f32>, %c: tensor<N x f64>, %z: tensor<N x complex<f32>>, %h: tensor<N x bf16>) -> (tensor<N x f32>, tensor<N x f64>, tensor<N x complex<f32>>, tensor<N x i1>, tensor<N x bf16>) {
  %0 = chlo.erf %a : tensor<N x f32> -> tensor<N x f32>
  %1 = stablehlo.multiply %0, %b : tensor<N x f32>
  %2 = chlo.lgamma %1 : tensor<N x f32> -> tensor<N x f32>
  %3 = chlo.tan %2 : tensor<N x f32> -> tensor<N x f32>
  %4 = chlo.next_after %3, %b : tensor<N x f32>, tensor<N x f32> -> tensor<N x f32>
  %5 = chlo.is_inf %4 : tensor<N x f32> -> tensor<N x i1>
  %6 = chlo.asinh %c : tensor<N x f64> -> tensor<N x f64>
  %7 = stablehlo.add %6, %c : tensor<N x f64>
  %8 = chlo.zeta %7, %c : tensor<N x f64>, tensor<N x f64> -> tensor<N x f64>
  %9 = chlo.atanh %z : tensor<N x complex<f32>> -> tensor<N x complex<f32>>
  %10 = chlo.tan %9 : tensor<N x complex<f32>> -> tensor<N x complex<f32>>
  %11 = stablehlo.add %10, %z : tensor<N x complex<f32>>
  %12 = chlo.digamma %h : tensor<N x bf16> -> tensor<N x bf16>
  %13 = stablehlo.negate %12 : tensor<N x bf16>
  return %4, %8, %11, %5, %13 : tensor<N x f32>, tensor<N x f64>, tensor<N x complex<f32>>, tensor<N x i1>, tensor<N x bf16>
}`
	r := rand.New(rand.NewSource(11))
	for _, n := range []int64{1, 7, 5000, 70000} {
		text := strings.ReplaceAll(src, "N x ", itoa(int(n))+"x")
		m, err := hlo.ParseModule("chlofuse.mlir", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var args []*hlo.Literal
		for _, dt := range []hlo.DType{hlo.F32, hlo.F32, hlo.F64, hlo.C64, hlo.BF16} {
			args = append(args, randLiteral(r, dt, int(n), []int64{n}))
		}
		fused, err := compile(m, true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(describeSteps(fused), "fused") {
			t.Fatalf("n=%d: nothing fused: %s", n, describeSteps(fused))
		}
		plain, err := compile(m, false)
		if err != nil {
			t.Fatal(err)
		}
		want, got := run(t, plain, args...), run(t, fused, args...)
		for i := range want {
			if !got[i].Equal(want[i]) {
				t.Errorf("n=%d: result %d differs fused vs unfused:\n%s\ngot  %v\nwant %v", n, i, describeSteps(fused), head(got[i]), head(want[i]))
			}
		}
	}
}
