package elementwise

import (
	"math"
	"math/cmplx"
	"math/rand"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// Float and complex ops against float64/complex128 references computed
// here: float64 results must equal the reference, narrow floats must equal
// the reference rounded once, float32 may differ by ulp32 ULPs where it
// uses its fast paths.

type floatCase struct {
	name  string
	ref   func(x ...float64) float64
	ulp32 float64 // allowed float32 error in ULPs
	cref  func(z ...complex128) complex128
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

var unaryFloatCases = []floatCase{
	{"abs", func(x ...float64) float64 { return math.Abs(x[0]) }, 0, nil},
	{"negate", func(x ...float64) float64 { return -x[0] }, 0, func(z ...complex128) complex128 { return -z[0] }},
	{"exponential", func(x ...float64) float64 { return math.Exp(x[0]) }, 1, cmplxExp},
	{"exponential_minus_one", func(x ...float64) float64 { return math.Expm1(x[0]) }, 0, func(z ...complex128) complex128 { return cmplx.Exp(z[0]) - 1 }},
	{"log", func(x ...float64) float64 { return math.Log(x[0]) }, 1, func(z ...complex128) complex128 { return cmplx.Log(z[0]) }},
	{"log_plus_one", func(x ...float64) float64 { return math.Log1p(x[0]) }, 0, func(z ...complex128) complex128 { return cmplx.Log(1 + z[0]) }},
	{"logistic", func(x ...float64) float64 { return logistic(x[0]) }, 1, func(z ...complex128) complex128 { return 1 / (1 + cmplx.Exp(-z[0])) }},
	{"tanh", func(x ...float64) float64 { return math.Tanh(x[0]) }, 1, func(z ...complex128) complex128 { return cmplx.Tanh(z[0]) }},
	{"sine", func(x ...float64) float64 { return math.Sin(x[0]) }, 0, func(z ...complex128) complex128 { return cmplx.Sin(z[0]) }},
	{"cosine", func(x ...float64) float64 { return math.Cos(x[0]) }, 0, func(z ...complex128) complex128 { return cmplx.Cos(z[0]) }},
	{"tan", func(x ...float64) float64 { return math.Tan(x[0]) }, 0, func(z ...complex128) complex128 { return cmplx.Tan(z[0]) }},
	{"sqrt", func(x ...float64) float64 { return math.Sqrt(x[0]) }, 0, func(z ...complex128) complex128 { return cmplx.Sqrt(z[0]) }},
	{"rsqrt", func(x ...float64) float64 { return 1 / math.Sqrt(x[0]) }, 0, func(z ...complex128) complex128 { return 1 / cmplx.Sqrt(z[0]) }},
	{"cbrt", func(x ...float64) float64 { return math.Cbrt(x[0]) }, 0, nil},
	{"floor", func(x ...float64) float64 { return math.Floor(x[0]) }, 0, nil},
	{"ceil", func(x ...float64) float64 { return math.Ceil(x[0]) }, 0, nil},
	{"round_nearest_afz", func(x ...float64) float64 { return roundAFZ(x[0]) }, 0, nil},
	{"round_nearest_even", func(x ...float64) float64 { return roundEven(x[0]) }, 0, nil},
	{"sign", func(x ...float64) float64 { return signRef(x[0]) }, 0, nil},
}

func cmplxExp(z ...complex128) complex128 { return cmplx.Exp(z[0]) }

// roundAFZ and roundEven are written from their definitions, not with
// math.Round*.
func roundAFZ(x float64) float64 {
	if math.IsInf(x, 0) || x != x || math.Abs(x) >= 1<<52 {
		return x
	}
	t := math.Trunc(x)
	if math.Abs(x-t) >= 0.5 {
		t += math.Copysign(1, x)
	}
	return math.Copysign(t, x)
}

func roundEven(x float64) float64 {
	if math.IsInf(x, 0) || x != x || math.Abs(x) >= 1<<52 {
		return x
	}
	f := math.Floor(x)
	d := x - f
	switch {
	case d > 0.5, d == 0.5 && math.Mod(f, 2) != 0:
		f++
	}
	return math.Copysign(f, x)
}

func signRef(x float64) float64 {
	switch {
	case x != x, x == 0:
		return x
	case x < 0:
		return -1
	}
	return 1
}

var binaryFloatCases = []floatCase{
	{"add", func(x ...float64) float64 { return x[0] + x[1] }, 0, func(z ...complex128) complex128 { return z[0] + z[1] }},
	{"subtract", func(x ...float64) float64 { return x[0] - x[1] }, 0, func(z ...complex128) complex128 { return z[0] - z[1] }},
	{"multiply", func(x ...float64) float64 { return x[0] * x[1] }, 0, func(z ...complex128) complex128 { return z[0] * z[1] }},
	{"divide", func(x ...float64) float64 { return x[0] / x[1] }, 0, func(z ...complex128) complex128 { return z[0] / z[1] }},
	{"remainder", func(x ...float64) float64 { return math.Mod(x[0], x[1]) }, 0, nil},
	{"power", func(x ...float64) float64 { return math.Pow(x[0], x[1]) }, 0, func(z ...complex128) complex128 { return cmplx.Pow(z[0], z[1]) }},
	{"atan2", func(x ...float64) float64 { return math.Atan2(x[0], x[1]) }, 0, nil},
	{"maximum", func(x ...float64) float64 { return ieeeMax(x[0], x[1]) }, 0, nil},
	{"minimum", func(x ...float64) float64 { return -ieeeMax(-x[0], -x[1]) }, 0, nil},
}

// ieeeMax is IEEE-754 maximum: NaN if either is NaN, +0 over -0.
func ieeeMax(a, b float64) float64 {
	switch {
	case a != a || b != b:
		return math.NaN()
	case a == 0 && b == 0:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func TestFloatOps(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const n = 300
	for arity, cases := range [][]floatCase{nil, unaryFloatCases, binaryFloatCases} {
		for _, fc := range cases {
			for _, dt := range floatTypes {
				args := make([]*hlo.Literal, arity)
				for k := range args {
					args[k] = randFloats(r, dt, n)
				}
				if arity == 2 {
					// Pair every edge with every other one at the front.
					for i := 0; i < len(floatEdges) && i*len(floatEdges) < n; i++ {
						for j := 0; j < len(floatEdges) && i*len(floatEdges)+j < n; j++ {
							args[0].SetFloat(i*len(floatEdges)+j, floatEdges[i])
							args[1].SetFloat(i*len(floatEdges)+j, floatEdges[j])
						}
					}
				}
				got := runOp(t, "stablehlo."+fc.name, hlo.NewTensorType(dt, n), nil, args...)
				bad := 0
				for i := 0; i < n; i++ {
					xs := make([]float64, arity)
					for k := range xs {
						xs[k] = args[k].Float(i)
					}
					want := fc.ref(xs...)
					g := got.Float(i)
					var ok bool
					switch dt {
					case hlo.F64:
						ok = sameFloat(g, want) || (want != want && g != g)
					case hlo.F32:
						w := float64(float32(want))
						ok = sameFloat(g, w) || ulps(dt, g, w) <= fc.ulp32
					default:
						ok = sameFloat(g, roundTo(dt, want))
					}
					if !ok && bad < 5 {
						bad++
						t.Errorf("%s %s%v: got %v, want %v", fc.name, dt, xs, g, want)
					}
				}
			}
			if fc.cref == nil {
				continue
			}
			for _, dt := range complexTypes {
				args := make([]*hlo.Literal, arity)
				for k := range args {
					args[k] = randComplex(r, dt, n)
				}
				got := runOp(t, "stablehlo."+fc.name, hlo.NewTensorType(dt, n), nil, args...)
				for i := 0; i < n; i++ {
					zs := make([]complex128, arity)
					for k := range zs {
						zs[k] = args[k].Complex(i)
					}
					want := fc.cref(zs...)
					g := got.Complex(i)
					if dt == hlo.C64 {
						want = complex128(complex64(want))
					}
					if !closeC(g, want, dt) {
						t.Errorf("%s %s%v: got %v, want %v", fc.name, dt, zs, g, want)
						break
					}
				}
			}
		}
	}
}

// closeC compares complex results: NaN parts match NaN parts; otherwise a
// relative error of a few ULPs of the part type (complex64 arithmetic is
// done in float32 where the reference is rounded once).
func closeC(g, w complex128, dt hlo.DType) bool {
	tol := 1e-13
	if dt == hlo.C64 {
		tol = 1e-6
	}
	part := func(a, b float64) bool {
		if a != a || b != b {
			return a != a && b != b
		}
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			return a == b
		}
		return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
	}
	return part(real(g), real(w)) && part(imag(g), imag(w))
}

func TestFloatPredicates(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, dt := range floatTypes {
		x := randFloats(r, dt, 64)
		got := runOp(t, "stablehlo.is_finite", hlo.NewTensorType(hlo.Bool, 64), nil, x)
		for i := 0; i < 64; i++ {
			v := x.Float(i)
			want := !math.IsInf(v, 0) && !math.IsNaN(v)
			if (got.Data[i] != 0) != want {
				t.Errorf("is_finite %s %v = %v", dt, v, got.Data[i])
			}
		}
	}
}

func TestComplexParts(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, dt := range complexTypes {
		z := randComplex(r, dt, 40)
		part := dt.ComplexPart()
		re := runOp(t, "stablehlo.real", hlo.NewTensorType(part, 40), nil, z)
		im := runOp(t, "stablehlo.imag", hlo.NewTensorType(part, 40), nil, z)
		ab := runOp(t, "stablehlo.abs", hlo.NewTensorType(part, 40), nil, z)
		back := runOp(t, "stablehlo.complex", hlo.NewTensorType(dt, 40), nil, re, im)
		sg := runOp(t, "stablehlo.sign", hlo.NewTensorType(dt, 40), nil, z)
		for i := 0; i < 40; i++ {
			v := z.Complex(i)
			if !sameFloat(re.Float(i), real(v)) || !sameFloat(im.Float(i), imag(v)) {
				t.Errorf("real/imag %s %v: %v %v", dt, v, re.Float(i), im.Float(i))
			}
			wantAbs := math.Hypot(real(v), imag(v))
			if part == hlo.F32 {
				wantAbs = float64(float32(wantAbs))
			}
			if !sameFloat(ab.Float(i), wantAbs) {
				t.Errorf("abs %s %v = %v want %v", dt, v, ab.Float(i), wantAbs)
			}
			if b := back.Complex(i); !(sameFloat(real(b), real(v)) && sameFloat(imag(b), imag(v))) {
				t.Errorf("complex(real, imag) %s %v = %v", dt, v, b)
			}
			var ws complex128
			switch {
			case cmplx.IsNaN(v) && !cmplx.IsInf(v):
				ws = complex(math.NaN(), math.NaN())
			case v == 0:
				ws = 0
			default:
				ws = complex(real(v)/wantAbs, imag(v)/wantAbs)
			}
			if real(v) != real(v) || imag(v) != imag(v) {
				ws = complex(math.NaN(), math.NaN())
			}
			if !closeC(sg.Complex(i), ws, dt) {
				t.Errorf("sign %s %v = %v want %v", dt, v, sg.Complex(i), ws)
			}
		}
	}
	// real and imag of real floats: the value and zero.
	x := hlo.LiteralFromSlice([]float32{-2, 3.5})
	if g := runOp(t, "stablehlo.real", x.Type(), nil, x); !g.Equal(x) {
		t.Errorf("real(f32) = %v", g)
	}
	if g := runOp(t, "stablehlo.imag", x.Type(), nil, x); g.F32()[0] != 0 || g.F32()[1] != 0 {
		t.Errorf("imag(f32) = %v", g)
	}
}

// TestComplexMinMax checks lexicographic ordering.
func TestComplexMinMax(t *testing.T) {
	a := hlo.LiteralFromSlice([]complex128{1 + 2i, 1 + 2i, 3, complex(math.NaN(), 0)})
	b := hlo.LiteralFromSlice([]complex128{1 + 3i, 0 + 9i, 2 + 9i, 1})
	mx := runOp(t, "stablehlo.maximum", a.Type(), nil, a, b)
	mn := runOp(t, "stablehlo.minimum", a.Type(), nil, a, b)
	wantMax := []complex128{1 + 3i, 1 + 2i, 3, 1}
	wantMin := []complex128{1 + 2i, 0 + 9i, 2 + 9i, 1}
	for i := range wantMax {
		if mx.C128()[i] != wantMax[i] || mn.C128()[i] != wantMin[i] {
			t.Errorf("max/min(%v, %v) = %v, %v", a.C128()[i], b.C128()[i], mx.C128()[i], mn.C128()[i])
		}
	}
}
