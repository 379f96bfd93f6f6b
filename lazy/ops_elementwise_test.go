package lazy

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// Tolerances. The device computes in the operand dtype from inputs the
// reference also uses (rounded to that dtype), so a correctly rounded op is
// within 1 unit roundoff; the transcendental kernels are approximations
// allowed 8 units (f32: 4.8e-7 relative), plus the same absolute amount at
// the input scale for results that pass through zero (sin, log near 1).

type unaryCase struct {
	name   string
	f      func(*Tensor) *Tensor
	ref    func(float64) float64
	lo, hi float64   // input range
	extra  []float64 // special inputs appended to the random ones
	types  []DType
	ulps   float64
}

func goRound(x float64) float64 { return math.RoundToEven(x) }

// goSign is torch.sign: (x > 0) - (x < 0), so NaN gives 0.
func goSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func gelu(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

var unaryCases = []unaryCase{
	{"Neg", (*Tensor).Neg, func(x float64) float64 { return -x }, -5, 5, nil, []DType{F32, F64, I32, I64}, 0},
	{"Abs", (*Tensor).Abs, math.Abs, -5, 5, nil, []DType{F32, F64, I32, I64}, 0},
	{"Exp", (*Tensor).Exp, math.Exp, -8, 8, []float64{0, -100, 80}, floatTypes, 8},
	{"Expm1", (*Tensor).Expm1, math.Expm1, -1, 1, []float64{1e-6, -3e-5, 0, 10}, floatTypes, 8},
	{"Log", (*Tensor).Log, math.Log, 0.05, 20, []float64{1, 1 + 1e-3, 0, 1e-30}, floatTypes, 8},
	{"Log1p", (*Tensor).Log1p, math.Log1p, -0.9, 5, []float64{1e-6, -2e-5, 0}, floatTypes, 8},
	{"Sqrt", (*Tensor).Sqrt, math.Sqrt, 0, 50, []float64{0, 1e-20, 4}, floatTypes, 1},
	{"Rsqrt", (*Tensor).Rsqrt, func(x float64) float64 { return 1 / math.Sqrt(x) }, 0.01, 50, []float64{1, 4}, floatTypes, 8},
	{"Tanh", (*Tensor).Tanh, math.Tanh, -5, 5, []float64{1e-5, 0, 30, -30}, floatTypes, 8},
	{"Sigmoid", (*Tensor).Sigmoid, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, -10, 10, []float64{0, 40, -40}, floatTypes, 8},
	{"Sin", (*Tensor).Sin, math.Sin, -6, 6, []float64{0, 1e-4, math.Pi}, floatTypes, 8},
	{"Cos", (*Tensor).Cos, math.Cos, -6, 6, []float64{0, math.Pi / 2}, floatTypes, 8},
	{"Floor", (*Tensor).Floor, math.Floor, -5, 5, []float64{-0.5, 2, -2}, floatTypes, 0},
	{"Ceil", (*Tensor).Ceil, math.Ceil, -5, 5, []float64{-0.5, 2, -2}, floatTypes, 0},
	{"Round", (*Tensor).Round, goRound, -5, 5, []float64{0.5, 1.5, 2.5, -0.5, -1.5, -2.5}, floatTypes, 0},
	{"Sign", (*Tensor).Sign, goSign, -3, 3, []float64{0, math.NaN()}, []DType{F32, F64, I32, I64}, 0},
	{"ReLU", (*Tensor).ReLU, func(x float64) float64 { return math.Max(x, 0) }, -3, 3, []float64{0}, []DType{F32, F64, I32, I64}, 0},
	{"Erf", (*Tensor).Erf, math.Erf, -3, 3, []float64{0, 1e-4, 5, -6}, floatTypes, 8},
	{"Square", (*Tensor).Square, func(x float64) float64 { return x * x }, -4, 4, nil, []DType{F32, F64, I32}, 1},
	{"Reciprocal", (*Tensor).Reciprocal, func(x float64) float64 { return 1 / x }, 0.1, 10, []float64{-2}, floatTypes, 1},
	{"GELU", (*Tensor).GELU, gelu, -4, 4, []float64{0}, floatTypes, 16},
}

func TestOpsUnary(t *testing.T) {
	r := newRand(1)
	for _, c := range unaryCases {
		for _, dt := range c.types {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				a := randND(r, c.lo, c.hi, 3, 5)
				if dt.IsInt() {
					a = randInts(r, int(c.lo)-2, int(c.hi)+3, 3, 5)
				}
				k := 0
				for _, e := range c.extra {
					if !dt.IsInt() || e == math.Trunc(e) && !math.IsNaN(e) {
						a.v[k] = e
						k++
					}
				}
				x, xv := mk(a, dt)
				want := mapND(xv, c.ref)
				tl := exact
				if dt.IsFloat() {
					tl = ulpsTol(dt, max(c.ulps, 1), 8)
					// Results rounded to dt first (the reference is exact).
					want = mapND(want, func(v float64) float64 { return literalOf(ndOf([]float64{v}, 1), dt).Float(0) })
				}
				expectT(t, c.name, c.f(x), dt, want, tl)
			})
		}
	}
}

