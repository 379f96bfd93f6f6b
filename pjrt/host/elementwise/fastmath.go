package elementwise

import "math"

// Fast float32 exp, log, tanh and logistic. Each is evaluated in float64
// with a short polynomial whose relative error (~1e-12) is far below half a
// float32 ULP (6e-8), so the single final rounding gives the correctly
// rounded float32 result except in rare near-tie cases (then one ULP off).
// The library's float64 functions are accurate to float64 precision, which
// a float32 result does not need, and cost 3-5x more.
//
// The slice loops are the hot path: they are written out by hand, without
// calls or data-dependent branches (Go inlines little), so that the
// iterations overlap in the CPU. The scalar functions run the same loops.

const (
	expTableBits = 3
	expTableSize = 1 << expTableBits
	// roundMagic added to a float64 |v| < 2^51 rounds it to an integer held
	// in the low mantissa bits (ties to even), without a branch.
	roundMagic = 0x1.8p52
	invLn2N    = expTableSize / math.Ln2
	ln2N       = math.Ln2 / expTableSize
)

// expTable[j] = 2^(j/8).
var expTable = func() (t [expTableSize]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / expTableSize)
	}
	return t
}()

// The exponential of v in [-700, 700] is split as
// v = (8m + j) ln2/8 + r with |r| <= ln2/16, so that
// e^v = s (1 + p) with s = 2^m 2^(j/8) and p = e^r - 1 from a degree-5
// Taylor polynomial (relative error below 1e-11, far below half a float32
// ULP; an eight-entry table is one register for the AVX-512 forms). Then
// e^v - 1 = (s - 1) + s p has no cancellation at any v >= 0: for m = j = 0
// it is p itself, otherwise s - 1 >= 0.02 is exact.

