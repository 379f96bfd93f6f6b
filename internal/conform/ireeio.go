package conform

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// The text forms of IREE's tools (iree-run-mlir, iree-run-module): inputs
// given with --input and the results they print.
//
// A tensor is a buffer view, `SHAPExTYPE=DATA` (`TYPE=DATA` for rank 0):
// SHAPE is sizes joined by 'x', TYPE an IREE element type name (i8..i64
// for signless and signed integers, ui8..ui64, i1, f16, bf16, f32, f64,
// cf64/cf128 for complex, f8E5M2 and friends). DATA lists the elements in
// row-major order separated by spaces, commas or brackets; one element
// fills the whole tensor and no data means zeros. Integers and floats are
// written in decimal, other types (i1, complex) as the hex of their bytes.
// Printed, a rank-1 tensor is `4xf32=1 2 3 4`, a higher rank nests
// brackets, `2x2xi32=[1 2][3 4]`, floats print as C's %G, and at most
// maxElements elements print, "..." marking a cut. A scalar (i32, f32
// function argument or result) is its value alone; printed results are
// `result[i]: hal.buffer_view` and the buffer view on the next line, or
// `result[i]: i32=42` for a scalar.

// defaultMaxElements is iree-run-mlir's --output_max_element_count.
const defaultMaxElements = 1024

// maxInputBytes bounds one --input tensor.
const maxInputBytes = 1 << 30

// ireeTypeNames maps IREE's element type names to element types.
var ireeTypeNames = map[string]hlo.DType{
	"i1": hlo.Bool, "i8": hlo.I8, "i16": hlo.I16, "i32": hlo.I32, "i64": hlo.I64,
	"si8": hlo.I8, "si16": hlo.I16, "si32": hlo.I32, "si64": hlo.I64,
	"ui8": hlo.U8, "ui16": hlo.U16, "ui32": hlo.U32, "ui64": hlo.U64,
	"f16": hlo.F16, "bf16": hlo.BF16, "f32": hlo.F32, "f64": hlo.F64,
	"cf64": hlo.C64, "cf128": hlo.C128,
}

