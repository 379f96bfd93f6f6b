package hlo

import "math"

// nanKind says how a small float format encodes NaN.
type nanKind uint8

const (
	nanIEEE    nanKind = iota // exponent all ones, mantissa non-zero (and inf exists)
	nanAllOnes                // only the all-ones exponent and mantissa (the "FN" formats)
	nanNegZero                // the negative-zero pattern 0x80 (the "FNUZ" formats)
	nanNone                   // finite only: no NaN, no infinity
)

// floatFormat describes a binary floating-point format narrower than f64.
type floatFormat struct {
	ebits, mbits int
	bias         int
	nan          nanKind
	unsigned     bool // f8E8M0FNU: no sign bit, no zero
}

var floatFormats = map[DType]floatFormat{
	F16:           {5, 10, 15, nanIEEE, false},
	BF16:          {8, 7, 127, nanIEEE, false},
	TF32:          {8, 10, 127, nanIEEE, false},
	F32:           {8, 23, 127, nanIEEE, false},
	F8E5M2:        {5, 2, 15, nanIEEE, false},
	F8E4M3:        {4, 3, 7, nanIEEE, false},
	F8E3M4:        {3, 4, 3, nanIEEE, false},
	F8E4M3FN:      {4, 3, 7, nanAllOnes, false},
	F8E4M3FNUZ:    {4, 3, 8, nanNegZero, false},
	F8E4M3B11FNUZ: {4, 3, 11, nanNegZero, false},
	F8E5M2FNUZ:    {5, 2, 16, nanNegZero, false},
	F8E8M0FNU:     {8, 0, 127, nanAllOnes, true},
	F6E2M3FN:      {2, 3, 1, nanNone, false},
	F6E3M2FN:      {3, 2, 3, nanNone, false},
	F4E2M1FN:      {2, 1, 1, nanNone, false},
}

func (f floatFormat) signBit() uint64 {
	if f.unsigned {
		return 0
	}
	return 1 << uint(f.ebits+f.mbits)
}

func (f floatFormat) emaxField() int { return 1<<uint(f.ebits) - 1 }

// maxFinite is the largest finite value of the format.
func (f floatFormat) maxFinite() float64 {
	emax := f.emaxField() - f.bias
	mant := 2 - math.Ldexp(1, -f.mbits)
	switch f.nan {
	case nanIEEE:
		emax--
	case nanAllOnes:
		if f.mbits == 0 {
			emax--
			mant = 1
		} else {
			mant = 2 - math.Ldexp(2, -f.mbits)
		}
	}
	return math.Ldexp(mant, emax)
}

func (f floatFormat) nanBits() uint64 {
	switch f.nan {
	case nanIEEE:
		return uint64(f.emaxField())<<uint(f.mbits) | 1<<uint(f.mbits-1)
	case nanAllOnes:
		return uint64(f.emaxField())<<uint(f.mbits) | (1<<uint(f.mbits) - 1)
	case nanNegZero:
		return f.signBit()
	}
	return 0
}

func (f floatFormat) decode(bits uint64) float64 {
	mmask := uint64(1)<<uint(f.mbits) - 1
	emask := uint64(f.emaxField())
	neg := bits&f.signBit() != 0
	e := (bits >> uint(f.mbits)) & emask
	m := bits & mmask
	sign := 1.0
	if neg {
		sign = -1
	}
	switch f.nan {
	case nanIEEE:
		if e == emask {
			if m == 0 {
				return math.Inf(int(sign))
			}
			return math.NaN()
		}
	case nanAllOnes:
		if e == emask && m == mmask {
			return math.NaN()
		}
	case nanNegZero:
		if neg && e == 0 && m == 0 {
			return math.NaN()
		}
	}
	if f.unsigned && f.mbits == 0 {
		return math.Ldexp(1, int(e)-f.bias)
	}
	if e == 0 {
		return sign * math.Ldexp(float64(m), 1-f.bias-f.mbits)
	}
	return sign * math.Ldexp(1+float64(m)/float64(uint64(1)<<uint(f.mbits)), int(e)-f.bias)
}

