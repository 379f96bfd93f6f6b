package chlo_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/elementwise"
)

// chlo.erf on f32 runs the vectorised float32 kernel (bits of
// elementwise.Erf32, within one ULP of math.Erf rounded once); other
// float types keep the float64 path.
func TestChloErfF32(t *testing.T) {
	var xs []float32
	for u := uint64(0); u < 1<<32; u += 65537 {
		xs = append(xs, math.Float32frombits(uint32(u)))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1, -1, 3.99, 4, -4, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()))
	n := int64(len(xs))
	k := NewBlk(TT(hlo.F32, n))
	k.Ret("func.return", k.V("chlo.erf", []*hlo.Value{k.Arg(0)}, TT(hlo.F32, n)))
	res, _ := Run(t, Module(Fn("main", k)), hlo.LiteralFromSlice(xs))
	got := res[0].(*hlo.Literal).F32()
	for i, x := range xs {
		want := elementwise.Erf32(x)
		if math.Float32bits(got[i]) != math.Float32bits(want) {
			t.Fatalf("erf(%g) = %g, want %g", x, got[i], want)
		}
		if ref := float32(math.Erf(float64(x))); got[i] != ref && !(got[i] != got[i] && ref != ref) &&
			math.Abs(float64(got[i]-ref)) > math.Abs(float64(math.Nextafter32(ref, 2)-ref)) {
			t.Fatalf("erf(%g) = %g, more than one ULP from %g", x, got[i], ref)
		}
	}
	k = NewBlk(TT(hlo.F64, 3))
	k.Ret("func.return", k.V("chlo.erf", []*hlo.Value{k.Arg(0)}, TT(hlo.F64, 3)))
	res, _ = Run(t, Module(Fn("main", k)), hlo.LiteralFromSlice([]float64{0.5, -2, 7}))
	for i, x := range []float64{0.5, -2, 7} {
		if g := res[0].(*hlo.Literal).F64()[i]; g != math.Erf(x) {
			t.Fatalf("f64 erf(%g) = %g, want %g", x, g, math.Erf(x))
		}
	}
}