func TestOpsUnaryLogic(t *testing.T) {
	// IsFinite on specials.
	in := ndOf([]float64{1, math.Inf(1), math.Inf(-1), math.NaN(), 0, -3}, 6)
	for _, dt := range floatTypes {
		want := mapND(in, func(x float64) float64 { return boolF(!math.IsInf(x, 0) && !math.IsNaN(x)) })
		expectT(t, "IsFinite/"+dt.String(), mkT(in, dt).IsFinite(), Bool, want, exact)
	}
	// Not: logical on bool, bitwise on ints.
	b := ndOf([]float64{1, 0, 1, 1, 0}, 5)
	expectT(t, "Not/bool", mkT(b, Bool).Not(), Bool, mapND(b, func(x float64) float64 { return 1 - x }), exact)
	iv := ndOf([]float64{0, 1, -1, 7, -128, 1000}, 6)
	for _, dt := range []DType{I32, I64} {
		expectT(t, "Not/"+dt.String(), mkT(iv, dt).Not(), dt, mapND(iv, func(x float64) float64 { return float64(^int64(x)) }), exact)
	}
	expectT(t, "Not/u8", mkT(ndOf([]float64{0, 1, 200}, 3), U8).Not(), U8, ndOf([]float64{255, 254, 55}, 3), exact)
}

func TestOpsUnsignedAndComplex(t *testing.T) {
	u := ndOf([]float64{0, 1, 7, 200, 255}, 5)
	for _, dt := range []DType{U8, U32} {
		x, xv := mk(u, dt)
		expectT(t, "Abs/"+dt.String(), x.Abs(), dt, xv, exact)
		expectT(t, "Sign/"+dt.String(), x.Sign(), dt, mapND(xv, func(v float64) float64 { return boolF(v != 0) }), exact)
		expectT(t, "ReLU/"+dt.String(), x.ReLU(), dt, xv, exact)
		m := float64(uint64(1)<<dt.Bits() - 1)
		expectT(t, "Neg/"+dt.String(), x.Neg(), dt, mapND(xv, func(v float64) float64 { return math.Mod(m+1-v, m+1) }), exact)
	}
	// |z| of a complex tensor is real; its gradient is z/|z|.
	zs := []complex128{3 + 4i, -1 + 0.5i, 0.25 - 2i}
	for _, dt := range []DType{C64, C128} {
		l := hlo.NewLiteral(dt, 3)
		for i, z := range zs {
			l.SetComplex(i, z)
		}
		z := FromLiteral(l)
		a := z.Abs()
		grad := Grad(a.Sum(), z)[0] // before a's cut: Grad walks pending IR
		want := ndOf([]float64{5, cmplx.Abs(zs[1]), cmplx.Abs(zs[2])}, 3)
		expectT(t, "Abs/"+dt.String(), a, dt.ComplexPart(), want, ulpsTol(dt.ComplexPart(), 4, 1))
		g, err := grad.Literal()
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range zs {
			if got := g.Complex(i); cmplx.Abs(got-w/complex(cmplx.Abs(w), 0)) > 1e-6 {
				t.Errorf("Grad |z|/%s at %v = %v, want %v", dt, w, got, w/complex(cmplx.Abs(w), 0))
			}
		}
	}
}

