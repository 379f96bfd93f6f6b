package elementwise

import (
	"math/big"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// Integer ops against references written with math/big and the spec's
// definitions; every integer type including the sub-byte ones.

// ival is element i as a mathematical integer (sign-extended or not).
func ival(l *hlo.Literal, i int) *big.Int {
	if l.DType.IsSigned() {
		return big.NewInt(l.Int(i))
	}
	return new(big.Int).SetUint64(l.Uint(i))
}

// wrapBig reduces v modulo 2^w into the type's range, as a bit pattern.
func wrapBig(dt hlo.DType, v *big.Int) uint64 {
	m := new(big.Int).Lsh(big.NewInt(1), uint(dt.Bits()))
	r := new(big.Int).Mod(v, m) // non-negative
	return uint64(hlo.WrapInt(dt, int64(r.Uint64())))
}

type intCase struct {
	name string
	ref  func(dt hlo.DType, a, b *big.Int) *big.Int
}

func minOf(dt hlo.DType) *big.Int {
	if dt.IsSigned() {
		return new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(dt.Bits()-1)))
	}
	return big.NewInt(0)
}

// amount reads a shift amount as the unsigned w-bit value of its bits.
func amount(dt hlo.DType, b *big.Int) uint64 { return wrapBig(hlo.U64, b) & mask(uint(dt.Bits())) }

var intCases = []intCase{
	{"add", func(dt hlo.DType, a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }},
	{"subtract", func(dt hlo.DType, a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }},
	{"multiply", func(dt hlo.DType, a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }},
	{"divide", func(dt hlo.DType, a, b *big.Int) *big.Int {
		if b.Sign() == 0 {
			return big.NewInt(-1)
		}
		return new(big.Int).Quo(a, b) // truncated; MIN/-1 wraps to MIN
	}},
	{"remainder", func(dt hlo.DType, a, b *big.Int) *big.Int {
		if b.Sign() == 0 {
			return a
		}
		return new(big.Int).Rem(a, b)
	}},
	{"maximum", func(dt hlo.DType, a, b *big.Int) *big.Int {
		if a.Cmp(b) > 0 {
			return a
		}
		return b
	}},
	{"minimum", func(dt hlo.DType, a, b *big.Int) *big.Int {
		if a.Cmp(b) < 0 {
			return a
		}
		return b
	}},
	{"and", func(dt hlo.DType, a, b *big.Int) *big.Int { return new(big.Int).And(a, b) }},
	{"or", func(dt hlo.DType, a, b *big.Int) *big.Int { return new(big.Int).Or(a, b) }},
	{"xor", func(dt hlo.DType, a, b *big.Int) *big.Int { return new(big.Int).Xor(a, b) }},
	{"power", func(dt hlo.DType, a, b *big.Int) *big.Int {
		if b.Sign() < 0 {
			switch {
			case a.Cmp(big.NewInt(1)) == 0:
				return a
			case a.Cmp(big.NewInt(-1)) == 0:
				if b.Bit(0) == 1 {
					return a
				}
				return big.NewInt(1)
			}
			return big.NewInt(0)
		}
		m := new(big.Int).Lsh(big.NewInt(1), uint(dt.Bits()))
		return new(big.Int).Exp(new(big.Int).Mod(a, m), b, m)
	}},
	{"shift_left", func(dt hlo.DType, a, b *big.Int) *big.Int {
		n := amount(dt, b)
		if n >= uint64(dt.Bits()) {
			return big.NewInt(0)
		}
		return new(big.Int).Lsh(a, uint(n))
	}},
	{"shift_right_logical", func(dt hlo.DType, a, b *big.Int) *big.Int {
		n := amount(dt, b)
		if n >= uint64(dt.Bits()) {
			return big.NewInt(0)
		}
		u := new(big.Int).SetUint64(wrapBig(hlo.U64, a) & mask(uint(dt.Bits())))
		return u.Rsh(u, uint(n))
	}},
	{"shift_right_arithmetic", func(dt hlo.DType, a, b *big.Int) *big.Int {
		n := amount(dt, b)
		// The value as a signed w-bit integer, shifted with floor division.
		s := big.NewInt(hlo.WrapInt(signedOf(dt), int64(wrapBig(hlo.U64, a))))
		if n >= uint64(dt.Bits()) {
			n = uint64(dt.Bits())
		}
		return s.Rsh(s, uint(n))
	}},
}

