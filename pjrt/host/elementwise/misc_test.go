package elementwise

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// compare, select, clamp, convert, bitcast_convert, reduce_precision, iota
// and constant against references written here.

var allTypes = func() []hlo.DType {
	ts := []hlo.DType{hlo.Bool}
	ts = append(ts, intTypes...)
	ts = append(ts, floatTypes...)
	return append(ts, complexTypes...)
}()

func enumAttr(kind, v string) hlo.NamedAttr {
	return hlo.NamedAttr{Name: kind, Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: kind, Value: v}}
}

// totalLess is IEEE totalOrder's strict part: -NaN < -Inf < ... < -0 < +0
// < ... < +Inf < +NaN, NaNs ordered by payload. Formats without a sign bit
// (f8E8M0FNU) order by their bits; formats whose NaN is the negative-zero
// pattern (FNUZ) order it as -0 sits in IEEE formats, just below +0 (the
// sign-magnitude order XLA uses).
func totalLess(dt hlo.DType, a, b float64, abits, bbits uint64, w int) bool {
	switch dt {
	case hlo.F8E8M0FNU:
		return abits < bbits
	case hlo.F8E4M3FNUZ, hlo.F8E4M3B11FNUZ, hlo.F8E5M2FNUZ:
		key := func(bits uint64) int64 {
			m := int64(bits & (1<<(w-1) - 1))
			if bits>>(w-1) != 0 {
				return -m - 1
			}
			return m
		}
		return key(abits) < key(bbits)
	}
	class := func(x float64, bits uint64) int {
		neg := bits>>(w-1)&1 == 1
		switch {
		case x != x && neg:
			return -2
		case x != x:
			return 2
		}
		return 0
	}
	ca, cb := class(a, abits), class(b, bbits)
	if ca != cb {
		return ca < cb
	}
	mag := func(bits uint64) uint64 { return bits & (1<<(w-1) - 1) }
	switch ca {
	case -2:
		return mag(abits) > mag(bbits)
	case 2:
		return mag(abits) < mag(bbits)
	}
	if a == b {
		return math.Signbit(a) && !math.Signbit(b)
	}
	return a < b
}

func TestCompare(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	const n = 200
	dirs := []string{"EQ", "NE", "GE", "GT", "LE", "LT"}
	for _, dt := range allTypes {
		for _, ct := range []string{"", "TOTALORDER"} {
			if ct != "" && !dt.IsFloat() {
				continue
			}
			a, b := randOf(r, dt, n), randOf(r, dt, n)
			for i := 0; i < n; i += 3 { // equal pairs
				copy(b.Data[i*dt.Size():(i+1)*dt.Size()], a.Data[i*dt.Size():(i+1)*dt.Size()])
			}
			for _, dir := range dirs {
				attrs := []hlo.NamedAttr{enumAttr("comparison_direction", dir)}
				if ct != "" {
					attrs = append(attrs, enumAttr("compare_type", ct))
				}
				got := runOp(t, "stablehlo.compare", hlo.NewTensorType(hlo.Bool, n), attrs, a, b)
				for i := 0; i < n; i++ {
					var lt, eq bool
					switch {
					case ct == "TOTALORDER":
						w := dt.Bits()
						ab, bb := a.Bits(i)&mask(uint(w)), b.Bits(i)&mask(uint(w))
						lt = totalLess(dt, a.Float(i), b.Float(i), ab, bb, w)
						eq = ab == bb
					case dt.IsBool() || dt.IsInt():
						c := ival(a, i).Cmp(ival(b, i))
						lt, eq = c < 0, c == 0
					case dt.IsFloat():
						x, y := a.Float(i), b.Float(i)
						lt, eq = x < y, x == y
					default:
						x, y := a.Complex(i), b.Complex(i)
						eq = x == y
						lt = real(x) < real(y) || real(x) == real(y) && imag(x) < imag(y)
					}
					gt := !lt && !eq
					if dt.IsFloat() && ct == "" || dt.IsComplex() {
						x, y := a.Complex(i), b.Complex(i)
						unordered := real(x) != real(x) || real(y) != real(y) || imag(x) != imag(x) || imag(y) != imag(y)
						if dt.IsFloat() {
							unordered = a.Float(i) != a.Float(i) || b.Float(i) != b.Float(i)
						}
						if unordered && dt.IsFloat() {
							gt = false
						}
						if dt.IsComplex() {
							gt = real(x) > real(y) || real(x) == real(y) && imag(x) > imag(y)
						}
					}
					want := map[string]bool{"EQ": eq, "NE": !eq, "LT": lt, "LE": lt || eq, "GT": gt, "GE": gt || eq}[dir]
					if (got.Data[i] != 0) != want {
						t.Errorf("compare %s %s %s(%s, %s) = %v", dir, ct, dt, a.ElemString(i), b.ElemString(i), got.Data[i] != 0)
						break
					}
				}
			}
		}
	}
}

