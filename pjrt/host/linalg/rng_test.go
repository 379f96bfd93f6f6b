package linalg_test

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/internal/corpusdir"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/linalg"
)

func rngAttr(algo string) hlo.NamedAttr {
	return hlo.NamedAttr{Name: "rng_algorithm", Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: "rng_algorithm", Value: algo}}
}

func runRng(t *testing.T, algo string, state []uint64, out *hlo.TensorType) (*hlo.Literal, *hlo.Literal) {
	t.Helper()
	s := hlo.LiteralFromSlice(state)
	res := mustRun(t, "stablehlo.rng_bit_generator", []*hlo.Literal{s}, []hlo.Type{s.Type(), out}, rngAttr(algo))
	return res[0], res[1]
}

func TestThreeFrySpecExample(t *testing.T) {
	st, out := runRng(t, "THREE_FRY", []uint64{1, 2}, tt(hlo.U64, 2, 2))
	if got := st.U64(); got[0] != 1 || got[1] != 6 {
		t.Fatalf("state %v, want [1 6]", got)
	}
	want := []uint64{9236835810183407956, 16087790271692313299, 18212823393184779219, 2658481902456610144}
	for i, w := range want {
		if out.U64()[i] != w {
			t.Fatalf("output %v, want %v", out.U64(), want)
		}
	}
	st, out = runRng(t, "THREE_FRY", []uint64{3, 3}, tt(hlo.U64))
	if st.U64()[1] != 4 || out.U64()[0] != 3349939604322698703 {
		t.Fatalf("state %v output %v, want [3 4] 3349939604322698703", st.U64(), out.U64())
	}
}

