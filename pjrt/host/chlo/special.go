package chlo

import "math"

// Real special functions in float64, accurate to a few ULP (checked against
// math/big references in the tests).

// digamma is ψ(x) = d/dx log Γ(x); NaN at the poles (non-positive
// integers) and at -Inf.
func digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	case x <= 0 && x == math.Floor(x):
		return math.NaN()
	}
	if x < 0 {
		// Reflection: ψ(x) = ψ(1-x) - π cot(πx).
		return digamma(1-x) - math.Pi/tanPi(x)
	}
	if d := (x - digammaRootHi) - digammaRootLo; math.Abs(d) < 0.25 {
		return digammaNearRoot(d)
	}
	// Recurrence up to x >= 10, then the asymptotic series.
	var sum, comp float64 // Neumaier-compensated sum of 1/x terms
	for x < 10 {
		t := 1 / x
		s := sum + t
		if math.Abs(sum) >= math.Abs(t) {
			comp += (sum - s) + t
		} else {
			comp += (t - s) + sum
		}
		sum = s
		x++
	}
	x2 := 1 / (x * x)
	// Σ B_2k / (2k x^2k), k = 1..7.
	series := x2 * (1.0/12 - x2*(1.0/120-x2*(1.0/252-x2*(1.0/240-x2*(1.0/132-x2*(691.0/32760-x2*(1.0/12)))))))
	return math.Log(x) - 0.5/x - series - (sum + comp)
}

// The positive root of ψ as a double-double.
const digammaRootHi, digammaRootLo = 1.4616321449683622, 9.549995429965697e-17

// digammaRootCoef[k-1] = (-1)^(k+1) ζ(k+1, x0): the Taylor coefficients of
// ψ at its root x0, where the general formula loses its relative accuracy
// to cancellation.
var digammaRootCoef = func() []float64 {
	c := make([]float64, 40)
	for k := range c {
		z := zeta(float64(k+2), digammaRootHi)
		if k%2 == 1 {
			z = -z
		}
		c[k] = z
	}
	return c
}()

func digammaNearRoot(d float64) float64 {
	var s float64
	for k := len(digammaRootCoef) - 1; k >= 0; k-- {
		s = (s + digammaRootCoef[k]) * d
	}
	return s
}

// tanPi is tan(πx) with the argument reduced exactly first.
func tanPi(x float64) float64 {
	r := x - math.Round(x) // exact, in [-0.5, 0.5]
	if r == 0.5 || r == -0.5 {
		return math.Inf(1)
	}
	return math.Tan(math.Pi * r)
}

// erfInv is the inverse error function: erf(erfInv(x)) = x on [-1, 1],
// ±Inf at ±1, NaN outside.
func erfInv(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < -1 || x > 1:
		return math.NaN()
	case x == 1:
		return math.Inf(1)
	case x == -1:
		return math.Inf(-1)
	case x == 0:
		return x
	}
	a := math.Abs(x)
	y := erfInvGuess(a)
	// Halley steps on erf(y) = a (or erfc(y) = 1-a in the tail, where 1-a
	// is exact and erfc keeps its relative accuracy).
	const twoOverSqrtPi = 1.1283791670955126
	tail := a > 0.5
	oneMinus := 1 - a
	for k := 0; k < 60; k++ {
		var f float64
		if tail {
			f = -(math.Erfc(y) - oneMinus)
		} else {
			f = math.Erf(y) - a
		}
		d := twoOverSqrtPi * math.Exp(-y*y)
		if d == 0 {
			break
		}
		u := f / d
		step := u / (1 + y*u)
		y -= step
		if math.Abs(step) <= 1e-17*math.Abs(y) {
			break
		}
	}
	return math.Copysign(y, x)
}

// gilesSmall and gilesLarge are the coefficients of Giles' single-precision
// erfinv approximation ("Approximating the erfinv function", 2010), for
// w < 5 (in w - 2.5) and w >= 5 (in sqrt(w) - 3), highest degree first.
var (
	gilesSmall = [...]float64{2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
		0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941}
	gilesLarge = [...]float64{-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
		0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682}
)

