package hlo

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestFormatFloatBits(t *testing.T) {
	f32 := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	cases := []struct {
		dt   DType
		bits uint64
		want string
	}{
		// Spellings seen in stablehlo-opt output.
		{F32, f32(0), "0.000000e+00"},
		{F32, f32(float32(math.Copysign(0, -1))), "-0.000000e+00"},
		{F32, f32(1), "1.000000e+00"},
		{F32, f32(0.1), "1.000000e-01"},
		{F32, f32(2000), "2.000000e+03"},
		{F32, f32(math.MaxFloat32), "3.40282347E+38"},
		{F32, f32(1.1920929e-7), "1.1920929E-7"},
		{F32, f32(-0.992783546), "-0.992783546"},
		{F32, f32(float32(math.NaN())), "0x7FC00000"},
		{F32, f32(float32(math.Inf(-1))), "0xFF800000"},
		{F32, f32(123456792), "0x4CEB79A3"}, // no '.' in the long form: hex
		{F64, math.Float64bits(0.1), "1.000000e-01"},
		{F64, math.Float64bits(1.0 / 3), "0.33333333333333331"},
		{F64, math.Float64bits(-1.3215811840447713e-11), "-1.3215811840447713E-11"},
		{F64, math.Float64bits(math.Inf(1)), "0x7FF0000000000000"},
		{F16, 0x3C00, "1.000000e+00"},
		{F16, 0x7BFF, "6.550400e+04"},
		{F16, 0x7C00, "0x7C00"},
		{BF16, 0x7F80, "0x7F80"},
		{BF16, 0x4049, "3.140630e+00"},
		{F8E4M3FN, 0x7F, "0x7F"},
		{F8E4M3FN, Float64ToFloatBits(F8E4M3FN, 448), "4.480000e+02"},
		{F4E2M1FN, Float64ToFloatBits(F4E2M1FN, -1.5), "-1.500000e+00"},
	}
	for _, c := range cases {
		if got := FormatFloatBits(c.dt, c.bits); got != c.want {
			t.Errorf("FormatFloatBits(%s, %#x) = %q, want %q", c.dt, c.bits, got, c.want)
		}
	}
}

// TestFormatFloatRoundTrips checks that printed floats read back to the
// same bits, for random values of every float type.
func TestFormatFloatRoundTrips(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, dt := range AllDTypes() {
		if !dt.IsFloat() || dt == TF32 {
			continue
		}
		for i := 0; i < 2000; i++ {
			var bits uint64
			switch dt {
			case F64:
				bits = r.Uint64()
			default:
				bits = r.Uint64() & (1<<uint(dt.Size()*8) - 1)
				if dt.Bits() < 8 {
					bits &= 1<<uint(dt.Bits()) - 1
				}
			}
			v := FloatBitsToFloat64(dt, bits)
			if math.IsNaN(v) {
				continue
			}
			s := FormatFloatBits(dt, bits)
			var back uint64
			if len(s) > 2 && s[:2] == "0x" {
				back, _ = strconv.ParseUint(s[2:], 16, 64)
			} else {
				back = floatBitsOf(dt, s)
			}
			if FloatBitsToFloat64(dt, back) != v || math.Signbit(FloatBitsToFloat64(dt, back)) != math.Signbit(v) {
				t.Fatalf("%s %#x prints %q, which reads back as %#x", dt, bits, s, back)
			}
		}
	}
}

// TestFloatAttrHexKeepsType checks that a float attribute printed as a hex
// bit pattern keeps its type even where f64 is elided (inside arrays).
func TestFloatAttrHexKeepsType(t *testing.T) {
	a := ArrayAttr{FloatAttr{Value: math.Inf(1)}, FloatAttr{Value: 2}}
	if got := AttrString(a); got != "[0x7FF0000000000000 : f64, 2.000000e+00]" {
		t.Errorf("got %s", got)
	}
}