func TestSelect(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	const n = 50
	for _, dt := range allTypes {
		a, b := randOf(r, dt, n), randOf(r, dt, n)
		p := randOf(r, hlo.Bool, n)
		got := runOp(t, "stablehlo.select", hlo.NewTensorType(dt, n), nil, p, a, b)
		s := dt.Size()
		for i := 0; i < n; i++ {
			src := b
			if p.Data[i] != 0 {
				src = a
			}
			if string(got.Data[i*s:(i+1)*s]) != string(src.Data[i*s:(i+1)*s]) {
				t.Fatalf("select %s element %d: wrong side", dt, i)
			}
		}
		for _, pv := range []bool{false, true} {
			ps := hlo.LiteralFromSlice([]bool{pv}, []int64{}...)
			got := runOp(t, "stablehlo.select", hlo.NewTensorType(dt, n), nil, ps, a, b)
			want := b
			if pv {
				want = a
			}
			if string(got.Data) != string(want.Data) {
				t.Errorf("select %s with scalar predicate %v: wrong side", dt, pv)
			}
		}
	}
}

func TestClamp(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	const n = 100
	for _, dt := range allTypes {
		x := randOf(r, dt, n)
		lo, hi := randOf(r, dt, n), randOf(r, dt, n)
		for _, scalar := range []bool{false, true} {
			l, h := lo, hi
			if scalar {
				l, h = hlo.NewLiteral(dt), hlo.NewLiteral(dt)
				copy(l.Data, lo.Data[:dt.Size()])
				copy(h.Data, hi.Data[:dt.Size()])
			}
			got := runOp(t, "stablehlo.clamp", hlo.NewTensorType(dt, n), nil, l, x, h)
			for i := 0; i < n; i++ {
				j := i
				if scalar {
					j = 0
				}
				ok := true
				switch {
				case dt.IsBool() || dt.IsInt():
					v := ival(x, i)
					if v.Cmp(ival(l, j)) < 0 {
						v = ival(l, j)
					}
					if v.Cmp(ival(h, j)) > 0 {
						v = ival(h, j)
					}
					ok = ival(got, i).Cmp(v) == 0
				case dt.IsFloat():
					want := -ieeeMax(-ieeeMax(x.Float(i), l.Float(j)), -h.Float(j))
					ok = sameFloat(got.Float(i), want) || want == 0 && got.Float(i) == 0
				default:
					want := cmin(cmax(x.Complex(i), l.Complex(j)), h.Complex(j))
					g := got.Complex(i)
					ok = g == want || g != g && want != want
				}
				if !ok {
					t.Errorf("clamp %s(%s, %s, %s) = %s", dt, l.ElemString(j), x.ElemString(i), h.ElemString(j), got.ElemString(i))
					break
				}
			}
		}
	}
}

// mantissa is the number of explicit mantissa bits of a float type.
func mantissa(dt hlo.DType) uint {
	return uint(mantissaBits[dt])
}

