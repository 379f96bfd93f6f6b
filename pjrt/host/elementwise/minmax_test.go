package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMinMax32MatchLoops compares the float32 minimum and maximum kernels
// with Go's min and max element by element, bit for bit: NaNs with
// different payloads on either side or both, signed zeros, infinities and
// lengths around the vector width.
func TestMinMax32MatchLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00000), math.Float32frombits(0x7fa00001), math.Float32frombits(0xffc12345), 1, -1}
	val := func() float32 {
		if r.IntN(3) == 0 {
			return special[r.IntN(len(special))]
		}
		return float32(r.NormFloat64())
	}
	for it := 0; it < 2000; it++ {
		n := r.IntN(40)
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = val(), val()
		}
		for _, k := range []struct {
			name     string
			vec, ref func(d, a, b []float32)
		}{{"max", max32, maxK[float32]}, {"min", min32, minK[float32]}} {
			got, want := make([]float32, n), make([]float32, n)
			k.vec(got, a, b)
			k.ref(want, a, b)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s(%#x, %#x) = %#x, want %#x", k.name, math.Float32bits(a[i]), math.Float32bits(b[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}
