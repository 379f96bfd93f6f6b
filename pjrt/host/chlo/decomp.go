package chlo

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/elementwise"
)

// Some CHLO ops are defined by their StableHLO decompositions, whose
// rounding errors XLA reproduces exactly (f16/bf16 are computed in f32):
// sinh/cosh through exp(x + log ½), lgamma/digamma through a Lanczos
// approximation. Their results differ from the exact function by many
// ULPs at places (|x| ≈ 10 for sinh in f32, near the zeros of lgamma), so
// these ops evaluate the same formulas, step by step, rounding every
// intermediate to the computation type as the decomposition does.

// arith rounds intermediates to a computation type (f32 or f64).
type arith struct{ r func(float64) float64 }

var (
	arith32 = arith{func(x float64) float64 { return float64(float32(x)) }}
	arith64 = arith{func(x float64) float64 { return x }}
)

// arithFor is the computation type of element type dt: at least f32.
func arithFor(dt hlo.DType) arith {
	if dt == hlo.F64 {
		return arith64
	}
	return arith32
}

func (a arith) c(v float64) float64      { return a.r(v) }
func (a arith) add(x, y float64) float64 { return a.r(x + y) }
func (a arith) sub(x, y float64) float64 { return a.r(x - y) }
func (a arith) mul(x, y float64) float64 { return a.r(x * y) }
func (a arith) div(x, y float64) float64 { return a.r(x / y) }
func (a arith) exp(x float64) float64    { return a.r(math.Exp(x)) }
func (a arith) log(x float64) float64    { return a.r(math.Log(x)) }
func (a arith) log1p(x float64) float64  { return a.r(math.Log1p(x)) }
func (a arith) expm1(x float64) float64  { return a.r(math.Expm1(x)) }
func (a arith) sin(x float64) float64    { return a.r(math.Sin(x)) }
func (a arith) cos(x float64) float64    { return a.r(math.Cos(x)) }

// perType returns an element kernel that evaluates f in dt's computation
// type.
func perType(f func(a arith, x float64) float64) func(dt hlo.DType) realFn {
	return func(dt hlo.DType) realFn {
		a := arithFor(dt)
		return func(x float64) float64 { return f(a, x) }
	}
}

// sinhDecomp: (e^x - e^-x)/2 via expm1 for |x| < 1, else
// e^(x + log ½) - e^(-x + log ½).
//
// Below 1 the expm1 form is accurate to about an ULP, and XLA's expm1
// differs from any correctly rounded one, so there the exact value (rounded
// to the computation type) is the closest reproduction.
func sinhDecomp(a arith, x float64) float64 {
	if math.Abs(x) < 1 {
		return a.r(elementwise.Sinh(x))
	}
	lh := a.c(math.Log(0.5))
	return a.sub(a.exp(a.add(x, lh)), a.exp(a.sub(lh, x)))
}

// coshDecomp: e^(x + log ½) + e^(-x + log ½).
func coshDecomp(a arith, x float64) float64 {
	lh := a.c(math.Log(0.5))
	return a.add(a.exp(a.add(x, lh)), a.exp(a.sub(lh, x)))
}

// Lanczos approximation, g = 7, n = 9 (the classic coefficient set).
const lanczosG = 7.0

var (
	lanczosBase  = 0.99999999999980993227684700473478
	lanczosCoefs = [...]float64{
		676.520368121885098567009190444019, -1259.13921672240287047156078755283,
		771.3234287776530788486528258894, -176.61502916214059906584551354,
		12.507343278686904814458936853, -0.13857109526572011689554707,
		9.984369578019570859563e-6, 1.50563273514931155834e-7,
	}
)

// lanczosZ maps x to z (z = -x when reflecting for x < ½, else x - 1) and
// returns log t(z), t(z) = z + g + ½, with log t computed as
// log(g + ½) + log1p(z / (g + ½)).
func lanczosZ(a arith, x float64) (z, t, logT float64, reflect bool) {
	reflect = x < 0.5
	if reflect {
		z = -x
	} else {
		z = a.sub(x, 1)
	}
	gh := a.c(lanczosG + 0.5)
	t = a.add(gh, z)
	logT = a.add(a.c(math.Log(lanczosG+0.5)), a.log1p(a.div(z, gh)))
	return
}

