package chlo

import (
	"math"

	"github.com/xlajit/xlajit/pjrt/host/elementwise"
)

// Elementary functions, real and complex, written for accuracy near the
// branch cuts and branch points (a double-double 1-|z|² for atanh), where
// the textbook log/sqrt formulas lose digits. Complex tan, which StableHLO
// has too, is package elementwise's (TanC). The complex
// inverse sine family lives in decomp.go.

// bigArg: beyond it, |z|² terms are negligible (and overflow).
const bigArg = 1e150

// asinReal is asin(x) = atan2(x, sqrt((1-x)(1+x))), exact-ish near ±1.
func asinReal(x float64) float64 {
	if math.Abs(x) < 0.5 {
		return math.Asin(x)
	}
	return math.Atan2(x, math.Sqrt((1-x)*(1+x)))
}

// acosReal is acos(x) computed from the half-angle form near ±1.
func acosReal(x float64) float64 {
	if math.Abs(x) < 0.5 {
		return math.Acos(x)
	}
	return 2 * math.Atan2(math.Sqrt((1-x)*(1+x)), 1+x)
}

// coshReal follows fdlibm (expm1 near 0), as elementwise.Sinh.
func coshReal(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return x
	case a < 0.34657359027997264: // ln2/2
		t := math.Expm1(a)
		w := 1 + t
		return 1 + t*t/(w+w)
	case a < 22:
		t := math.Exp(a)
		return 0.5*t + 0.5/t
	case a < 709:
		return 0.5 * math.Exp(a)
	}
	h := math.Exp(a / 2)
	return 0.5 * h * h
}

// expScaled returns (e^|x| / 2) * c without overflowing early.
func halfExpTimes(a, c float64) float64 {
	if a < 709 {
		return 0.5 * math.Exp(a) * c
	}
	h := math.Exp(a / 2)
	return (0.5 * h * c) * h
}

func csinh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if y == 0 {
		return complex(elementwise.Sinh(x), y)
	}
	if math.Abs(x) >= 22 {
		s, c := math.Sincos(y)
		return complex(math.Copysign(halfExpTimes(math.Abs(x), c), x), halfExpTimes(math.Abs(x), s))
	}
	s, c := math.Sincos(y)
	return complex(elementwise.Sinh(x)*c, coshReal(x)*s)
}

func ccosh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if y == 0 {
		return complex(coshReal(x), math.Copysign(0, x)*y)
	}
	if math.Abs(x) >= 22 {
		s, c := math.Sincos(y)
		return complex(halfExpTimes(math.Abs(x), c), math.Copysign(halfExpTimes(math.Abs(x), s), x))
	}
	s, c := math.Sincos(y)
	return complex(coshReal(x)*c, elementwise.Sinh(x)*s)
}

// catanh uses atanh(z) = ¼ log1p(4x/((1-x)²+y²)) + i ½ atan2(2y, 1-x²-y²),
// with 1-x²-y² in double-double (it cancels near |z| = 1).
func catanh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.IsNaN(x) || math.IsNaN(y) {
		if math.IsInf(x, 0) || math.IsInf(y, 0) {
			return complex(math.Copysign(0, x), math.Copysign(math.Pi/2, y))
		}
		return nanComplex(x, y)
	}
	ax, ay := math.Abs(x), math.Abs(y)
	var re, im float64
	if ax > bigArg || ay > bigArg {
		// atanh z ~ 1/z: Re = x/|z|², Im = ±π/2.
		if ax >= ay {
			q := ay / ax
			re = 1 / (ax * (1 + q*q))
		} else {
			q := ax / ay
			re = q / (ay * (1 + q*q))
		}
		if math.IsInf(ax, 0) || math.IsInf(ay, 0) {
			re = 0
		}
		im = math.Pi / 2
	} else {
		om := 1 - ax
		re = 0.25 * math.Log1p(4*ax/(om*om+ay*ay))
		d := dd{1, 0}.sub(twoProdDD(ax, ax)).sub(twoProdDD(ay, ay))
		im = 0.5 * math.Atan2(2*ay, d.float())
	}
	return complex(math.Copysign(re, x), math.Copysign(im, y))
}

func twoProdDD(a, b float64) dd {
	p, e := twoProd(a, b)
	return dd{p, e}
}

// catan(z) = -i atanh(iz).
func catan(z complex128) complex128 {
	w := catanh(complex(-imag(z), real(z)))
	return complex(imag(w), -real(w))
}

func nanComplex(x, y float64) complex128 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return complex(math.NaN(), math.Inf(1))
	}
	return complex(math.NaN(), math.NaN())
}