// convertRef converts element i of src to dt as the spec and the reference
// interpreter define it, writing into dst element i.
func convertRef(dst, src *hlo.Literal, i int) {
	dt := dst.DType
	var re float64
	var im float64
	var iv *big.Int // set for integer and bool sources
	switch {
	case src.DType.IsBool() || src.DType.IsInt():
		iv = ival(src, i)
	case src.DType.IsFloat():
		re = src.Float(i)
	default:
		c := src.Complex(i)
		re, im = real(c), imag(c)
	}
	switch {
	case dt.IsBool():
		nz := re != 0
		if iv != nil {
			nz = iv.Sign() != 0
		}
		dst.Data[i] = byte(boolU(nz))
	case dt.IsInt():
		v := iv
		if v == nil {
			switch {
			case re != re:
				v = big.NewInt(0)
			default:
				f, _ := new(big.Float).SetFloat64(math.Trunc(math.Max(math.Min(re, 1e30), -1e30))).Int(nil)
				lo := minOf(dt)
				hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(dt.Bits()-boolToInt(dt.IsSigned()))), big.NewInt(1))
				if f.Cmp(lo) < 0 {
					f = lo
				}
				if f.Cmp(hi) > 0 {
					f = hi
				}
				v = f
			}
		}
		dst.SetBits(i, wrapBig(dt, v))
	case dt.IsFloat():
		if iv != nil && dt == hlo.F8E8M0FNU {
			// No mantissa bits: rounding is the encoder's rule between
			// powers of two (see hlo.Float64ToFloatBits).
			re, _ = new(big.Float).SetInt(iv).Float64()
		} else if iv != nil {
			bf := new(big.Float).SetPrec(mantissa(dt) + 1).SetMode(big.ToNearestEven).SetInt(iv)
			re, _ = bf.Float64()
		}
		dst.SetFloat(i, roundTo(dt, re))
	default:
		part := dt.ComplexPart()
		if iv != nil {
			bf := new(big.Float).SetPrec(mantissa(part) + 1).SetMode(big.ToNearestEven).SetInt(iv)
			re, _ = bf.Float64()
		}
		dst.SetComplex(i, complex(roundTo(part, re), roundTo(part, im)))
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestConvert(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	const n = 120
	types := append([]hlo.DType{}, allTypes...)
	for _, from := range types {
		src := randOf(r, from, n)
		if from.IsFloat() {
			// Values around the integer types' bounds and halfway cases.
			extra := []float64{127.9, 128, -128.5, -129, 255.5, 256, 32767.5, -32769, 2147483647.5, 2147483648, -2147483649,
				9.3e18, 9.2233720368547758e18, -9.3e18, 1.8446744073709552e19, 2e19, -0.99, -1, 0.99, 7.5, -7.5, 15.5, 3.5, -1.5}
			for k, v := range extra {
				src.SetFloat(len(floatEdges)+k, v)
			}
		}
		for _, to := range types {
			got := runOp(t, "stablehlo.convert", hlo.NewTensorType(to, n), nil, src)
			want := hlo.NewLiteral(to, n)
			for i := 0; i < n; i++ {
				convertRef(want, src, i)
			}
			for i := 0; i < n; i++ {
				var ok bool
				switch {
				case to.IsFloat():
					ok = sameFloat(got.Float(i), want.Float(i))
				case to.IsComplex():
					g, w := got.Complex(i), want.Complex(i)
					ok = sameFloat(real(g), real(w)) && sameFloat(imag(g), imag(w))
				default:
					ok = got.Bits(i) == want.Bits(i)
				}
				if !ok {
					t.Errorf("convert %s -> %s of %s = %s, want %s", from, to, src.ElemString(i), got.ElemString(i), want.ElemString(i))
					break
				}
			}
		}
	}
}