// lgammaDecomp: log|Γ(x)| = ½ log 2π + (z + ½ - t/log t) log t + log a(z),
// with reflection log π - lgamma(1-x) - log|sin(π frac(x))| below ½.
func lgammaDecomp(a arith, x float64) float64 {
	if math.IsInf(x, 0) {
		return math.Inf(1)
	}
	z, t, logT, reflect := lanczosZ(a, x)
	s := a.c(lanczosBase)
	for i, c := range lanczosCoefs {
		s = a.add(s, a.div(a.c(c), a.add(z, float64(i+1))))
	}
	r := a.mul(a.sub(a.add(z, 0.5), a.div(t, logT)), logT)
	lg := a.add(a.add(a.c((math.Log(2)+math.Log(math.Pi))/2), r), a.log(s))
	if !reflect {
		return lg
	}
	ax := math.Abs(x)
	frac := a.sub(ax, math.Floor(ax))
	if 0.5 < frac {
		frac = a.sub(1, frac)
	}
	den := a.log(a.sin(a.mul(a.c(math.Pi), frac)))
	if math.IsInf(den, 0) || math.IsNaN(den) {
		return -den
	}
	return a.sub(a.sub(a.c(math.Log(math.Pi)), den), lg)
}

// digammaDecomp: ψ(z+1) = log t + a'(z)/a(z) - g/t, with reflection
// ψ(1-x) - π cos(πx')/sin(πx') below ½ (x' reduced to [-½, ½]); NaN at the
// poles.
func digammaDecomp(a arith, x float64) float64 {
	if x <= 0 && x == math.Floor(x) {
		return math.NaN()
	}
	z, t, logT, reflect := lanczosZ(a, x)
	s, ds := a.c(lanczosBase), 0.0
	for i, c := range lanczosCoefs {
		zt := a.add(z, float64(i+1))
		ds = a.sub(ds, a.div(a.c(c), a.mul(zt, zt)))
		s = a.add(s, a.div(a.c(c), zt))
	}
	d := a.sub(a.add(logT, a.div(ds, s)), a.div(lanczosG, t))
	if !reflect {
		return d
	}
	rx := a.add(x, math.Abs(math.Floor(a.add(x, 0.5))))
	pi := a.c(math.Pi)
	px := a.mul(pi, rx)
	return a.sub(d, a.div(a.mul(pi, a.cos(px)), a.sin(px)))
}

// erfInvDecomp: in f32, Giles' single-precision rational approximation with
// w = -log1p(-x²) (what XLA evaluates); in f64 the exact inverse (XLA's f64
// polynomial agrees with it to an ULP or two).
func erfInvDecomp(a arith, x float64) float64 {
	if a.r(0.1) == 0.1 || math.IsNaN(x) || math.Abs(x) >= 1 || x == 0 { // f64, or an edge
		return erfInv(x)
	}
	w := -a.log1p(-a.mul(x, x))
	var coefs []float64
	if w < 5 {
		w = a.sub(w, 2.5)
		coefs = gilesSmall[:]
	} else {
		w = a.sub(a.r(math.Sqrt(w)), 3)
		coefs = gilesLarge[:]
	}
	p := a.c(coefs[0])
	for _, c := range coefs[1:] {
		p = a.add(a.c(c), a.mul(p, w))
	}
	return a.mul(p, x)
}

// The inverse trigonometric and hyperbolic functions on reals decompose
// into cancellation-free formulas evaluated in the element type (f16 and
// bf16 are computed exactly and rounded once: XLA evaluates their
// intermediates in f32, where these formulas are exact to the f16 ULP).

