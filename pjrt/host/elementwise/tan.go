package elementwise

import "math"

// TanC is complex tan(z) = -i tanh(iz), with Kahan's tanh: finite for
// every finite z (±i once |Im z| is large, where sin/cos over cosh/sinh
// formulas divide two infinities). stablehlo.tan and chlo.tan use it.
func TanC(z complex128) complex128 {
	w := kahanTanh(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}

// kahanTanh is tanh by Kahan's algorithm.
func kahanTanh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.IsNaN(x) || math.IsNaN(y) {
		if y == 0 {
			return complex(x, y)
		}
		return complex(math.NaN(), math.NaN())
	}
	if math.Abs(x) > 22 {
		s, c := math.Sincos(y)
		return complex(math.Copysign(1, x), 4*s*c*math.Exp(-2*math.Abs(x)))
	}
	t := math.Tan(y)
	beta := 1 + t*t
	s := Sinh(x)
	rho := math.Sqrt(1 + s*s)
	den := 1 + beta*s*s
	return complex(beta*rho*s/den, t/den)
}

// Sinh is sinh(x) as fdlibm computes it (expm1 near 0), accurate to an
// ULP where math.Sinh loses digits near 0.
func Sinh(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || a == 0:
		return x
	case a < 22:
		t := math.Expm1(a)
		if a < 1 {
			return math.Copysign(0.5*(2*t-t*t/(t+1)), x)
		}
		return math.Copysign(0.5*(t+t/(t+1)), x)
	case a < 709:
		return math.Copysign(0.5*math.Exp(a), x)
	}
	h := math.Exp(a / 2)
	return math.Copysign(0.5*h*h, x)
}