func TestBitcastConvert(t *testing.T) {
	// The spec's example: little-endian split of an f64 into four f16.
	x := hlo.NewLiteral(hlo.F64)
	x.SetBits(0, 0x0123456789ABCDEF)
	got := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.F16, 4), nil, x)
	for i, w := range []uint64{0xCDEF, 0x89AB, 0x4567, 0x0123} {
		if got.Bits(i) != w {
			t.Errorf("bitcast f64 -> 4xf16: element %d = %#x, want %#x", i, got.Bits(i), w)
		}
	}
	back := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.F64), nil, got)
	if !back.Equal(x) {
		t.Errorf("bitcast 4xf16 -> f64 = %#x", back.Bits(0))
	}
	// f32 <-> i32 is the IEEE bit pattern.
	f := hlo.LiteralFromSlice([]float32{1, -2.5, float32(math.Inf(1))})
	bits := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.I32, 3), nil, f)
	for i, v := range f.F32() {
		if uint32(bits.I32()[i]) != math.Float32bits(v) {
			t.Errorf("bitcast f32 %v -> i32 = %#x", v, bits.I32()[i])
		}
	}
	// Sub-byte types: i4 pairs pack into i8 low nibble first.
	i4 := hlo.NewLiteral(hlo.I4, 3, 2)
	for i, v := range []int64{1, -1, -8, 7, 0, -3} {
		i4.SetInt(i, v)
	}
	i8 := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.I8, 3), nil, i4)
	for i, w := range []int8{-15, 120, -48} { // 0xF1, 0x78, 0xD0
		if i8.I8()[i] != w {
			t.Errorf("bitcast 2xi4 -> i8 element %d = %d, want %d", i, i8.I8()[i], w)
		}
	}
	i4b := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.I4, 3, 2), nil, i8)
	if !i4b.Equal(i4) {
		t.Errorf("bitcast i8 -> 2xi4 = %v, want %v", i4b, i4)
	}
	// i1: eight booleans make one byte, bit k from element k.
	bs := hlo.LiteralFromSlice([]bool{true, false, true, true, false, false, false, true})
	u8 := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.U8), nil, bs)
	if u8.U8()[0] != 0x8D {
		t.Errorf("bitcast 8xi1 -> ui8 = %#x, want 0x8d", u8.U8()[0])
	}
	// complex128 splits into (real, imag) bits.
	c := hlo.LiteralFromSlice([]complex128{complex(1.5, -2)})
	parts := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(hlo.U64, 1, 2), nil, c)
	if parts.U64()[0] != math.Float64bits(1.5) || parts.U64()[1] != math.Float64bits(-2) {
		t.Errorf("bitcast c128 -> 2xui64 = %#x", parts.U64())
	}
	// Same-width round trips keep every bit pattern.
	r := rand.New(rand.NewSource(14))
	for _, a := range allTypes {
		for _, b := range allTypes {
			if a.Bits() != b.Bits() {
				continue
			}
			src := hlo.NewLiteral(a, 30)
			for i := 0; i < 30; i++ {
				setRawBits(src, i, r.Uint64())
			}
			mid := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(b, 30), nil, src)
			out := runOp(t, "stablehlo.bitcast_convert", hlo.NewTensorType(a, 30), nil, mid)
			if !out.Equal(src) {
				t.Errorf("bitcast %s -> %s -> %s changed bits", a, b, a)
			}
		}
	}
}

// setRawBits stores the low Bits() bits of v canonically.
func setRawBits(l *hlo.Literal, i int, v uint64) {
	dt := l.DType
	if dt.Size() == 16 {
		l.SetComplex(i, complex(math.Float64frombits(v), math.Float64frombits(v*31)))
		return
	}
	v &= mask(uint(dt.Bits()))
	switch {
	case dt.IsBool():
		l.Data[i] = byte(v)
	case dt.IsSigned():
		l.SetBits(i, uint64(hlo.WrapInt(dt, int64(v))))
	default:
		l.SetBits(i, v)
	}
}