type binaryCase struct {
	name  string
	f     func(a, b *Tensor) *Tensor
	ref   func(a, b float64) float64
	gen   func(r randSrc, dt DType, dims []int64) (nd, nd)
	types []DType
	ulps  float64
}

type randSrc = interface {
	Float64() float64
	IntN(int) int
	Perm(int) []int
}

func genRange(alo, ahi, blo, bhi float64) func(randSrc, DType, []int64) (nd, nd) {
	return func(r randSrc, dt DType, dims []int64) (nd, nd) {
		mkv := func(lo, hi float64) nd {
			a := newND(dims...)
			for i := range a.v {
				a.v[i] = lo + (hi-lo)*r.Float64()
				if dt.IsInt() {
					a.v[i] = math.Round(a.v[i])
				}
			}
			return a
		}
		return mkv(alo, ahi), mkv(blo, bhi)
	}
}

// genNonZeroB draws b with |b| >= 1 (divisors).
func genNonZeroB(lo, hi float64) func(randSrc, DType, []int64) (nd, nd) {
	return func(r randSrc, dt DType, dims []int64) (nd, nd) {
		a, b := genRange(lo, hi, 1, hi)(r, dt, dims)
		for i := range b.v {
			if r.IntN(2) == 0 {
				b.v[i] = -b.v[i]
			}
		}
		return a, b
	}
}

func genBits(r randSrc, dt DType, dims []int64) (nd, nd) {
	hi := 2
	if dt != Bool {
		hi = 256
	}
	a, b := newND(dims...), newND(dims...)
	for i := range a.v {
		a.v[i], b.v[i] = float64(r.IntN(hi)), float64(r.IntN(hi))
	}
	return a, b
}

func goRem(a, b float64) float64 { return math.Mod(a, b) }

var arith = []DType{F32, F64, I32, I64}

var binaryCases = []binaryCase{
	{"Add", (*Tensor).Add, func(a, b float64) float64 { return a + b }, genRange(-10, 10, -10, 10), arith, 1},
	{"Sub", (*Tensor).Sub, func(a, b float64) float64 { return a - b }, genRange(-10, 10, -10, 10), arith, 1},
	{"Mul", (*Tensor).Mul, func(a, b float64) float64 { return a * b }, genRange(-10, 10, -10, 10), arith, 1},
	{"Div", (*Tensor).Div, func(a, b float64) float64 { return a / b }, genNonZeroB(-20, 20), arith, 1},
	{"Pow", (*Tensor).Pow, math.Pow, genRange(0.1, 4, -3, 3), floatTypes, 16},
	{"Max", (*Tensor).Max, math.Max, genRange(-5, 5, -5, 5), arith, 0},
	{"Min", (*Tensor).Min, math.Min, genRange(-5, 5, -5, 5), arith, 0},
	{"Rem", (*Tensor).Rem, goRem, genNonZeroB(-20, 20), arith, 0},
	{"Atan2", (*Tensor).Atan2, math.Atan2, genRange(-3, 3, -3, 3), floatTypes, 8},
}

func intOf(f func(a, b int64) int64) func(a, b float64) float64 {
	return func(a, b float64) float64 { return float64(f(int64(a), int64(b))) }
}

// broadcastPairs are operand dims that broadcast numpy-style.
var broadcastPairs = [][2][]int64{
	{{2, 3}, {2, 3}},
	{{2, 3}, {3}},
	{{2, 1}, {1, 3}},
	{{4, 1, 3}, {2, 1}},
	{{}, {2, 3}},
	{{2, 3}, {}},
}

func TestOpsBinary(t *testing.T) {
	r := newRand(2)
	for _, c := range binaryCases {
		for _, dt := range c.types {
			for _, p := range broadcastPairs {
				t.Run(fmt.Sprintf("%s/%s/%v%v", c.name, dt, p[0], p[1]), func(t *testing.T) {
					av, _ := c.gen(r, dt, p[0])
					_, bv := c.gen(r, dt, p[1])
					a, ar := mk(av, dt)
					b, br := mk(bv, dt)
					ref := c.ref
					rt := dt // result type
					if dt.IsInt() {
						switch c.name {
						case "Div": // true division, in f32
							rt = F32
						case "Rem":
							ref = intOf(func(x, y int64) int64 { return x % y })
						}
					}
					want := zipND(ar, br, ref)
					tl := exact
					if rt.IsFloat() {
						tl = ulpsTol(rt, max(c.ulps, 1), 1)
					}
					expectT(t, c.name, c.f(a, b), rt, want, tl)
				})
			}
		}
	}
}