// asinDecomp: 2 atan2(x, 1 + sqrt((1-x)(1+x))).
func asinDecomp(a arith, x float64) float64 {
	ta := a.atan2(x, a.add(1, a.sqrt(a.mul(a.sub(1, x), a.add(1, x)))))
	return a.add(ta, ta)
}

// acosDecomp: atan2(sqrt((1-x)(1+x)), x).
func acosDecomp(a arith, x float64) float64 {
	return a.atan2(a.sqrt(a.mul(a.sub(1, x), a.add(1, x))), x)
}

// acoshDecomp: log1p(sqrt(x-1) (sqrt(x+1) + sqrt(x-1))), or log 2 + log x
// near the top of the range.
func acoshDecomp(a arith, x float64) float64 {
	if x >= a.div(a.maxFinite(), 2) {
		return a.add(a.log(2), a.log(x))
	}
	s := a.sqrt(a.sub(x, 1))
	return a.log1p(a.mul(s, a.add(a.sqrt(a.add(x, 1)), s)))
}

// asinhDecomp: sign(x) log1p(|x| + x²/(1 + sqrt(1 + x²))), or
// sign(x) (log 2 + log|x|) above sqrt(max).
func asinhDecomp(a arith, x float64) float64 {
	ax := math.Abs(x)
	var r float64
	if ax >= a.sqrt(a.maxFinite()) {
		r = a.add(a.log(2), a.log(ax))
	} else {
		ax2 := a.mul(ax, ax)
		r = a.log1p(a.add(ax, a.div(ax2, a.add(1, a.sqrt(a.add(1, ax2))))))
	}
	if math.IsNaN(x) {
		return x
	}
	if x == 0 {
		return x
	}
	return math.Copysign(r, x)
}

// atanhDecomp: (log1p(x) - log1p(-x)) / 2, NaN beyond ±1.
func atanhDecomp(a arith, x float64) float64 {
	if math.Abs(x) > 1 {
		return math.NaN()
	}
	return a.mul(a.sub(a.log1p(x), a.log1p(-x)), 0.5)
}

// atanDecomp: atan2(x, 1).
func atanDecomp(a arith, x float64) float64 { return a.atan2(x, 1) }

// elementPrecision evaluates f in f32 or f64 arithmetic for those types and
// exactly (exact, rounded once) for the narrower ones.
func elementPrecision(f func(a arith, x float64) float64, exact realFn) func(dt hlo.DType) realFn {
	return func(dt hlo.DType) realFn {
		switch dt {
		case hlo.F32:
			return func(x float64) float64 { return f(arith32, x) }
		case hlo.F64:
			return func(x float64) float64 { return f(arith64, x) }
		}
		return exact
	}
}

func (a arith) sqrt(x float64) float64     { return a.r(math.Sqrt(x)) }
func (a arith) atan2(y, x float64) float64 { return a.r(math.Atan2(y, x)) }

// maxFinite is the largest finite value of the computation type.
func (a arith) maxFinite() float64 {
	if a.r(0.1) == 0.1 {
		return math.MaxFloat64
	}
	return math.MaxFloat32
}

// Complex asin, acos, asinh and acosh decompose through one kernel,
// w = sqrt(a² - x²) + i log(a + sqrt(a² - 1)) with a = (|z+1| + |z-1|)/2,
// evaluated in the element precision (f32 for complex64) with the
// approximation regions of a modified Hull-Fairgrieve-Tang algorithm.

// complexPrecision evaluates f in the component type's arithmetic.
func complexPrecision(f func(a arith, z complex128) complex128) func(dt hlo.DType) complexFn {
	return func(dt hlo.DType) complexFn {
		a := arith64
		if dt == hlo.C64 {
			a = arith32
		}
		return func(z complex128) complex128 { return f(a, z) }
	}
}

// smallestNormal is the computation type's smallest positive normal value.
func (a arith) smallestNormal() float64 {
	if a.r(0.1) == 0.1 {
		return 0x1p-1022
	}
	return 0x1p-126
}

