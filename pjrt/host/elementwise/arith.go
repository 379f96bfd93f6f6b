package elementwise

import (
	"math"
	"math/cmplx"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Arithmetic: add, subtract, multiply, divide, remainder, power, maximum,
// minimum, negate, abs, sign. Integers wrap; integer division by zero gives
// -1 (all ones) and remainder by zero the dividend, and MIN / -1 = MIN,
// MIN % -1 = 0, as XLA defines what the spec leaves open.

func init() {
	kernel.Register(
		binaryOp("add", costCheap, fixed2(&addFns)),
		binaryOp("subtract", costCheap, fixed2(&subFns)),
		binaryOp("multiply", costCheap, fixed2(&mulFns)),
		binaryOp("divide", costDiv, fixed2(&divFns)),
		binaryOp("remainder", costDiv, fixed2(&remFns)),
		binaryOp("power", costLib, fixed2(&powFns)),
		binaryOp("maximum", costCheap, fixed2(&maxFns)),
		binaryOp("minimum", costCheap, fixed2(&minFns)),
		unaryOp("negate", costCheap, fixed1(&negFns)),
		unaryOp("sign", costCheap, fixed1(&signFns)),
		ew("abs", costCheap, prepAbs),
	)
}

func addK[T arith](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func subK[T arith](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func mulK[T arith](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

func divFK[T float | cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

func divSK[T sint](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		if b[i] == 0 {
			d[i] = -1
		} else {
			d[i] = a[i] / b[i]
		}
	}
}

func divUK[T uint_](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		if b[i] == 0 {
			d[i] = ^T(0)
		} else {
			d[i] = a[i] / b[i]
		}
	}
}

func remIK[T anyInt](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		if b[i] == 0 {
			d[i] = a[i]
		} else {
			d[i] = a[i] % b[i]
		}
	}
}

// remF is fmod: the sign of the dividend, computed exactly.
func remF64(d, a, b []float64) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = math.Mod(a[i], b[i])
	}
}

func remF32(d, a, b []float32) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = float32(math.Mod(float64(a[i]), float64(b[i])))
	}
}

// powSK is integer power by squaring. A negative exponent gives 0 except
// for bases 1 and -1, where it is the positive exponent's result (as the
// reference interpreter).
func powSK[T sint](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		base, e := a[i], int64(b[i])
		if e < 0 && base != 1 && base != -1 {
			d[i] = 0
			continue
		}
		d[i] = ipow(base, absU(e))
	}
}

// absU returns |e| as uint64 (|MinInt64| = 2^63) when e < 0, else e.
func absU(e int64) uint64 {
	if e < 0 {
		return uint64(-e)
	}
	return uint64(e)
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func powUK[T uint_](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = ipow(a[i], uint64(b[i]))
	}
}

func ipow[T anyInt](base T, e uint64) T {
	r := T(1)
	for e != 0 {
		if e&1 != 0 {
			r *= base
		}
		base *= base
		e >>= 1
	}
	return r
}

func powF64(d, a, b []float64) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = math.Pow(a[i], b[i])
	}
}

func powC128(d, a, b []complex128) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = cmplx.Pow(a[i], b[i])
	}
}

// maxK/minK: for floats Go's max and min are IEEE maximum and minimum (NaN
// wins, -0 < +0).
func maxK[T num](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = max(a[i], b[i])
	}
}

func minK[T num](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = min(a[i], b[i])
	}
}

// cmax/cmin order complex numbers lexicographically by (real, imag); when
// the comparison is false (NaN) the right operand wins, as the reference.
func cmax[T cplx](x, y T) T {
	a, b := complex128(x), complex128(y) // exact; real() needs a concrete type
	gt := real(a) > real(b)
	if real(a) == real(b) {
		gt = imag(a) > imag(b)
	}
	if gt {
		return x
	}
	return y
}

func cmin[T cplx](x, y T) T {
	a, b := complex128(x), complex128(y)
	lt := real(a) < real(b)
	if real(a) == real(b) {
		lt = imag(a) < imag(b)
	}
	if lt {
		return x
	}
	return y
}

func maxCK[T cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = cmax(a[i], b[i])
	}
}

func minCK[T cplx](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = cmin(a[i], b[i])
	}
}

func orB(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] || b[i]
	}
}

func andB(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] && b[i]
	}
}

func negK[T arith](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = -a[i]
	}
}

func absSK[T sint | float](d, a []T) {
	a = a[:len(d)]
	for i, v := range a {
		if v < 0 {
			v = -v
		}
		d[i] = v
	}
}

func copyK[T any](d, a []T) { copy(d, a[:len(d)]) }

func absF32(d, a []float32) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
	}
}

func absF64(d, a []float64) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = math.Abs(v)
	}
}

func signSK[T sint](d, a []T) {
	a = a[:len(d)]
	for i, v := range a {
		switch {
		case v < 0:
			d[i] = -1
		case v > 0:
			d[i] = 1
		default:
			d[i] = 0
		}
	}
}

func signUK[T uint_](d, a []T) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = T(boolU(v != 0))
	}
}

// signFK keeps NaN and signed zeros, and gives +-1 otherwise.
func signFK[T float](d, a []T) {
	a = a[:len(d)]
	for i, v := range a {
		switch {
		case v > 0:
			d[i] = 1
		case v < 0:
			d[i] = -1
		default:
			d[i] = v
		}
	}
}