func TestOpsBitwise(t *testing.T) {
	r := newRand(3)
	cases := []struct {
		name string
		f    func(a, b *Tensor) *Tensor
		ref  func(a, b int64) int64
	}{
		{"And", (*Tensor).And, func(a, b int64) int64 { return a & b }},
		{"Or", (*Tensor).Or, func(a, b int64) int64 { return a | b }},
		{"Xor", (*Tensor).Xor, func(a, b int64) int64 { return a ^ b }},
	}
	for _, c := range cases {
		for _, dt := range []DType{Bool, I32, U8} {
			for _, p := range broadcastPairs[:3] {
				av, _ := genBits(r, dt, p[0])
				_, bv := genBits(r, dt, p[1])
				want := zipND(av, bv, intOf(c.ref))
				expectT(t, fmt.Sprintf("%s/%s/%v%v", c.name, dt, p[0], p[1]), c.f(mkT(av, dt), mkT(bv, dt)), dt, want, exact)
			}
		}
	}
}

func TestOpsScalarForms(t *testing.T) {
	r := newRand(4)
	cases := []struct {
		name string
		f    func(x *Tensor, v float64) *Tensor
		ref  func(a, b float64) float64
		v    float64
	}{
		{"AddScalar", (*Tensor).AddScalar, func(a, b float64) float64 { return a + b }, 2.5},
		{"SubScalar", (*Tensor).SubScalar, func(a, b float64) float64 { return a - b }, -1.25},
		{"MulScalar", (*Tensor).MulScalar, func(a, b float64) float64 { return a * b }, 3},
		{"DivScalar", (*Tensor).DivScalar, func(a, b float64) float64 { return a / b }, 4},
		{"PowScalar", (*Tensor).PowScalar, math.Pow, 2},
		{"MaxScalar", (*Tensor).MaxScalar, math.Max, 0.5},
		{"MinScalar", (*Tensor).MinScalar, math.Min, 0.5},
	}
	for _, c := range cases {
		for _, dt := range floatTypes {
			x, xv := mk(randND(r, 0.1, 3, 2, 3), dt)
			want := mapND(xv, func(a float64) float64 { return c.ref(a, c.v) })
			expectT(t, c.name+"/"+dt.String(), c.f(x, c.v), dt, want, ulpsTol(dt, 8, 1))
		}
	}
	// Integer tensors keep their dtype with integral scalars; division is
	// true division (f32).
	xi := ndOf([]float64{-7, -1, 0, 3, 9}, 5)
	expectT(t, "AddScalar/i32", mkT(xi, I32).AddScalar(3), I32, mapND(xi, func(a float64) float64 { return a + 3 }), exact)
	expectT(t, "DivScalar/i32", mkT(xi, I32).DivScalar(2), F32, mapND(xi, func(a float64) float64 { return a / 2 }), exact)
}

func TestOpsCompare(t *testing.T) {
	r := newRand(5)
	cases := []struct {
		name string
		f    func(a, b *Tensor) *Tensor
		fs   func(a *Tensor, v float64) *Tensor
		ref  func(a, b float64) bool
	}{
		{"Eq", (*Tensor).Eq, (*Tensor).EqScalar, func(a, b float64) bool { return a == b }},
		{"Ne", (*Tensor).Ne, (*Tensor).NeScalar, func(a, b float64) bool { return a != b }},
		{"Lt", (*Tensor).Lt, (*Tensor).LtScalar, func(a, b float64) bool { return a < b }},
		{"Le", (*Tensor).Le, (*Tensor).LeScalar, func(a, b float64) bool { return a <= b }},
		{"Gt", (*Tensor).Gt, (*Tensor).GtScalar, func(a, b float64) bool { return a > b }},
		{"Ge", (*Tensor).Ge, (*Tensor).GeScalar, func(a, b float64) bool { return a >= b }},
	}
	for _, c := range cases {
		for _, dt := range []DType{F32, F64, I32, I64, U8} {
			for _, p := range broadcastPairs {
				// Small integers so that ties are frequent.
				av, bv := randInts(r, 0, 4, p[0]...), randInts(r, 0, 4, p[1]...)
				if dt.IsFloat() && len(av.v) > 1 {
					av.v[0] = math.NaN()
				}
				want := zipND(av, bv, func(a, b float64) float64 { return boolF(c.ref(a, b)) })
				expectT(t, fmt.Sprintf("%s/%s/%v%v", c.name, dt, p[0], p[1]), c.f(mkT(av, dt), mkT(bv, dt)), Bool, want, exact)
			}
			av := randInts(r, 0, 4, 2, 3)
			want := mapND(av, func(a float64) float64 { return boolF(c.ref(a, 2)) })
			expectT(t, c.name+"Scalar/"+dt.String(), c.fs(mkT(av, dt), 2), Bool, want, exact)
		}
	}
}

