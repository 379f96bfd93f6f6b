package elementwise

import (
	"math"
	"math/cmplx"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Transcendental ops. float64 uses the math package; float32 uses the fast
// paths of fastmath.go for exp, log, tanh and logistic and otherwise the
// float64 function rounded once; narrower floats are computed in float64
// (as the reference interpreter upcasts to double); complex64 is computed in
// complex128.

func init() {
	kernel.Register(
		unaryOp("exponential", costMath, fixed1(&fns1{f32: exp32s, f64: mapF64(math.Exp), c128: mapC(cmplx.Exp)})),
		unaryOp("exponential_minus_one", costLib, fixed1(&fns1{f32: mapF32(math.Expm1), f64: mapF64(math.Expm1), c128: mapC(expm1C)})),
		unaryOp("log", costMath, fixed1(&fns1{f32: log32s, f64: mapF64(math.Log), c128: mapC(cmplx.Log)})),
		unaryOp("log_plus_one", costLib, fixed1(&fns1{f32: mapF32(math.Log1p), f64: mapF64(math.Log1p), c128: mapC(log1pC)})),
		unaryOp("logistic", costMath, fixed1(&fns1{f32: logistic32s, f64: mapF64(logistic64), c128: mapC(logisticC)})),
		unaryOp("tanh", costMath, fixed1(&fns1{f32: tanh32s, f64: mapF64(math.Tanh), c128: mapC(tanhC)})),
		unaryOp("sine", costLib, fixed1(&fns1{f32: mapF32(math.Sin), f64: mapF64(math.Sin), c128: mapC(cmplx.Sin)})),
		unaryOp("cosine", costLib, fixed1(&fns1{f32: mapF32(math.Cos), f64: mapF64(math.Cos), c128: mapC(cmplx.Cos)})),
		unaryOp("tan", costLib, fixed1(&fns1{f32: mapF32(math.Tan), f64: mapF64(math.Tan), c128: mapC(TanC)})),
		unaryOp("sqrt", costDiv, fixed1(&fns1{f32: sqrt32s, f64: sqrt64s, c128: mapC(cmplx.Sqrt)})),
		unaryOp("rsqrt", costDiv, fixed1(&fns1{f32: rsqrt32s, f64: rsqrt64s, c128: mapC(rsqrtC)})),
		unaryOp("cbrt", costLib, fixed1(&fns1{f32: mapF32(math.Cbrt), f64: mapF64(math.Cbrt), c128: mapC(cbrtC)})),
		binaryOp("atan2", costLib, fixed2(&fns2{f64: atan2F64, c128: atan2C128})),
	)
}

func mapF64(f func(float64) float64) func(d, a []float64) {
	return func(d, a []float64) {
		a = a[:len(d)]
		for i, v := range a {
			d[i] = f(v)
		}
	}
}

func mapF32(f func(float64) float64) func(d, a []float32) {
	return func(d, a []float32) {
		a = a[:len(d)]
		for i, v := range a {
			d[i] = float32(f(float64(v)))
		}
	}
}

func mapC(f func(complex128) complex128) func(d, a []complex128) {
	return func(d, a []complex128) {
		a = a[:len(d)]
		for i, v := range a {
			d[i] = f(v)
		}
	}
}

func sqrt32s(d, a []float32) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = float32(math.Sqrt(float64(v)))
	}
}

func sqrt64s(d, a []float64) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = math.Sqrt(v)
	}
}

func rsqrt32s(d, a []float32) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = float32(1 / math.Sqrt(float64(v)))
	}
}

func rsqrt64s(d, a []float64) {
	a = a[:len(d)]
	for i, v := range a {
		d[i] = 1 / math.Sqrt(v)
	}
}

func logistic64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func expm1C(z complex128) complex128    { return cmplx.Exp(z) - 1 }
func log1pC(z complex128) complex128    { return cmplx.Log(z + 1) }
func logisticC(z complex128) complex128 { return 1 / (1 + cmplx.Exp(-z)) }
func rsqrtC(z complex128) complex128    { return 1 / cmplx.Sqrt(z) }

// tanhC is cmplx.Tanh made safe for large |re|, where Go's formula divides
// two infinities: there tanh z = sign(re) + 4i sin(im)cos(im) e^(-2|re|).
func tanhC(z complex128) complex128 {
	re, im := real(z), imag(z)
	if math.Abs(re) > 20 && !math.IsInf(im, 0) && im == im {
		s, c := math.Sincos(im)
		return complex(math.Copysign(1, re), 4*s*c*math.Exp(-2*math.Abs(re)))
	}
	return cmplx.Tanh(z)
}

// cbrtC is the principal cube root |z|^(1/3) e^(i arg(z)/3), written as the
// reference interpreter writes it.
func cbrtC(z complex128) complex128 {
	re, im := real(z), imag(z)
	theta := math.Atan2(im, re) / 3
	r := math.Pow(re*re+im*im, 1.0/6)
	s, c := math.Sincos(theta)
	return complex(r*c, r*s)
}

func atan2F64(d, a, b []float64) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = math.Atan2(a[i], b[i])
	}
}

// atan2C128 is -i log((x + iy) / sqrt(x^2 + y^2)) for y = lhs, x = rhs.
func atan2C128(d, a, b []complex128) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		y, x := a[i], b[i]
		d[i] = -1i * cmplx.Log((x+1i*y)/cmplx.Sqrt(x*x+y*y))
	}
}