// ireeFloat8 are the 8-bit floats IREE names and prints as numbers.
var ireeFloat8 = []string{"f8E5M2", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E8M0FNU"}

func init() {
	for _, n := range ireeFloat8 {
		if dt, ok := hlo.DTypeByName(n); ok {
			ireeTypeNames[n] = dt
		}
	}
}

// ireeTypeName is IREE's name of dt ("" when IREE has none).
func ireeTypeName(dt hlo.DType) string {
	switch {
	case dt.IsBool():
		return "i1"
	case dt.IsInt() && dt.Bits() < 8:
		return "" // IREE packs sub-byte integers; not reproduced
	case dt.IsSigned():
		return fmt.Sprintf("i%d", dt.Bits())
	case dt.IsUnsigned():
		return fmt.Sprintf("ui%d", dt.Bits())
	case dt == hlo.C64:
		return "cf64"
	case dt == hlo.C128:
		return "cf128"
	}
	for n, t := range ireeTypeNames {
		if t == dt && dt.IsFloat() {
			return n
		}
	}
	return ""
}

// ireeNumeric reports whether IREE reads and prints dt's elements as
// numbers (else as hex bytes).
func ireeNumeric(dt hlo.DType) bool {
	return dt.IsInt() || dt.IsFloat()
}

// parseIREEInput reads one --input value for an argument of type t (a
// tensor type, or a scalar type kept as written).
func parseIREEInput(s string, t hlo.Type) (*hlo.Literal, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "@") || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "&") || s == "(null)" {
		return nil, fmt.Errorf("input %q: file, buffer and null inputs are not supported", s)
	}
	tt, ok := t.(*hlo.TensorType)
	if !ok {
		dt, ok := hlo.DTypeByName(t.String())
		if !ok || !ireeNumeric(dt) {
			return nil, fmt.Errorf("argument type %s is not a tensor or a number", t)
		}
		l := hlo.NewLiteral(dt)
		if err := parseIREEElement(l, 0, s); err != nil {
			return nil, fmt.Errorf("input %q for %s: %v", s, t, err)
		}
		return l, nil
	}
	head, data, ok := strings.Cut(s, "=")
	if !ok {
		return nil, fmt.Errorf("input %q for %s: want SHAPExTYPE=DATA", s, t)
	}
	head = strings.TrimSpace(head)
	var dims []int64
	typ := head
	if i := strings.LastIndexByte(head, 'x'); i >= 0 {
		typ = head[i+1:]
		for _, d := range strings.Split(head[:i], "x") {
			n, err := strconv.ParseInt(d, 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("input %q: bad dimension %q", s, d)
			}
			dims = append(dims, n)
		}
	}
	dt, ok := ireeTypeNames[typ]
	if !ok {
		return nil, fmt.Errorf("input %q: unknown element type %q", s, typ)
	}
	// A shape of more than maxInputBytes is refused before allocating it.
	bytes := int64(dt.Size())
	for _, d := range dims {
		if d > 0 && bytes > maxInputBytes/d {
			return nil, fmt.Errorf("input %q: shape %s is over %d bytes", s, head, int64(maxInputBytes))
		}
		bytes *= d
	}
	l := hlo.NewLiteral(dt, dims...)
	if !argFits(tt, l) {
		return nil, fmt.Errorf("input %q is a %s, the argument is %s", s, l.ShapeString(), tt)
	}
	words := strings.FieldsFunc(data, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ',' || r == '[' || r == ']'
	})
	n := l.NumElements()
	switch {
	case len(words) == 0:
		return l, nil
	case len(words) == 1 && n > 1:
		if err := parseIREEElement(l, 0, words[0]); err != nil {
			return nil, fmt.Errorf("input %q: %v", s, err)
		}
		for i := 1; i < n; i++ {
			copy(l.Data[i*dt.Size():(i+1)*dt.Size()], l.Data[:dt.Size()])
		}
		return l, nil
	case len(words) != n:
		return nil, fmt.Errorf("input %q has %d elements, its shape %d", s, len(words), n)
	}
	for i, w := range words {
		if err := parseIREEElement(l, i, w); err != nil {
			return nil, fmt.Errorf("input %q: %v", s, err)
		}
	}
	return l, nil
}

