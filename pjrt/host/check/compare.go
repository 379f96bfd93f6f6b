package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// mismatch describes the first element where a comparison failed.
type mismatch struct {
	index     int
	got, want string
	detail    string
}

func (m *mismatch) describe(dims []int64) string {
	s := fmt.Sprintf("element %s: got %s, want %s", indexString(dims, m.index), m.got, m.want)
	if m.detail != "" {
		s += " (" + m.detail + ")"
	}
	return s
}

func newMismatch(got, want *hlo.Literal, i int, detail string) *mismatch {
	return &mismatch{index: i, got: got.ElemString(i), want: want.ElemString(i), detail: detail}
}

// sameShape reports whether two literals have one element type and shape.
func sameShape(a, b *hlo.Literal) error {
	if a.DType != b.DType || len(a.Dims) != len(b.Dims) {
		return fmt.Errorf("type mismatch: got %s, want %s", a.ShapeString(), b.ShapeString())
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return fmt.Errorf("shape mismatch: got %s, want %s", a.ShapeString(), b.ShapeString())
		}
	}
	return nil
}

// exactEqual compares element-wise with the semantics of stablehlo.compare
// EQ: integers and booleans by value, floats and complex numbers as IEEE
// values (-0 == 0, NaN equals nothing).
func exactEqual(got, want *hlo.Literal) *mismatch {
	dt := got.DType
	n := got.NumElements()
	for i := 0; i < n; i++ {
		var eq bool
		switch {
		case dt.IsComplex():
			eq = got.Complex(i) == want.Complex(i)
		case dt.IsFloat():
			eq = got.Float(i) == want.Float(i)
		default:
			eq = got.Bits(i) == want.Bits(i)
		}
		if !eq {
			return newMismatch(got, want, i, "")
		}
	}
	return nil
}

// almostEqual compares floats (complex: both parts) within an absolute
// tolerance; NaN matches NaN, infinities must match exactly. Integer and
// boolean tensors compare exactly.
func almostEqual(got, want *hlo.Literal, tol float64) *mismatch {
	dt := got.DType
	if !dt.IsFloat() && !dt.IsComplex() {
		return exactEqual(got, want)
	}
	n := got.NumElements()
	for i := 0; i < n; i++ {
		var ok bool
		if dt.IsComplex() {
			g, w := got.Complex(i), want.Complex(i)
			ok = closeAbs(real(g), real(w), tol) && closeAbs(imag(g), imag(w), tol)
		} else {
			ok = closeAbs(got.Float(i), want.Float(i), tol)
		}
		if !ok {
			return newMismatch(got, want, i, fmt.Sprintf("tolerance %g", tol))
		}
	}
	return nil
}

func closeAbs(g, w, tol float64) bool {
	if g == w {
		return true
	}
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	if math.IsInf(g, 0) || math.IsInf(w, 0) {
		return false
	}
	return math.Abs(g-w) <= tol
}

// ulpClose checks min <= ULP distance <= max element-wise (complex: the
// larger of the parts' distances). Non-finite values are close only when
// bitwise equal or both NaN.
func ulpClose(got, want *hlo.Literal, minULP, maxULP uint64) *mismatch {
	dt := got.DType
	n := got.NumElements()
	for i := 0; i < n; i++ {
		var d uint64
		if dt.IsComplex() {
			part := dt.ComplexPart()
			g, w := got.Complex(i), want.Complex(i)
			d = max(ulpDiff(part, real(g), real(w)), ulpDiff(part, imag(g), imag(w)))
		} else {
			d = ulpDiffBits(dt, got.Bits(i), want.Bits(i))
		}
		if d < minULP || d > maxULP {
			detail := fmt.Sprintf("ULP difference %d outside [%d, %d]", d, minULP, maxULP)
			if d == math.MaxUint64 {
				detail = fmt.Sprintf("non-finite values differ; allowed ULP difference [%d, %d]", minULP, maxULP)
			}
			return newMismatch(got, want, i, detail)
		}
	}
	return nil
}

func ulpDiff(dt hlo.DType, g, w float64) uint64 {
	return ulpDiffBits(dt, hlo.Float64ToFloatBits(dt, g), hlo.Float64ToFloatBits(dt, w))
}

// ulpDiffBits is the number of representable values between two floats of
// type dt given as storage bits.
func ulpDiffBits(dt hlo.DType, a, b uint64) uint64 {
	if a == b {
		return 0
	}
	fa, fb := hlo.FloatBitsToFloat64(dt, a), hlo.FloatBitsToFloat64(dt, b)
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if !finite(fa) || !finite(fb) {
		if math.IsNaN(fa) && math.IsNaN(fb) {
			return 0
		}
		return math.MaxUint64
	}
	oa, ob := floatOrdinal(dt, a), floatOrdinal(dt, b)
	if oa > ob {
		return uint64(oa - ob)
	}
	return uint64(ob - oa)
}

// floatOrdinal maps finite float bits to a signed integer that is monotonic
// in the value, with -0 and +0 both at 0.
func floatOrdinal(dt hlo.DType, bits uint64) int64 {
	if dt == hlo.F8E8M0FNU { // unsigned exponent-only format
		return int64(bits)
	}
	sign := uint64(1) << uint(dt.Bits()-1)
	if dt == hlo.TF32 {
		sign = 1 << 31
	}
	if bits&sign != 0 {
		return -int64(bits &^ sign)
	}
	return int64(bits)
}

// indexString prints the multi-dimensional index of flat element i.
func indexString(dims []int64, i int) string {
	idx := make([]string, len(dims))
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = strconv.FormatInt(int64(i)%dims[d], 10)
			i /= int(dims[d])
		} else {
			idx[d] = "0"
		}
	}
	return "[" + strings.Join(idx, ", ") + "]"
}