// Known-answer vectors of the Random123 reference implementation.
func TestKnownAnswers(t *testing.T) {
	for _, c := range []struct{ k, x, want [2]uint32 }{
		{[2]uint32{0, 0}, [2]uint32{0, 0}, [2]uint32{0x6b200159, 0x99ba4efe}},
		{[2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0x1cb996fc, 0xbb002be7}},
		{[2]uint32{0x13198a2e, 0x03707344}, [2]uint32{0x243f6a88, 0x85a308d3}, [2]uint32{0xc4923a9c, 0x483df7a0}},
	} {
		a, b := linalg.ThreeFry2x32(c.k[0], c.k[1], c.x[0], c.x[1])
		if a != c.want[0] || b != c.want[1] {
			t.Errorf("threefry2x32_20(key %x, ctr %x) = %x %x, want %x", c.k, c.x, a, b, c.want)
		}
	}
	for _, c := range []struct {
		k       [2]uint32
		x, want [4]uint32
	}{
		{[2]uint32{0, 0}, [4]uint32{0, 0, 0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		if got := linalg.Philox4x32(c.x, c.k[0], c.k[1]); got != c.want {
			t.Errorf("philox4x32_10(key %x, ctr %x) = %x, want %x", c.k, c.x, got, c.want)
		}
	}
}

// TestThreeFryCorpus checks a 100x100 ui64 draw against the value JAX
// recorded from XLA (a corpus file whose expected constant we decode here).
func TestThreeFryCorpus(t *testing.T) {
	path := corpusFile(t, "testdata/rng_bit_generator_uint32_4.mlir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`dense<"0x([0-9A-F]+)"> : tensor<100x100xui64>`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s: expected constant not found", path)
	}
	raw, err := hex.DecodeString(string(m[1]))
	if err != nil || len(raw) != 8*10000 {
		t.Fatalf("%s: bad constant (%v, %d bytes)", path, err, len(raw))
	}
	// The program bitcasts ui32 [1, 4, 0, 1] to two ui64 words.
	state := []uint64{1 | 4<<32, 0 | 1<<32}
	st, out := runRng(t, "THREE_FRY", state, tt(hlo.U64, 100, 100))
	if st.U64()[0] != state[0] || st.U64()[1] != 10000|1<<32 {
		t.Fatalf("state %x", st.U64())
	}
	for i := 0; i < 10000; i++ {
		if w := binary.LittleEndian.Uint64(raw[8*i:]); out.U64()[i] != w {
			t.Fatalf("element %d = %d, want %d", i, out.U64()[i], w)
		}
	}
}

// TestNarrowLayouts checks the split-in-halves layout of 32-bit and
// narrower THREE_FRY outputs and the sequential layout of PHILOX against the
// 64-bit generators: a 32-bit draw of a shape whose split dimension is d
// holds, at 2h and 2h+1, the low and high words of the u64 draw at h.
func TestNarrowLayouts(t *testing.T) {
	for _, c := range []struct {
		dims  []int64
		split int
	}{{[]int64{4, 3}, 0}, {[]int64{3, 6}, 1}, {[]int64{3, 5}, 1}, {[]int64{7}, 0}, {[]int64{2, 0}, 0}} {
		st32, o32 := runRng(t, "THREE_FRY", []uint64{42, 7}, tt(hlo.U32, c.dims...))
		half := append([]int64(nil), c.dims...)
		half[c.split] = (half[c.split] + 1) / 2
		st64, o64 := runRng(t, "THREE_FRY", []uint64{42, 7}, tt(hlo.U64, half...))
		if st32.U64()[1] != st64.U64()[1] {
			t.Fatalf("%v: state %v vs %v", c.dims, st32.U64(), st64.U64())
		}
		for i := 0; i < o32.NumElements(); i++ {
			idx := unravel(i, c.dims)
			s := idx[c.split]
			idx[c.split] = s / 2
			w := o64.U64()[ravel(idx, half)]
			want := uint32(w)
			if s%2 == 1 {
				want = uint32(w >> 32)
			}
			if o32.U32()[i] != want {
				t.Fatalf("%v: element %v = %x, want %x", c.dims, unravel(i, c.dims), o32.U32()[i], want)
			}
		}
		// 8- and 16-bit outputs keep the low bits of the 32-bit ones.
		_, o8 := runRng(t, "THREE_FRY", []uint64{42, 7}, tt(hlo.I8, c.dims...))
		_, o16 := runRng(t, "THREE_FRY", []uint64{42, 7}, tt(hlo.F16, c.dims...))
		for i := 0; i < o32.NumElements(); i++ {
			if uint8(o8.I8()[i]) != uint8(o32.U32()[i]) || o16.U16()[i] != uint16(o32.U32()[i]) {
				t.Fatalf("%v: narrow outputs do not keep the low bits", c.dims)
			}
		}
	}
	// PHILOX: four 32-bit words (or two 64-bit words) per counter, in order.
	_, p32 := runRng(t, "PHILOX", []uint64{5, 9, 11}, tt(hlo.U32, 3, 3))
	st, p64 := runRng(t, "PHILOX", []uint64{5, 9, 11}, tt(hlo.U64, 5))
	if got := st.U64(); got[0] != 5 || got[1] != 9+3 || got[2] != 11 {
		t.Fatalf("philox state %v, want [5 12 11]", got)
	}
	for i := 0; i < 9; i++ {
		w := p64.U64()[i/2]
		want := uint32(w)
		if i%2 == 1 {
			want = uint32(w >> 32)
		}
		if p32.U32()[i] != want {
			t.Fatalf("philox element %d = %x, want %x", i, p32.U32()[i], want)
		}
	}
	// Counter (state[1], state[2]) of a 3-word state equals (state[1],
	// state[0]) of a 2-word state whose key is the same word.
	_, a := runRng(t, "PHILOX", []uint64{5, 9, 5}, tt(hlo.U64, 4))
	st2, b := runRng(t, "DEFAULT", []uint64{5, 9}, tt(hlo.U64, 4))
	if !a.Equal(b) || len(st2.U64()) != 2 || st2.U64()[1] != 11 {
		t.Fatalf("2-word philox state differs: %v vs %v, state %v", a.U64(), b.U64(), st2.U64())
	}
	// The 128-bit counter carries into the high word.
	st, _ = runRng(t, "PHILOX", []uint64{1, ^uint64(0), 7}, tt(hlo.U32, 8))
	if got := st.U64(); got[1] != 1 || got[2] != 8 {
		t.Fatalf("carry: state %v, want [1 1 8]", got)
	}
}

// corpusFile finds rel under shared/conformance/stablehlo above the
// package directory, skipping the test when the corpus is absent.
func corpusFile(t *testing.T, rel string) string {
	return filepath.Join(corpusdir.Require(t, corpusdir.StableHLO), rel)
}

// A state of four 32-bit elements is read as IREE reads it: key s[0] |
// s[1]<<32 and counter s[2]<<32 | s[3]; the outputs are those of the ui64
// state holding those words, for both algorithms and random states and
// shapes, and the new counter is written back low half first.
func TestRng32BitState(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, algo := range []string{"THREE_FRY", "PHILOX", "DEFAULT"} {
		for _, sdt := range []hlo.DType{hlo.I32, hlo.U32} {
			for _, out := range []*hlo.TensorType{tt(hlo.I32, 8), tt(hlo.U32, 3, 5), tt(hlo.F32, 2, 2, 3), tt(hlo.U64, 7), tt(hlo.I16, 9)} {
				s := hlo.NewLiteral(sdt, 4)
				for i := 0; i < 4; i++ {
					s.SetBits(i, uint64(r.Uint32()))
				}
				if algo == "PHILOX" {
					s.SetBits(3, 0xFFFFFFF0) // the low counter half carries
				}
				res := mustRun(t, "stablehlo.rng_bit_generator", []*hlo.Literal{s}, []hlo.Type{s.Type(), out}, rngAttr(algo))
				key := s.Bits(0) | s.Bits(1)<<32
				ctr := s.Bits(2)<<32 | s.Bits(3)
				wst, want := runRng(t, algo, []uint64{key, ctr}, out)
				if !res[1].Equal(want) {
					t.Fatalf("%s %s state %s -> %s: outputs differ from the ui64 state [%#x %#x]", algo, sdt, hlo.ShapeString(sdt, []int64{4}), out.ShapeString(), key, ctr)
				}
				nc := wst.U64()[1]
				st := res[0]
				if st.DType != sdt || st.Bits(0) != s.Bits(0) || st.Bits(1) != s.Bits(1) || st.Bits(2) != nc&0xFFFFFFFF || st.Bits(3) != nc>>32 {
					t.Fatalf("%s: new state %s, want key unchanged and counter %#x low half first", algo, st, nc)
				}
			}
		}
	}
}

func TestRngStateErrors(t *testing.T) {
	for _, c := range []struct {
		algo  string
		state *hlo.TensorType
		want  string
	}{
		// The verifier rejects these before the kernel sees them.
		{"THREE_FRY", tt(hlo.I32, 2), "an initial_state of 32-bit elements needs 4 of them"},
		{"PHILOX", tt(hlo.U32, 6), "an initial_state of 32-bit elements needs 4 of them"},
		{"THREE_FRY", tt(hlo.U64, 4), "THREE_FRY needs an initial_state of 2 elements"},
		{"PHILOX", tt(hlo.I16, 8), "PHILOX needs an initial_state of 2 or 3 elements"},
		{"PHILOX", tt(hlo.U64, 2, 2), "want a 1-d tensor"},
	} {
		_, err := runOp("stablehlo.rng_bit_generator", []*hlo.Literal{hlo.NewLiteral(c.state.DType, c.state.Dims...)}, []hlo.Type{c.state, tt(hlo.U32, 4)}, rngAttr(c.algo))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want an error containing %q", c.algo, c.state.ShapeString(), err, c.want)
		}
	}
}