// signedOf is the signed integer type of dt's width.
func signedOf(dt hlo.DType) hlo.DType {
	return map[int]hlo.DType{2: hlo.I2, 4: hlo.I4, 8: hlo.I8, 16: hlo.I16, 32: hlo.I32, 64: hlo.I64}[dt.Bits()]
}

func TestIntBinaryOps(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	const n = 400
	for _, ic := range intCases {
		for _, dt := range intTypes {
			a, b := randInts(r, dt, n), randInts(r, dt, n)
			// Every pair of the first 20 values (the edges) up front.
			e := randInts(r, dt, 20)
			for i := 0; i < 20; i++ {
				for j := 0; j < 20; j++ {
					a.SetBits(i*20+j, e.Bits(i))
					b.SetBits(i*20+j, e.Bits(j))
				}
			}
			got := runOp(t, "stablehlo."+ic.name, hlo.NewTensorType(dt, n), nil, a, b)
			for i := 0; i < n; i++ {
				want := wrapBig(dt, ic.ref(dt, ival(a, i), ival(b, i)))
				if got.Bits(i) != want&mask(uint(dt.Size()*8)) {
					t.Errorf("%s %s(%v, %v) = %d, want %d", ic.name, dt, ival(a, i), ival(b, i), ival(got, i), big.NewInt(hlo.WrapInt(dt, int64(want))))
					break
				}
			}
		}
	}
}

func TestIntUnaryOps(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const n = 200
	cases := []struct {
		name string
		ref  func(dt hlo.DType, a *big.Int) *big.Int
	}{
		{"negate", func(dt hlo.DType, a *big.Int) *big.Int { return new(big.Int).Neg(a) }},
		{"abs", func(dt hlo.DType, a *big.Int) *big.Int { return new(big.Int).Abs(a) }},
		{"not", func(dt hlo.DType, a *big.Int) *big.Int { return new(big.Int).Not(a) }},
		{"sign", func(dt hlo.DType, a *big.Int) *big.Int { return big.NewInt(int64(a.Sign())) }},
		{"popcnt", func(dt hlo.DType, a *big.Int) *big.Int {
			return big.NewInt(int64(bits.OnesCount64(wrapBig(hlo.U64, a) & mask(uint(dt.Bits())))))
		}},
		{"count_leading_zeros", func(dt hlo.DType, a *big.Int) *big.Int {
			u := wrapBig(hlo.U64, a) & mask(uint(dt.Bits()))
			n := 0
			for k := dt.Bits() - 1; k >= 0 && u>>uint(k)&1 == 0; k-- {
				n++
			}
			return big.NewInt(int64(n))
		}},
	}
	for _, c := range cases {
		for _, dt := range intTypes {
			a := randInts(r, dt, n)
			got := runOp(t, "stablehlo."+c.name, hlo.NewTensorType(dt, n), nil, a)
			for i := 0; i < n; i++ {
				want := wrapBig(dt, c.ref(dt, ival(a, i)))
				if got.Bits(i) != want&mask(uint(dt.Size()*8)) {
					t.Errorf("%s %s(%v) = %v, want %v", c.name, dt, ival(a, i), ival(got, i), want)
					break
				}
			}
		}
	}
}

func TestBoolOps(t *testing.T) {
	a := hlo.LiteralFromSlice([]bool{false, false, true, true})
	b := hlo.LiteralFromSlice([]bool{false, true, false, true})
	want := map[string][]bool{
		"and": {false, false, false, true}, "or": {false, true, true, true}, "xor": {false, true, true, false},
		"add": {false, true, true, true}, "multiply": {false, false, false, true},
		"maximum": {false, true, true, true}, "minimum": {false, false, false, true},
	}
	for name, w := range want {
		got := runOp(t, "stablehlo."+name, a.Type(), nil, a, b)
		for i := range w {
			if got.Bools()[i] != w[i] {
				t.Errorf("%s(bool) = %v, want %v", name, got.Bools(), w)
				break
			}
		}
	}
	got := runOp(t, "stablehlo.not", a.Type(), nil, a)
	if got.Bools()[0] != true || got.Bools()[2] != false {
		t.Errorf("not(bool) = %v", got.Bools())
	}
}
