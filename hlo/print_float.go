package hlo

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Float printing follows MLIR's AsmPrinter so that printed modules match
// what stablehlo-opt emits, digit for digit:
//
//  1. try six significant digits in exponent form ("1.000000e-01"); keep
//     it when it reads back to the same bits of the element type;
//  2. otherwise use the "natural" precision of the type (LLVM
//     APFloat::toString: 2 + precision*59/196 significant digits, trailing
//     zeros dropped, plain notation for small exponents: "0.0039215482",
//     "3.40282347E+38"); keep it when it has a '.';
//  3. otherwise (NaN, infinities, and large integral values such as
//     123456792) print the raw bit pattern in hex ("0x7FC00000").
//
// Rounding is half-up on the exact decimal expansion, after the same
// truncating pre-division APFloat performs, so the digits match LLVM's.

// FormatFloatBits prints the element of floating-point type dt whose raw
// bits are given, exactly as MLIR prints it in a dense attribute.
func FormatFloatBits(dt DType, b uint64) string {
	v := FloatBitsToFloat64(dt, b)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return hexBits(b)
	}
	s := apfloatString(v, semPrecision(dt), 6, 0, false)
	if floatBitsOf(dt, s) == b {
		return s
	}
	s = apfloatString(v, semPrecision(dt), 0, 3, true)
	if strings.IndexByte(s, '.') >= 0 {
		return s
	}
	return hexBits(b)
}

// FormatFloat prints an f64 value as MLIR prints a float attribute: it
// reads back to the same value and always has a '.', an exponent or a hex
// bit pattern, so that MLIR reads it as a float.
func FormatFloat(f float64) string { return FormatFloatBits(F64, math.Float64bits(f)) }

func hexBits(b uint64) string { return "0x" + strings.ToUpper(strconv.FormatUint(b, 16)) }

// floatBitsOf parses a decimal float and rounds it to dt.
func floatBitsOf(dt DType, s string) uint64 {
	switch dt {
	case F32:
		f, _ := strconv.ParseFloat(s, 32)
		return uint64(math.Float32bits(float32(f)))
	case F64:
		f, _ := strconv.ParseFloat(s, 64)
		return math.Float64bits(f)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return Float64ToFloatBits(dt, f)
}

// semPrecision is the significand precision in bits (stored bits + 1).
func semPrecision(dt DType) int {
	switch dt {
	case F64:
		return 53
	case F32:
		return 24
	}
	if f, ok := floatFormats[dt]; ok {
		return f.mbits + 1
	}
	return 53
}

var bigTen = big.NewInt(10)

// apfloatString mirrors LLVM's IEEEFloat::toString for a finite value
// whose semantics has the given precision.
func apfloatString(v float64, precision, formatPrecision, maxPadding int, truncateZero bool) string {
	var out []byte
	if math.Signbit(v) {
		out = append(out, '-')
		v = -v
	}
	if v == 0 {
		if maxPadding == 0 {
			if truncateZero {
				return string(append(out, "0.0E+0"...))
			}
			out = append(out, "0.0"...)
			for i := 1; i < formatPrecision; i++ {
				out = append(out, '0')
			}
			return string(append(out, "e+00"...))
		}
		return string(append(out, '0'))
	}
	if formatPrecision == 0 {
		formatPrecision = 2 + precision*59/196
	}
	// v = mant * 2^exp with mant odd.
	frac, e := math.Frexp(v)
	mant := uint64(math.Ldexp(frac, 53))
	exp := e - 53
	tz := bits.TrailingZeros64(mant)
	mant >>= uint(tz)
	exp += tz

	sig := new(big.Int).SetUint64(mant)
	if exp > 0 {
		sig.Lsh(sig, uint(exp))
		exp = 0
	} else if exp < 0 {
		five := new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-exp)), nil)
		sig.Mul(sig, five)
	}
	// APFloat drops whole decimal digits it cannot need before generating
	// them (a truncating division); mirror it so ties round the same way.
	nbits := sig.BitLen()
	required := (formatPrecision*196 + 58) / 59
	if nbits > required {
		if tens := (nbits - required) * 59 / 196; tens > 0 {
			exp += tens
			div := new(big.Int).Exp(bigTen, big.NewInt(int64(tens)), nil)
			sig.Quo(sig, div)
		}
	}
	digits := []byte(sig.String()) // most significant first
	// Drop trailing zeros.
	n := len(digits)
	for n > 1 && digits[n-1] == '0' {
		n--
		exp++
	}
	digits = digits[:n]
	digits, exp = roundDigits(digits, exp, formatPrecision)
	nd := len(digits)

	scientific := true
	if maxPadding != 0 {
		if exp >= 0 {
			scientific = exp > maxPadding || nd+exp > formatPrecision
		} else {
			msd := exp + nd - 1
			if msd >= 0 {
				scientific = false
			} else {
				scientific = -msd > maxPadding
			}
		}
	}
	if scientific {
		e10 := exp + nd - 1
		out = append(out, digits[0], '.')
		if nd == 1 && truncateZero {
			out = append(out, '0')
		} else {
			out = append(out, digits[1:]...)
		}
		if !truncateZero && formatPrecision > nd-1 {
			for i := 0; i < formatPrecision-nd+1; i++ {
				out = append(out, '0')
			}
		}
		if truncateZero {
			out = append(out, 'E')
		} else {
			out = append(out, 'e')
		}
		if e10 >= 0 {
			out = append(out, '+')
		} else {
			out = append(out, '-')
			e10 = -e10
		}
		es := strconv.Itoa(e10)
		if !truncateZero && len(es) < 2 {
			out = append(out, '0')
		}
		return string(append(out, es...))
	}
	if exp >= 0 {
		out = append(out, digits...)
		for i := 0; i < exp; i++ {
			out = append(out, '0')
		}
		return string(out)
	}
	whole := exp + nd
	if whole > 0 {
		out = append(out, digits[:whole]...)
		out = append(out, '.')
		return string(append(out, digits[whole:]...))
	}
	out = append(out, '0', '.')
	for i := 0; i < -whole; i++ {
		out = append(out, '0')
	}
	return string(append(out, digits...))
}

// roundDigits rounds a digit string (most significant first) to at most
// prec digits, half up, dropping trailing zeros of the result.
func roundDigits(d []byte, exp, prec int) ([]byte, int) {
	if len(d) <= prec {
		return d, exp
	}
	cut := len(d) - prec
	up := d[prec] >= '5'
	exp += cut
	d = d[:prec]
	if up {
		i := prec - 1
		for i >= 0 && d[i] == '9' {
			i--
		}
		if i < 0 {
			return []byte{'1'}, exp + prec
		}
		d[i]++
		exp += prec - 1 - i
		d = d[:i+1]
	}
	n := len(d)
	for n > 1 && d[n-1] == '0' {
		n--
		exp++
	}
	return d[:n], exp
}