// stablehlo.rng (rng_dist.go).

func distAttr(d string) hlo.NamedAttr {
	return hlo.NamedAttr{Name: "rng_distribution", Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: "rng_distribution", Value: d}}
}

// scalar returns a 0-d literal of dt holding v (bits for 64-bit integers).
func scalar(dt hlo.DType, v float64) *hlo.Literal {
	l := hlo.NewLiteral(dt)
	if dt.IsFloat() {
		l.SetFloat(0, v)
	} else {
		l.SetInt(0, int64(v))
	}
	return l
}

func shapeOf(dims ...int64) *hlo.Literal { return hlo.LiteralFromSlice(append([]int64{}, dims...)) }

func runDist(dist string, a, b *hlo.Literal, out *hlo.TensorType) (*hlo.Literal, error) {
	res, err := runOp("stablehlo.rng", []*hlo.Literal{a, b, shapeOf(out.Dims...)}, []hlo.Type{out}, distAttr(dist))
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

func mustDist(t *testing.T, dist string, a, b *hlo.Literal, out *hlo.TensorType) *hlo.Literal {
	t.Helper()
	l, err := runDist(dist, a, b, out)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRngUniformRange draws from [a, b) in every kind of element type,
// including bounds one ulp apart (where a + (b-a)·u rounds to b unless the
// kernel steps below it) and the whole int64 range.
func TestRngUniformRange(t *testing.T) {
	for _, c := range []struct {
		dt   hlo.DType
		a, b float64
	}{
		{hlo.F32, -10, 10},
		{hlo.F64, 0, 1e-300},
		{hlo.F16, 1, 1.0009765625},           // adjacent f16 values
		{hlo.BF16, -2, -1.9921875},           // adjacent bf16 values, negative
		{hlo.F16, -5.960464477539063e-08, 0}, // smallest subnormal to zero
		{hlo.F8E4M3FN, 0.5, 0.5625},          // adjacent f8 values
		{hlo.I32, -3, 4},
		{hlo.I8, -128, 127},
		{hlo.U8, 250, 255},
		{hlo.I4, -8, 7},
		{hlo.U4, 3, 9},
		{hlo.I2, -2, 1},
		{hlo.Bool, 0, 1},
		{hlo.F64, -math.MaxFloat64, math.MaxFloat64}, // b-a overflows
		{hlo.F32, -math.MaxFloat32, math.MaxFloat32},
	} {
		out := mustDist(t, "UNIFORM", scalar(c.dt, c.a), scalar(c.dt, c.b), tt(c.dt, 64, 33))
		seen := map[float64]bool{}
		neg, pos := 0, 0
		for i := 0; i < out.NumElements(); i++ {
			v := out.Float(i)
			seen[v] = true
			if !(v >= c.a && v < c.b) {
				t.Fatalf("%s [%v, %v): element %d = %v", c.dt, c.a, c.b, i, v)
			}
			if v < 0 {
				neg++
			} else if v > 0 {
				pos++
			}
		}
		if c.a < -1 && c.b > 1 && (neg < out.NumElements()/4 || pos < out.NumElements()/4) {
			t.Errorf("%s [%v, %v): %d negative and %d positive of %d", c.dt, c.a, c.b, neg, pos, out.NumElements())
		}
		if span := c.b - c.a; !c.dt.IsFloat() && span <= 8 && len(seen) != int(span) {
			t.Errorf("%s [%v, %v): %d distinct values, want %v", c.dt, c.a, c.b, len(seen), span)
		}
	}
	lo, hi := hlo.NewLiteral(hlo.I64), hlo.NewLiteral(hlo.I64)
	lo.SetInt(0, math.MinInt64)
	hi.SetInt(0, math.MaxInt64)
	out := mustDist(t, "UNIFORM", lo, hi, tt(hlo.I64, 1000))
	neg := 0
	for _, v := range out.I64() {
		if v == math.MaxInt64 {
			t.Fatalf("drew b")
		}
		if v < 0 {
			neg++
		}
	}
	if neg < 400 || neg > 600 {
		t.Errorf("%d of 1000 draws over the int64 range are negative", neg)
	}
}

// TestRngMoments checks the distributions' shape: UNIFORM fills ten equal
// bins evenly and NORMAL has the requested mean and standard deviation.
func TestRngMoments(t *testing.T) {
	const n = 200000
	u := mustDist(t, "UNIFORM", scalar(hlo.F32, 2), scalar(hlo.F32, 4), tt(hlo.F32, n))
	var bins [10]int
	for _, v := range u.F32() {
		bins[int((v-2)/2*10)]++
	}
	chi := 0.0
	for _, c := range bins {
		d := float64(c) - n/10
		chi += d * d / (n / 10)
	}
	if chi > 30 { // 9 degrees of freedom: p < 0.001
		t.Errorf("uniform bins %v: chi-square %.1f", bins, chi)
	}
	for _, dt := range []hlo.DType{hlo.F32, hlo.F64} {
		z := mustDist(t, "NORMAL", scalar(dt, -1), scalar(dt, 3), tt(dt, n/4, 4))
		var s, s2 float64
		for i := 0; i < n; i++ {
			v := z.Float(i)
			s += v
			s2 += v * v
		}
		mean := s / n
		std := math.Sqrt(s2/n - mean*mean)
		if math.Abs(mean+1) > 0.03 || math.Abs(std-3) > 0.03 {
			t.Errorf("%s normal: mean %.4f std %.4f, want -1 and 3", dt, mean, std)
		}
	}
}

// TestRngStateless: the generator has no hidden state, so a program gives
// the same values on every run, and element i is the same in any shape.
func TestRngStateless(t *testing.T) {
	a := mustDist(t, "NORMAL", scalar(hlo.F32, 0), scalar(hlo.F32, 1), tt(hlo.F32, 3, 5))
	b := mustDist(t, "NORMAL", scalar(hlo.F32, 0), scalar(hlo.F32, 1), tt(hlo.F32, 3, 5))
	if !a.Equal(b) {
		t.Fatalf("two runs differ:\n%v\n%v", a, b)
	}
	c := mustDist(t, "NORMAL", scalar(hlo.F32, 0), scalar(hlo.F32, 1), tt(hlo.F32, 20))
	for i := 0; i < 15; i++ {
		if a.F32()[i] != c.F32()[i] {
			t.Fatalf("element %d: %v in 3x5, %v in 20", i, a.F32()[i], c.F32()[i])
		}
	}
}

// TestRngBadInput: what the spec calls undefined is an error naming the
// op, at compile time when the types show it, else at run time.
func TestRngBadInput(t *testing.T) {
	f := func(v float64) *hlo.Literal { return scalar(hlo.F32, v) }
	for _, c := range []struct {
		dist string
		a, b *hlo.Literal
		out  *hlo.TensorType
		want string
	}{
		{"UNIFORM", f(1), f(1), tt(hlo.F32, 2), "a < b"},
		{"UNIFORM", f(2), f(1), tt(hlo.F32, 2), "a < b"},
		{"UNIFORM", f(math.NaN()), f(1), tt(hlo.F32, 2), "a < b"},
		{"UNIFORM", f(0), f(math.Inf(1)), tt(hlo.F32, 2), "finite"},
		{"UNIFORM", scalar(hlo.I32, 5), scalar(hlo.I32, -5), tt(hlo.I32, 2), "a < b"},
		{"NORMAL", f(0), f(-1), tt(hlo.F32, 2), "b >= 0"},
		{"NORMAL", f(0), f(math.NaN()), tt(hlo.F32, 2), "b >= 0"},
		{"NORMAL", scalar(hlo.I32, 0), scalar(hlo.I32, 1), tt(hlo.I32, 2), "NORMAL"},
		{"UNIFORM", f(0), f(1), tt(hlo.F64, 2), "element type"},
		{"POISSON", f(0), f(1), tt(hlo.F32, 2), "not UNIFORM or NORMAL"},
	} {
		_, err := runDist(c.dist, c.a, c.b, c.out)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "stablehlo.rng") {
			t.Errorf("%s(%v, %v) -> %s: error %v, want one naming stablehlo.rng and %q", c.dist, c.a, c.b, c.out, err, c.want)
		}
	}
	_, err := runOp("stablehlo.rng", []*hlo.Literal{f(0), f(1), shapeOf(3)}, []hlo.Type{tt(hlo.F32, 2)}, distAttr("UNIFORM"))
	if err == nil || !strings.Contains(err.Error(), "shape operand") {
		t.Errorf("shape [3] for a tensor<2xf32>: error %v", err)
	}
}