// erfInvGuess is Giles' approximation in float64: a start for Halley steps.
func erfInvGuess(x float64) float64 {
	w := -math.Log((1 - x) * (1 + x))
	coefs := gilesSmall[:]
	if w < 5 {
		w -= 2.5
	} else {
		w = math.Sqrt(w) - 3
		coefs = gilesLarge[:]
	}
	p := coefs[0]
	for _, c := range coefs[1:] {
		p = c + p*w
	}
	return p * x
}

// besselI1e is exp(-|x|) I1(x), odd in x.
func besselI1e(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsInf(x, 0):
		return math.Copysign(0, x)
	case x == 0:
		return x
	}
	a := math.Abs(x)
	var r float64
	if a <= 25 {
		// Power series in double-double: I1(a) = Σ (a/2)^(2k+1) / (k! (k+1)!).
		q := dd{a * a / 4, math.FMA(a, a, -(a*a)) / 4}
		t := dd{a / 2, 0}
		s := t
		for k := 1; k < 500; k++ {
			t = t.mul(q).divFloat(float64(k) * float64(k+1))
			s = s.add(t)
			if t.hi < 1e-34*s.hi {
				break
			}
		}
		r = s.mulFloat(math.Exp(-a)).hi
	} else {
		// Asymptotic series: I1e(a) ~ (2πa)^-1/2 Σ (-1)^k a_k(1) / a^k.
		term, sum := 1.0, 1.0
		for k := 1; k < 200; k++ {
			m := float64(2*k - 1)
			next := -term * (4 - m*m) / (float64(k) * 8 * a)
			if math.Abs(next) >= math.Abs(term) {
				break
			}
			term = next
			sum += term
			if math.Abs(term) < 1e-18*math.Abs(sum) {
				break
			}
		}
		r = sum / math.Sqrt(2*math.Pi*a)
	}
	return math.Copysign(r, x)
}

// bernoulli2k holds B_2k / (2k)! for k = 1..12.
var bernoulli2k = [...]float64{
	1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160,
	-691.0 / 1307674368000, 1.0 / 74724249600, -3617.0 / 10670622842880000,
	43867.0 / 5109094217170944000, -174611.0 / 802857662698291200000,
	77683.0 / 14101100039391805440000, -236364091.0 / 1693824136731743669452800000,
}

// zeta is the Hurwitz zeta function Σ_k (k+q)^-x (x > 1), by
// Euler-Maclaurin summation; +Inf at x = 1 and at the poles q = 0, -1, ...
func zeta(x, q float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(q):
		return math.NaN()
	case x == 1:
		return math.Inf(1)
	case x < 1:
		return math.NaN()
	case q <= 0 && q == math.Floor(q):
		return math.Inf(1)
	case q < 0 && x != math.Floor(x):
		return math.NaN()
	}
	const n = 12
	var s float64
	for k := 0; k < n; k++ {
		s += math.Pow(q+float64(k), -x)
	}
	a := q + n
	s += math.Pow(a, 1-x)/(x-1) + 0.5*math.Pow(a, -x)
	// Tail: Σ_j B_2j/(2j)! x(x+1)...(x+2j-2) a^(-x-2j+1).
	fac := x * math.Pow(a, -x-1) // x a^(-x-1)
	for j, b := range bernoulli2k {
		t := b * fac
		s += t
		if math.Abs(t) < 1e-17*math.Abs(s) {
			break
		}
		k := float64(2*j + 1)
		fac *= (x + k) * (x + k + 1) / (a * a)
	}
	return s
}

// polygamma is ψ^(n)(x) = (-1)^(n+1) n! ζ(n+1, x) for integer n >= 1 and
// ψ(x) for n = 0; NaN for other n.
func polygamma(n, x float64) float64 {
	if n != math.Floor(n) || n < 0 || math.IsNaN(x) {
		return math.NaN()
	}
	if n == 0 {
		return digamma(x)
	}
	f, _ := math.Lgamma(n + 1)
	sign := -1.0
	if int64(n)%2 == 1 {
		sign = 1
	}
	return sign * math.Exp(f) * zeta(n+1, x)
}