func TestReducePrecision(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	const n = 2000
	x := hlo.NewLiteral(hlo.F32, n)
	for i := range x.F32() {
		x.F32()[i] = math.Float32frombits(r.Uint32())
	}
	attrs := func(e, m int64) []hlo.NamedAttr {
		return []hlo.NamedAttr{{Name: "exponent_bits", Value: hlo.IntAttr{Value: e}}, {Name: "mantissa_bits", Value: hlo.IntAttr{Value: m}}}
	}
	// (8, 7) on f32 is rounding to bfloat16.
	got := runOp(t, "stablehlo.reduce_precision", x.Type(), attrs(8, 7), x)
	for i, v := range x.F32() {
		want := hlo.BF16ToF32(hlo.F32ToBF16(v))
		g := got.F32()[i]
		if !(g == want && math.Signbit(float64(g)) == math.Signbit(float64(want)) || g != g && want != want) {
			t.Errorf("reduce_precision(%g, 8, 7) = %g, want %g", v, g, want)
			break
		}
	}
	// (5, 10) is rounding to f16 in f16's normal range, and flushes below.
	got = runOp(t, "stablehlo.reduce_precision", x.Type(), attrs(5, 10), x)
	for i, v := range x.F32() {
		a := math.Abs(float64(v))
		g := got.F32()[i]
		var want float32
		switch {
		case v != v:
			want = v
		case a < math.Ldexp(1, -14)*(1-1.0/4096):
			want = float32(math.Copysign(0, float64(v)))
		default:
			want = hlo.F16ToF32(hlo.F32ToF16(v))
		}
		if a >= math.Ldexp(1, -14)*(1-1.0/4096) && a < math.Ldexp(1, -14) {
			continue // rounds up into the normal range or flushes: either is a valid reading
		}
		if !(g == want && math.Signbit(float64(g)) == math.Signbit(float64(want)) || g != g && want != want) {
			t.Errorf("reduce_precision(%g, 5, 10) = %g, want %g", v, g, want)
			break
		}
	}
	// (11, 52) on f64 changes nothing; (8, 23) is rounding to f32 for normal values.
	y := hlo.NewLiteral(hlo.F64, n)
	for i := range y.F64() {
		y.F64()[i] = r.NormFloat64() * math.Exp2(float64(r.Intn(200)-100))
	}
	if g := runOp(t, "stablehlo.reduce_precision", y.Type(), attrs(11, 52), y); !g.Equal(y) {
		t.Error("reduce_precision(f64, 11, 52) changed values")
	}
	g := runOp(t, "stablehlo.reduce_precision", y.Type(), attrs(8, 23), y)
	for i, v := range y.F64() {
		if g.F64()[i] != float64(float32(v)) {
			t.Errorf("reduce_precision(%g, 8, 23) = %g, want %g", v, g.F64()[i], float64(float32(v)))
			break
		}
	}
}

func TestIota(t *testing.T) {
	for _, dt := range []hlo.DType{hlo.I32, hlo.I64, hlo.U8, hlo.I4, hlo.F32, hlo.F16, hlo.BF16, hlo.F8E4M3FN, hlo.Bool, hlo.C64, hlo.C128} {
		dims := []int64{3, 20, 2}
		for dim := 0; dim < 3; dim++ {
			out := hlo.NewTensorType(dt, dims...)
			got := runOp(t, "stablehlo.iota", out, []hlo.NamedAttr{{Name: "iota_dimension", Value: hlo.IntAttr{Value: int64(dim)}}})
			idx := hlo.NewLiteral(hlo.I64, 1)
			want := hlo.NewLiteral(dt, 1)
			for i := 0; i < got.NumElements(); i++ {
				k := []int{i / 40, i / 2 % 20, i % 2}[dim]
				idx.I64()[0] = int64(k)
				convertRef(want, idx, 0)
				if string(got.Data[i*dt.Size():(i+1)*dt.Size()]) != string(want.Data) {
					t.Errorf("iota %s dim %d element %d = %s, want %s", dt, dim, i, got.ElemString(i), want.ElemString(0))
					break
				}
			}
		}
	}
}

func TestConstant(t *testing.T) {
	lit := hlo.LiteralFromSlice([]float32{1, 2, 3, 4}, 2, 2)
	attr := []hlo.NamedAttr{{Name: "value", Value: &hlo.DenseElementsAttr{Type: lit.Type(), Value: lit}}}
	got := runOp(t, "stablehlo.constant", lit.Type(), attr)
	if got != lit {
		t.Error("constant does not return its attribute's literal")
	}
	splat := hlo.ScalarLiteral(hlo.I8, -3)
	attr = []hlo.NamedAttr{{Name: "value", Value: &hlo.DenseElementsAttr{Type: hlo.NewTensorType(hlo.I8, 3), Value: splat}}}
	got = runOp(t, "stablehlo.constant", hlo.NewTensorType(hlo.I8, 3), attr)
	if len(got.Dims) != 1 || got.Dims[0] != 3 || got.I8()[0] != -3 || got.I8()[2] != -3 {
		t.Errorf("splat constant = %v", got)
	}
}
