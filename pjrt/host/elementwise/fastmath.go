package elementwise

import "math"

// Fast float32 exp, log, tanh and logistic. Each is evaluated in float64
// with a short, branch-light polynomial whose relative error (~1e-12) is far
// below half a float32 ULP (6e-8), so the single final rounding gives the
// correctly rounded float32 result except in rare near-tie cases (then one
// ULP off). math.Exp and friends are accurate to float64 precision, which a
// float32 result does not need, and cost 3-5x more.

const (
	expTableBits = 5
	expTableSize = 1 << expTableBits
	// roundMagic added to a float64 |v| < 2^51 rounds it to an integer held
	// in the low mantissa bits (ties to even), without a branch.
	roundMagic = 0x1.8p52
	invLn2N    = expTableSize / math.Ln2
	ln2N       = math.Ln2 / expTableSize
)

// expTable[j] = 2^(j/32).
var expTable = func() (t [expTableSize]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / expTableSize)
	}
	return t
}()

// expCore returns e^v for v in [-700, 700] with relative error below 2e-12.
// NaN gives NaN. v = (32m + j) ln2/32 + r with |r| <= ln2/64, so
// e^v = 2^m * 2^(j/32) * e^r, e^r from a degree-4 Taylor polynomial.
func expCore(v float64) float64 {
	kf := v*invLn2N + roundMagic
	k := int32(uint32(math.Float64bits(kf)))
	kd := kf - roundMagic
	r := v - kd*ln2N
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24))))
	scale := math.Float64frombits(uint64(int64(k>>expTableBits)+1023) << 52)
	return scale * expTable[k&(expTableSize-1)] * p
}

// expm1Core returns e^v - 1 with relative error below 1e-11 for v in
// [0, 40]; small v uses the Taylor series to avoid the cancellation.
func expm1Core(v float64) float64 {
	if v < 0.125 {
		// Terms to v^9: the first omitted term is below 1e-16 relative.
		return v * (1 + v*(1.0/2+v*(1.0/6+v*(1.0/24+v*(1.0/120+v*(1.0/720+v*(1.0/5040+v*(1.0/40320+v*(1.0/362880)))))))))
	}
	return expCore(v) - 1
}

// exp32 is e^x rounded to float32.
func exp32(x float32) float32 {
	v := min(max(float64(x), -200), 200) // NaN propagates
	return float32(expCore(v))
}

// tanh32 is tanh(x) rounded to float32: tanh|x| = em/(em+2) with
// em = expm1(2|x|), which has no cancellation at any |x|.
func tanh32(x float32) float32 {
	v := min(math.Abs(float64(x)), 10) // tanh(10) rounds to 1 in float32
	em := expm1Core(2 * v)
	return float32(math.Copysign(em/(em+2), float64(x)))
}

// logistic32 is 1/(1+e^-x) rounded to float32.
func logistic32(x float32) float32 {
	v := min(max(float64(x), -200), 200)
	return float32(1 / (1 + expCore(-v)))
}

const (
	sqrtHalfBits = 0x3fe6a09e667f3bcd // sqrt(1/2) as float64 bits
	mantMask     = 1<<52 - 1
)

// log32 is ln(x) rounded to float32. For positive finite x (subnormal
// float32 values are normal in float64) x = 2^e * m with m in
// [sqrt(1/2), sqrt(2)), found with integer ops only; ln m = 2 atanh(s),
// s = (m-1)/(m+1), |s| <= 0.1716, from an odd series to s^15.
func log32(x float32) float32 {
	v := float64(x)
	if !(v > 0 && v <= math.MaxFloat32) {
		return float32(math.Log(v)) // 0, negative, inf, NaN
	}
	b := math.Float64bits(v)
	b += 0x3ff0000000000000 - sqrtHalfBits
	e := int64(b>>52) - 1023
	m := math.Float64frombits(b&mantMask + sqrtHalfBits)
	s := (m - 1) / (m + 1)
	z := s * s
	p := 2 + z*(2.0/3+z*(2.0/5+z*(2.0/7+z*(2.0/9+z*(2.0/11+z*(2.0/13+z*(2.0/15)))))))
	return float32(float64(e)*math.Ln2 + s*p)
}

// The slice forms below are the loops the planner runs; the compiler keeps
// the scalar helpers inlined into them.

func exp32s(d, a []float32) {
	a = a[:len(d)]
	for i, x := range a {
		d[i] = exp32(x)
	}
}

func log32s(d, a []float32) {
	a = a[:len(d)]
	for i, x := range a {
		d[i] = log32(x)
	}
}

func tanh32s(d, a []float32) {
	a = a[:len(d)]
	for i, x := range a {
		d[i] = tanh32(x)
	}
}

func logistic32s(d, a []float32) {
	a = a[:len(d)]
	for i, x := range a {
		d[i] = logistic32(x)
	}
}