// hypot is |p + iq| for p, q >= 0 as the decomposition computes it.
func (a arith) hypot(p, q float64) float64 {
	mx, mn := math.Max(p, q), math.Min(p, q)
	if mx == mn {
		return a.mul(a.c(math.Sqrt2), mx)
	}
	ratio := a.div(mn, mx)
	r := a.mul(ratio, ratio)
	sqa := a.sqrt(a.add(1, r))
	if sqa == 1 && r > 0 {
		return a.add(mx, a.div(a.mul(mx, r), 2))
	}
	return a.mul(mx, sqa)
}

func asinAcosKernel(a arith, sx, sy float64) (wr, wi float64) {
	x, y := math.Abs(sx), math.Abs(sy)
	safeMax := a.div(a.sqrt(a.maxFinite()), 8)
	xp1, xm1 := a.add(x, 1), a.sub(x, 1)
	r := a.hypot(math.Abs(xp1), y)
	s := a.hypot(math.Abs(xm1), y)
	am := a.mul(0.5, a.add(r, s))
	halfApx := a.mul(0.5, a.add(am, x))
	yy := a.mul(y, y)
	rpxp1 := a.add(r, xp1)
	smxm1 := a.sub(s, xm1)
	spxm1 := a.add(s, xm1)
	switch {
	case math.Max(x, y) >= safeMax:
		wr = y
	case x <= 1:
		wr = a.sqrt(a.mul(halfApx, a.add(a.div(yy, rpxp1), smxm1)))
	default:
		wr = a.mul(y, a.sqrt(a.add(a.div(halfApx, rpxp1), a.div(halfApx, spxm1))))
	}
	safeMaxOpt := a.mul(safeMax, a.c(100))
	if x < a.mul(safeMax, a.c(1e12)) {
		safeMaxOpt = a.mul(safeMax, a.c(1e-6))
	}
	yBig := y >= safeMaxOpt
	mx, thr := x, safeMax
	if yBig {
		mx, thr = y, safeMaxOpt
	}
	if mx >= thr {
		xoy := 0.0
		if yBig && !math.IsInf(y, 1) {
			xoy = a.div(x, y)
		}
		wi = a.add(a.add(a.log(2), a.log(mx)), a.mul(0.5, a.log1p(a.mul(xoy, xoy))))
		return
	}
	small := y < a.mul(a.sqrt(a.smallestNormal()), 4) && x < 1
	ap1 := a.add(am, 1)
	halfYY := a.mul(0.5, yy)
	dhy := a.div(halfYY, rpxp1)
	var am1 float64
	switch {
	case small:
		am1 = -a.div(a.mul(xp1, xm1), ap1)
	case x >= 1:
		am1 = a.add(dhy, a.mul(0.5, spxm1))
	case am <= 1.5:
		am1 = a.add(dhy, a.div(halfYY, smxm1))
	default:
		am1 = a.sub(am, 1)
	}
	sq := a.sqrt(a.mul(am1, ap1))
	if small {
		wi = a.div(y, sq)
	} else {
		wi = a.log1p(a.add(am1, sq))
	}
	return
}

func casinDecomp(a arith, z complex128) complex128 {
	wr, wi := asinAcosKernel(a, real(z), imag(z))
	if imag(z) < 0 {
		wi = -wi
	}
	return complex(a.atan2(real(z), wr), wi)
}

func cacosDecomp(a arith, z complex128) complex128 {
	wr, wi := asinAcosKernel(a, real(z), imag(z))
	if !(imag(z) < 0) {
		wi = -wi
	}
	return complex(a.atan2(wr, real(z)), wi)
}

func cacoshDecomp(a arith, z complex128) complex128 {
	wr, wi := asinAcosKernel(a, real(z), imag(z))
	im := a.atan2(wr, real(z))
	if imag(z) < 0 {
		im = -im
	}
	return complex(wi, im)
}

func casinhDecomp(a arith, z complex128) complex128 {
	wr, wi := asinAcosKernel(a, -imag(z), real(z))
	if real(z) < 0 {
		wi = -wi
	}
	return complex(wi, a.atan2(imag(z), wr))
}