// parseIREEElement stores the text of one element into l[i].
func parseIREEElement(l *hlo.Literal, i int, w string) error {
	dt := l.DType
	switch {
	case !ireeNumeric(dt) || dt.IsBool():
		size := dt.Size()
		b, err := hex.DecodeString(w)
		if err != nil || len(b) != size {
			return fmt.Errorf("element %q: %s is written as %d hex bytes", w, ireeTypeName(dt), size)
		}
		copy(l.Data[i*size:], b)
		if dt.IsBool() && b[0] > 1 {
			return fmt.Errorf("element %q is not 00 or 01", w)
		}
	case dt.IsInt():
		bits := dt.Bits()
		if dt.IsUnsigned() {
			v, err := strconv.ParseUint(w, 10, bits)
			if err != nil {
				return fmt.Errorf("element %q is not a %s", w, ireeTypeName(dt))
			}
			l.SetBits(i, v)
			return nil
		}
		// Like IREE, 8- and 16-bit signless integers take their unsigned
		// spellings too (200 is -56 in i8); wider ones are signed.
		v, err := strconv.ParseInt(w, 10, max(bits, 32))
		if err != nil || bits < 32 && (v < -1<<(bits-1) || v >= 1<<bits) {
			return fmt.Errorf("element %q is not a %s", w, ireeTypeName(dt))
		}
		l.SetInt(i, v)
	default:
		bits := 64
		if dt != hlo.F64 {
			bits = 32
		}
		v, err := strconv.ParseFloat(w, bits)
		if err != nil && !isRangeErr(err) {
			return fmt.Errorf("element %q is not a number", w)
		}
		l.SetFloat(i, v)
	}
	return nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// formatIREEResult prints result i as iree-run-mlir does; t is the
// function's declared result type (a scalar type prints as a value).
func formatIREEResult(i int, l *hlo.Literal, t hlo.Type, max int) (string, error) {
	if _, ok := t.(*hlo.TensorType); !ok {
		if len(l.Dims) != 0 {
			return "", fmt.Errorf("result %d of type %s holds %s", i, t, l.ShapeString())
		}
		return fmt.Sprintf("result[%d]: %s\n", i, formatIREEScalar(l)), nil
	}
	bv, err := FormatBufferView(l, max)
	if err != nil {
		return "", fmt.Errorf("result %d: %v", i, err)
	}
	return fmt.Sprintf("result[%d]: hal.buffer_view\n%s\n", i, bv), nil
}

// formatIREEScalar prints a scalar as IREE's VM values print: integers up
// to 32 bits as i32, floats with six decimals.
func formatIREEScalar(l *hlo.Literal) string {
	dt := l.DType
	switch {
	case dt == hlo.I64 || dt == hlo.U64:
		return "i64=" + strconv.FormatInt(l.Int(0), 10)
	case dt.IsInt():
		return "i32=" + strconv.FormatInt(int64(int32(l.Int(0))), 10)
	case dt == hlo.F64:
		return "f64=" + strconv.FormatFloat(l.Float(0), 'f', 6, 64)
	}
	return "f32=" + strconv.FormatFloat(float64(float32(l.Float(0))), 'f', 6, 64)
}

// FormatBufferView prints l as IREE prints a buffer view, at most max
// elements.
func FormatBufferView(l *hlo.Literal, max int) (string, error) {
	name := ireeTypeName(l.DType)
	if name == "" {
		return "", fmt.Errorf("IREE's printing of %s elements is not reproduced", l.DType)
	}
	var b strings.Builder
	for _, d := range l.Dims {
		b.WriteString(strconv.FormatInt(d, 10))
		b.WriteByte('x')
	}
	b.WriteString(name)
	b.WriteByte('=')
	dims := l.Dims
	if len(dims) == 0 {
		dims = []int64{1}
	}
	left := max
	writeBufferElems(&b, l, dims, 0, &left)
	return b.String(), nil
}

// writeBufferElems writes the elements from offset off of the row-major
// block shaped dims: brackets around every row above the innermost level,
// then the elements separated by spaces.
func writeBufferElems(b *strings.Builder, l *hlo.Literal, dims []int64, off int, left *int) {
	if len(dims) > 1 {
		stride := int(hlo.NumElements(dims[1:]))
		for i := 0; i < int(dims[0]); i++ {
			b.WriteByte('[')
			writeBufferElems(b, l, dims[1:], off+i*stride, left)
			b.WriteByte(']')
		}
		return
	}
	n := min(*left, int(dims[0]))
	*left -= n
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(formatIREEElement(l, off+i))
	}
	if n < int(dims[0]) {
		b.WriteString("...")
	}
}

// formatIREEElement prints one element: integers in decimal, floats as C's
// %G, other types as the hex of their bytes.
func formatIREEElement(l *hlo.Literal, i int) string {
	dt := l.DType
	switch {
	case dt.IsBool() || !ireeNumeric(dt):
		size := dt.Size()
		return strings.ToUpper(hex.EncodeToString(l.Data[i*size : (i+1)*size]))
	case dt.IsUnsigned():
		return strconv.FormatUint(l.Uint(i), 10)
	case dt.IsInt():
		return strconv.FormatInt(l.Int(i), 10)
	}
	return formatG(l.Float(i))
}

// formatG is C's printf("%G", x): six significant digits, exponent form
// (E, at least two exponent digits) below 1E-4 and from 1E+06 on, no
// trailing zeros; INF and NAN in capitals, signed.
func formatG(x float64) string {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-NAN"
		}
		return "NAN"
	case math.IsInf(x, 1):
		return "INF"
	case math.IsInf(x, -1):
		return "-INF"
	case x == 0:
		if math.Signbit(x) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(x, 'E', 5, 64) // d.dddddE±XX, rounded to 6 digits
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'E')+1:])
	if exp < -4 || exp >= 6 {
		mant, ex, _ := strings.Cut(e, "E")
		return trimZeros(mant) + "E" + ex
	}
	return trimZeros(strconv.FormatFloat(x, 'f', 5-exp, 64))
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