func exp32g(d, a []float32) {
	a = a[:len(d)]
	t := &expTable
	for i, x := range a {
		v := float64(x)
		if v > 200 { // NaN passes through both tests
			v = 200
		}
		if v < -200 {
			v = -200
		}
		kf := v*invLn2N + roundMagic
		k := int32(uint32(math.Float64bits(kf)))
		r := v - (kf-roundMagic)*ln2N
		p := r * (1 + r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
		s := math.Float64frombits(uint64(int64(k>>expTableBits)+1023)<<52) * t[k&(expTableSize-1)]
		d[i] = float32(s + s*p)
	}
}

// tanh32g computes tanh|x| = em/(em+2) with em = e^(2|x|) - 1, which has
// no cancellation at any |x|, and restores the sign.
func tanh32g(d, a []float32) {
	a = a[:len(d)]
	t := &expTable
	for i, x := range a {
		v := 2 * math.Abs(float64(x))
		if v > 20 { // tanh(10) rounds to 1 in float32
			v = 20
		}
		kf := v*invLn2N + roundMagic
		k := int32(uint32(math.Float64bits(kf)))
		r := v - (kf-roundMagic)*ln2N
		p := r * (1 + r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
		s := math.Float64frombits(uint64(int64(k>>expTableBits)+1023)<<52) * t[k&(expTableSize-1)]
		em := (s - 1) + s*p
		d[i] = float32(math.Copysign(em/(em+2), float64(x)))
	}
}

// logistic32g computes 1/(1 + e^-x).
func logistic32g(d, a []float32) {
	a = a[:len(d)]
	t := &expTable
	for i, x := range a {
		v := -float64(x)
		if v > 200 {
			v = 200
		}
		if v < -200 {
			v = -200
		}
		kf := v*invLn2N + roundMagic
		k := int32(uint32(math.Float64bits(kf)))
		r := v - (kf-roundMagic)*ln2N
		p := r * (1 + r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
		s := math.Float64frombits(uint64(int64(k>>expTableBits)+1023)<<52) * t[k&(expTableSize-1)]
		d[i] = float32(1 / (1 + (s + s*p)))
	}
}

const (
	sqrtHalfBits = 0x3fe6a09e667f3bcd // sqrt(1/2) as float64 bits
	mantMask     = 1<<52 - 1
)

// log32s: for positive finite x (subnormal float32 values are normal in
// float64) x = 2^e m with m in [sqrt(1/2), sqrt(2)), found with integer ops
// only; ln m = 2 atanh(s) with s = (m-1)/(m+1), |s| <= 0.1716, from the odd
// series to s^15 (relative error below 2e-13). Zero, negative, infinite and
// NaN inputs take the library path.
func log32g(d, a []float32) {
	a = a[:len(d)]
	for i, x := range a {
		v := float64(x)
		if !(v > 0 && v <= math.MaxFloat32) {
			d[i] = float32(math.Log(v))
			continue
		}
		b := math.Float64bits(v) + (0x3ff0000000000000 - sqrtHalfBits)
		e := int64(b>>52) - 1023
		m := math.Float64frombits(b&mantMask + sqrtHalfBits)
		s := (m - 1) / (m + 1)
		z := s * s
		p := 2 + z*(2.0/3+z*(2.0/5+z*(2.0/7+z*(2.0/9+z*(2.0/11+z*(2.0/13+z*(2.0/15)))))))
		d[i] = float32(float64(e)*math.Ln2 + s*p)
	}
}

// exp32s, tanh32s, logistic32s and log32s run the vector forms
// (bit-identical, see fastmath_amd64.s and fastmath512_amd64.s) on whole
// groups of four or eight where the CPU has them, and the Go loops on the
// rest.
func exp32s(d, a []float32)      { vecThenGo(d, a, exp32Vec, exp32g) }
func tanh32s(d, a []float32)     { vecThenGo(d, a, tanh32Vec, tanh32g) }
func logistic32s(d, a []float32) { vecThenGo(d, a, logistic32Vec, logistic32g) }
func log32s(d, a []float32)      { vecThenGo(d, a, log32Vec, log32g) }
func erf32s(d, a []float32)      { vecThenGo(d, a, erf32Vec, erf32g) }

// erf32g evaluates erf in float64 from the polynomials of erfcoef.go
// (errors near 1e-12 relative below 1, 1e-11 absolute from 1 to 4; above
// 4, erf rounds to +-1 in float32). The conversions to float64 of the
// products keep the compiler from fusing them into FMAs, which the vector
// forms do not use either.
func erf32g(d, a []float32) {
	a = a[:len(d)]
	for i, x := range a {
		v := float64(x)
		av := math.Abs(v)
		var r float64
		switch {
		case av < 1:
			z := v * v
			p := erfP[len(erfP)-1]
			for k := len(erfP) - 2; k >= 0; k-- {
				p = float64(p*z) + erfP[k]
			}
			r = v * p
		case av < 4:
			u := av - 2.5
			q := erfQ[len(erfQ)-1]
			for k := len(erfQ) - 2; k >= 0; k-- {
				q = float64(q*u) + erfQ[k]
			}
			r = math.Copysign(q, v)
		case av >= 4:
			r = math.Copysign(1, v)
		default:
			r = math.NaN()
		}
		d[i] = float32(r)
	}
}

func vecThenGo(d, a []float32, vec, g func(d, a []float32)) {
	a = a[:len(d)]
	n := vecLen(len(d))
	if n > 0 {
		vec(d[:n], a[:n])
	}
	g(d[n:], a[n:])
}

// vecLen is how many of n elements the vector forms take.
func vecLen(n int) int {
	if !haveVec {
		return 0
	}
	return n - n%vecLanes
}

func scalar32(f func(d, a []float32), x float32) float32 {
	in, out := [1]float32{x}, [1]float32{}
	f(out[:], in[:])
	return out[0]
}

// Exp32 is e^x rounded to float32 (the device's float32 exponential).
func Exp32(x float32) float32 { return scalar32(exp32s, x) }

// Tanh32 is tanh(x) rounded to float32 (the device's float32 tanh).
func Tanh32(x float32) float32 { return scalar32(tanh32s, x) }

// Logistic32 is 1/(1+e^-x) rounded to float32 (the device's float32 logistic).
func Logistic32(x float32) float32 { return scalar32(logistic32s, x) }

// Erf32 is erf(x) rounded to float32 (the device's float32 erf).
func Erf32(x float32) float32 { return scalar32(erf32s, x) }

// Erf32s sets d[i] = Erf32(a[i]), vectorised.
func Erf32s(d, a []float32) { erf32s(d, a) }

// Log32 is ln(x) rounded to float32 (the device's float32 log).
func Log32(x float32) float32 { return scalar32(log32s, x) }