func TestOpsWhere(t *testing.T) {
	r := newRand(6)
	shapes := [][3][]int64{
		{{2, 3}, {2, 3}, {2, 3}},
		{{2, 1}, {2, 3}, {3}},
		{{3}, {2, 1}, {}},
		{{4, 2, 3}, {2, 3}, {1, 3}},
	}
	for _, dt := range []DType{F32, F64, I32} {
		for _, s := range shapes {
			c := randInts(r, 0, 2, s[0]...)
			a, ar := mk(randND(r, -5, 5, s[1]...), dt)
			b, br := mk(randND(r, -5, 5, s[2]...), dt)
			dims := bdims(bdims(s[0], s[1]), s[2])
			want := gen(dims, func(idx []int64) float64 {
				if bget(c, idx) != 0 {
					return bget(ar, idx)
				}
				return bget(br, idx)
			})
			expectT(t, fmt.Sprintf("Where/%s/%v", dt, s), Where(mkT(c, Bool), a, b), dt, want, exact)
		}
	}
}

func TestOpsCast(t *testing.T) {
	in := ndOf([]float64{-2.75, -1.5, -0.25, 0, 0.5, 1.75, 3, 100.6}, 8)
	trunc := mapND(in, math.Trunc)
	cases := []struct {
		from, to DType
		want     nd
	}{
		{F32, I32, trunc},
		{F64, I64, trunc},
		{F32, F64, in},
		{F64, F32, in},
		{F32, Bool, mapND(in, func(x float64) float64 { return boolF(x != 0) })},
		{I32, F32, trunc},
		{I64, F64, trunc},
		{Bool, F32, mapND(trunc, func(x float64) float64 { return boolF(x != 0) })},
		{I32, I64, trunc},
	}
	for _, c := range cases {
		x, xv := mk(in, c.from)
		want := c.want
		if c.from.IsFloat() && c.to.IsFloat() {
			want = mapND(xv, func(v float64) float64 { return literalOf(ndOf([]float64{v}, 1), c.to).Float(0) })
		}
		if c.from == Bool {
			want = xv
		}
		got := x.Cast(c.to)
		expectT(t, fmt.Sprintf("Cast/%s->%s", c.from, c.to), got, c.to, want, exact)
	}
	// f64 -> f32 rounds to nearest.
	v := ndOf([]float64{1 + 0x1p-30, 1.0 / 3}, 2)
	expectT(t, "Cast/round", mkT(v, F64).Cast(F32), F32, ndOf([]float64{1, float64(float32(1.0 / 3))}, 2), exact)
	// Casting to the same dtype is the identity.
	x := mkT(in, F32)
	if x.Cast(F32) != x {
		t.Errorf("Cast to the same dtype made a new tensor")
	}
}

func TestOpsClamp(t *testing.T) {
	r := newRand(7)
	for _, dt := range []DType{F32, F64, I32} {
		a := randND(r, -6, 6, 3, 4)
		if dt.IsInt() {
			a = randInts(r, -6, 7, 3, 4)
		}
		x, xv := mk(a, dt)
		want := mapND(xv, func(v float64) float64 { return math.Min(math.Max(v, -2), 3) })
		expectT(t, "Clamp/"+dt.String(), x.Clamp(-2, 3), dt, want, exact)
	}
}