// encode rounds v to the nearest representable value (ties to even) and
// returns its bit pattern. Values beyond the largest finite value become
// infinity where the format has one, NaN where it has NaN, and saturate in
// finite-only formats.
func (f floatFormat) encode(v float64) uint64 {
	if math.IsNaN(v) {
		return f.nanBits()
	}
	var sign uint64
	a := v
	if math.Signbit(v) {
		a = -v
		sign = f.signBit()
	}
	if f.unsigned {
		return f.encodeE8M0(v)
	}
	overflow := func() uint64 {
		switch f.nan {
		case nanIEEE:
			return sign | uint64(f.emaxField())<<uint(f.mbits)
		case nanNone:
			return sign | f.encodeFinite(f.maxFinite())
		}
		return f.nanBits()
	}
	if math.IsInf(a, 0) {
		return overflow()
	}
	if a == 0 {
		if f.nan == nanNegZero {
			return 0
		}
		return sign
	}
	minExp := 1 - f.bias
	_, e2 := math.Frexp(a)
	exp := e2 - 1
	if exp < minExp {
		exp = minExp
	}
	quantum := math.Ldexp(1, exp-f.mbits)
	r := math.RoundToEven(a/quantum) * quantum
	if r > f.maxFinite() {
		return overflow()
	}
	if r == 0 {
		if f.nan == nanNegZero {
			return 0
		}
		return sign
	}
	return sign | f.encodeFinite(r)
}

// encodeFinite encodes an exactly representable non-negative value.
func (f floatFormat) encodeFinite(r float64) uint64 {
	minExp := 1 - f.bias
	if r < math.Ldexp(1, minExp) {
		return uint64(r / math.Ldexp(1, minExp-f.mbits))
	}
	_, e2 := math.Frexp(r)
	exp := e2 - 1
	m := (r/math.Ldexp(1, exp) - 1) * math.Ldexp(1, f.mbits)
	return uint64(exp+f.bias)<<uint(f.mbits) | uint64(m)
}

func (f floatFormat) encodeE8M0(v float64) uint64 {
	if !(v > 0) || math.IsInf(v, 1) {
		return f.nanBits()
	}
	frac, e2 := math.Frexp(v) // v = frac * 2^e2, frac in [0.5, 1)
	exp := e2 - 1
	if frac*2 > 1.5 || (frac*2 == 1.5 && exp+f.bias < 0) {
		exp++
	}
	field := exp + f.bias
	if field < 0 {
		field = 0
	}
	if field >= f.emaxField() {
		return f.nanBits()
	}
	return uint64(field)
}

// FloatBitsToFloat64 decodes the raw bit pattern of a floating-point element
// of type d (f16, bf16, f8*, f6*, f4*, tf32, f32) to float64.
func FloatBitsToFloat64(d DType, bits uint64) float64 {
	switch d {
	case F32:
		return float64(math.Float32frombits(uint32(bits)))
	case F64:
		return math.Float64frombits(bits)
	case BF16:
		return float64(math.Float32frombits(uint32(bits) << 16))
	}
	return floatFormats[d].decode(bits)
}

// Float64ToFloatBits rounds v to the floating-point type d (round to nearest
// even) and returns the raw bit pattern.
func Float64ToFloatBits(d DType, v float64) uint64 {
	switch d {
	case F32:
		return uint64(math.Float32bits(float32(v)))
	case F64:
		return math.Float64bits(v)
	}
	return floatFormats[d].encode(v)
}

// F16ToF32 decodes an IEEE half-precision value.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e == 0:
		if m == 0 {
			return math.Float32frombits(sign)
		}
		v := float32(m) * (1.0 / (1 << 24))
		if sign != 0 {
			return -v
		}
		return v
	}
	return math.Float32frombits(sign | (e+112)<<23 | m<<13)
}

// F32ToF16 rounds f to IEEE half precision (ties to even).
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	e := int(b>>23) & 0xff
	m := b & 0x7fffff
	if e == 0xff {
		if m != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	ue := e - 127 + 15
	if ue >= 0x1f {
		return sign | 0x7c00
	}
	if ue <= 0 {
		if ue < -10 {
			return sign
		}
		m |= 0x800000
		shift := uint(14 - ue)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(ue)<<10 | m>>13
	rem := m & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++
	}
	return sign | uint16(r)
}

// BF16ToF32 decodes a bfloat16 value.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 rounds f to bfloat16 (ties to even; NaN stays NaN).
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