// signC is z/|z| with |z| rounded to the part type first, (NaN, NaN) for
// any NaN part and (0, 0) for zero, as the spec.
func signC(z complex128, part hlo.DType) complex128 {
	re, im := real(z), imag(z)
	if re != re || im != im {
		return complex(math.NaN(), math.NaN())
	}
	if re == 0 && im == 0 {
		return 0
	}
	m := cmplx.Abs(z)
	if part == hlo.F32 {
		m = float64(float32(m))
	}
	return complex(re/m, im/m)
}

func signC64(d, a []complex64) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = complex64(signC(complex128(v), hlo.F32))
	}
}

func signC128(d, a []complex128) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = signC(v, hlo.F64)
	}
}

var (
	addFns, subFns, mulFns, divFns, remFns, powFns, maxFns, minFns fns2
	negFns, signFns, absFns                                        fns1
)

func init() {
	ints2(&addFns, addK[int8], addK[int16], addK[int32], addK[int64], addK[uint8], addK[uint16], addK[uint32], addK[uint64])
	addFns.b, addFns.f32, addFns.f64, addFns.c64, addFns.c128 = orB, vec2(vecAdd, addK[float32]), vec2(vecAdd, addK[float64]), addK[complex64], addK[complex128]

	ints2(&subFns, subK[int8], subK[int16], subK[int32], subK[int64], subK[uint8], subK[uint16], subK[uint32], subK[uint64])
	subFns.f32, subFns.f64, subFns.c64, subFns.c128 = vec2(vecSub, subK[float32]), vec2(vecSub, subK[float64]), subK[complex64], subK[complex128]

	ints2(&mulFns, mulK[int8], mulK[int16], mulK[int32], mulK[int64], mulK[uint8], mulK[uint16], mulK[uint32], mulK[uint64])
	mulFns.b, mulFns.f32, mulFns.f64, mulFns.c64, mulFns.c128 = andB, vec2(vecMul, mulK[float32]), vec2(vecMul, mulK[float64]), mulK[complex64], mulK[complex128]

	ints2(&divFns, divSK[int8], divSK[int16], divSK[int32], divSK[int64], divUK[uint8], divUK[uint16], divUK[uint32], divUK[uint64])
	// complex64 division goes through complex128, as the reference does.
	divFns.f32, divFns.f64, divFns.c128 = vec2(vecDiv, divFK[float32]), vec2(vecDiv, divFK[float64]), divFK[complex128]

	ints2(&remFns, remIK[int8], remIK[int16], remIK[int32], remIK[int64], remIK[uint8], remIK[uint16], remIK[uint32], remIK[uint64])
	remFns.f32, remFns.f64 = remF32, remF64

	ints2(&powFns, powSK[int8], powSK[int16], powSK[int32], powSK[int64], powUK[uint8], powUK[uint16], powUK[uint32], powUK[uint64])
	powFns.f64, powFns.c128 = powF64, powC128

	ints2(&maxFns, maxK[int8], maxK[int16], maxK[int32], maxK[int64], maxK[uint8], maxK[uint16], maxK[uint32], maxK[uint64])
	maxFns.b, maxFns.f32, maxFns.f64, maxFns.c64, maxFns.c128 = orB, vec2(vecMax, maxK[float32]), vec2(vecMax, maxK[float64]), maxCK[complex64], maxCK[complex128]

	ints2(&minFns, minK[int8], minK[int16], minK[int32], minK[int64], minK[uint8], minK[uint16], minK[uint32], minK[uint64])
	minFns.b, minFns.f32, minFns.f64, minFns.c64, minFns.c128 = andB, vec2(vecMin, minK[float32]), vec2(vecMin, minK[float64]), minCK[complex64], minCK[complex128]

	ints1(&negFns, negK[int8], negK[int16], negK[int32], negK[int64], negK[uint8], negK[uint16], negK[uint32], negK[uint64])
	negFns.f32, negFns.f64, negFns.c64, negFns.c128 = negK[float32], negK[float64], negK[complex64], negK[complex128]

	ints1(&signFns, signSK[int8], signSK[int16], signSK[int32], signSK[int64], signUK[uint8], signUK[uint16], signUK[uint32], signUK[uint64])
	signFns.f32, signFns.f64, signFns.c64, signFns.c128 = signFK[float32], signFK[float64], signC64, signC128

	// abs of an unsigned integer is the identity.
	ints1(&absFns, absSK[int8], absSK[int16], absSK[int32], absSK[int64], copyK[uint8], copyK[uint16], copyK[uint32], copyK[uint64])
	absFns.f32, absFns.f64 = absF32, absF64
}

// prepAbs handles abs: same type, except complex operands give their
// modulus in the part type.
func prepAbs(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("expected 1 operand, got %d", len(c.In))
	}
	dt, err := operandDType(c, 0)
	if err != nil {
		return nil, err
	}
	rt, err := resultDType(c)
	if err != nil {
		return nil, err
	}
	switch {
	case dt.IsComplex():
		if rt != dt.ComplexPart() {
			return nil, c.Errorf("abs of %s must give %s, not %s", dt, dt.ComplexPart(), rt)
		}
		if dt == hlo.C64 {
			return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
				d := view[float32](dst, lo, hi)
				for i, v := range view[complex64](srcs[0], lo, hi) {
					d[i] = float32(cmplx.Abs(complex128(v)))
				}
			}, nil
		}
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d := view[float64](dst, lo, hi)
			for i, v := range view[complex128](srcs[0], lo, hi) {
				d[i] = cmplx.Abs(v)
			}
		}, nil
	case rt != dt:
		return nil, c.Errorf("result type %s differs from operand type %s", c.Out[0], c.In[0])
	}
	if f := tile1(dt, &absFns); f != nil {
		return f, nil
	}
	return nil, unsupported(c, dt)
}
