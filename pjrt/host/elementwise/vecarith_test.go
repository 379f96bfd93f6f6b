package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"
)

// specials are the values where vector instructions and Go's semantics
// part ways: NaNs with payloads and signs, signed zeros, infinities,
// subnormals.
func specials64() []float64 {
	return []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff8000000000123), math.Float64frombits(0xfff0000000000001),
		math.Float64frombits(0x7ff4000000000000), 5e-324, -5e-324, 2.2250738585072014e-308, 1.5, -1.5}
}

func vecCase[T float32 | float64](t *testing.T, r *rand.Rand, name string, op vecOp, k func(d, a, b []T)) {
	t.Helper()
	for _, isa := range vecISAs {
		vecCaseISA(t, r, name, op, k, isa)
	}
}

func vecCaseISA[T float32 | float64](t *testing.T, r *rand.Rand, name string, op vecOp, k func(d, a, b []T), isa vecISA) {
	t.Helper()
	v := vec2ISA(op, k, isa)
	sp := specials64()
	for _, n := range []int{0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 257} {
		for _, off := range []int{0, 1, 3} {
			a := make([]T, n+off)
			b := make([]T, n+off)
			for i := range a {
				switch r.IntN(3) {
				case 0:
					a[i] = T(sp[r.IntN(len(sp))])
				case 1:
					a[i] = T(r.NormFloat64())
				default:
					a[i] = T(r.IntN(3) - 1)
				}
				switch r.IntN(3) {
				case 0:
					b[i] = T(sp[r.IntN(len(sp))])
				case 1:
					b[i] = T(r.NormFloat64())
				default:
					b[i] = a[i] * T(r.IntN(3)-1) // equal, opposite, or a zero of either sign
				}
			}
			got, want := make([]T, n+off), make([]T, n+off)
			v(got[off:], a[off:], b[off:])
			k(want[off:], a[off:], b[off:])
			for i := range got {
				if fbits(got[i]) != fbits(want[i]) {
					t.Fatalf("%s isa %d n=%d off=%d: (%v, %v): vector %v (%#x), Go %v (%#x)", name, isa, n, off, a[i], b[i], got[i], fbits(got[i]), want[i], fbits(want[i]))
				}
			}
			// In place: the destination is the first operand.
			c := append([]T(nil), a...)
			v(c[off:], c[off:], b[off:])
			for i := off; i < len(c); i++ {
				if fbits(c[i]) != fbits(want[i]) {
					t.Fatalf("%s in place n=%d off=%d: element %d differs", name, n, off, i)
				}
			}
		}
	}
}

func fbits[T float32 | float64](x T) uint64 {
	switch v := any(x).(type) {
	case float32:
		return uint64(math.Float32bits(v))
	case float64:
		return math.Float64bits(v)
	}
	return 0
}

// TestVecArithMatchesGo checks that the vector forms of the float binary
// ops, on every instruction set the CPU has, give the Go loops' bits, NaN
// payloads and zero signs included.
func TestVecArithMatchesGo(t *testing.T) {
	if len(vecISAs) == 0 {
		t.Skip("no vector forms on this CPU or build")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for rep := 0; rep < 20; rep++ {
		vecCase(t, r, "add32", vecAdd, addK[float32])
		vecCase(t, r, "sub32", vecSub, subK[float32])
		vecCase(t, r, "mul32", vecMul, mulK[float32])
		vecCase(t, r, "div32", vecDiv, divFK[float32])
		vecCase(t, r, "max32", vecMax, maxK[float32])
		vecCase(t, r, "min32", vecMin, minK[float32])
		vecCase(t, r, "add64", vecAdd, addK[float64])
		vecCase(t, r, "sub64", vecSub, subK[float64])
		vecCase(t, r, "mul64", vecMul, mulK[float64])
		vecCase(t, r, "div64", vecDiv, divFK[float64])
		vecCase(t, r, "max64", vecMax, maxK[float64])
		vecCase(t, r, "min64", vecMin, minK[float64])
	}
}
