package hlo

import (
	"slices"
	"strconv"
)

// Dense elements: `dense<LITERAL> : tensor<...>`. The literal is read into
// a flat list of element spans first (its nesting gives the shape), then
// converted once the type is known; `"0x..."` payloads are decoded straight
// into the literal's storage.
//
// Hex payload layout (MLIR's raw buffer, little endian, row major):
//   - every element takes ceil(bitwidth/8) bytes: i1, i2, i4, ui2, ui4,
//     f4E2M1FN, f6*, f8* one byte each, bf16/f16 two, tf32 three, f32 four;
//   - i1 is one byte per element, 0x00 or 0x01 (current MLIR no longer packs
//     bits in the hex form);
//   - sub-byte values sit in the low bits of their byte, with the high bits
//     zero (i4 -1 is 0x0F), and are sign-extended into hlo storage;
//   - complex<fN> is the real part followed by the imaginary part;
//   - a payload of exactly one element is a splat.

type elemKind uint8

const (
	eInt elemKind = iota
	eFloat
	eTrue
	eFalse
	eComplex // followed by the two part entries
)

type denseElem struct {
	kind       elemKind
	neg        bool
	start, end int
}

// parseDenseAttr parses `dense<...> : type`.
func (p *parser) parseDenseAttr() Attr {
	startTok := p.tok
	p.next()
	if !p.is("<") {
		p.failExpected("'<' after dense")
	}
	p.next()
	var elems []denseElem
	var shape []int64
	nested := false
	hexStart, hexEnd := -1, -1
	empty := false
	switch {
	case p.is(">"):
		empty = true
	case p.tok.kind == tString:
		b := p.src[p.tok.start:p.tok.end]
		if len(b) >= 4 && b[1] == '0' && b[2] == 'x' {
			hexStart, hexEnd = p.tok.start+3, p.tok.end-1
			p.next()
		} else {
			// String elements (dense<"foo">) are not modeled.
			p.tok = startTok
			return p.parseOpaqueAttr()
		}
	case p.is("["):
		nested = true
		shape = p.parseDenseList(&elems, 0)
	default:
		p.parseDenseElem(&elems)
	}
	p.expect(">")
	typeOff := p.tok.start
	p.expect(":")
	t := p.parseType()
	tt, ok := t.(*TensorType)
	if !ok {
		if ot, ok := t.(*OpaqueType); ok && len(ot.Text) > 7 && ot.Text[:7] == "tensor<" {
			// Element types DType cannot hold (index): keep the text.
			p.lastDenseType = t
			return OpaqueAttr{Text: p.spanText(startTok.start, p.prevEnd())}
		}
		p.failAt(typeOff, "dense elements need a tensor type, found %s", t)
	}
	if !tt.IsStatic() {
		p.failAt(typeOff, "dense elements need a static shape, found %s", tt)
	}
	l := &Literal{DType: tt.DType, Dims: append([]int64{}, tt.Dims...)}
	n := tt.NumElements() // the type's size is checked: this fits
	switch {
	case empty:
		if n != 0 {
			p.failAt(typeOff, "dense<> needs a tensor with no elements, found %s", tt)
		}
		l.Data = AlignedBytes(0)
	case hexStart >= 0:
		hex := p.src[hexStart:hexEnd]
		if eb := mlirElemBytes(tt.DType); n > 1 && eb > 0 && len(hex) == 2*eb {
			// A one-element payload is a splat: keep it compact.
			e := &Literal{DType: tt.DType, Dims: []int64{}, Data: AlignedBytes(tt.DType.Size())}
			if err := decodeDenseHex(e, hex); err != "" {
				p.failAt(hexStart-3, "%s for %s", err, tt)
			}
			return &DenseElementsAttr{Type: tt, Splat: e}
		}
		if msg := hexLengthError(tt.DType, n, len(hex)); msg != "" {
			p.failAt(hexStart-3, "%s for %s", msg, tt)
		}
		l.Data = AlignedBytes(int(n) * tt.DType.Size())
		if err := decodeDenseHex(l, hex); err != "" {
			p.failAt(hexStart-3, "%s for %s", err, tt)
		}
	case len(elems) > 0 && !nested && n > 1:
		// dense<x> of several elements: a compact splat.
		e := &Literal{DType: tt.DType, Dims: []int64{}, Data: AlignedBytes(tt.DType.Size())}
		p.fillDense(e, elems, false)
		return &DenseElementsAttr{Type: tt, Splat: e}
	default:
		if nested {
			if len(shape) != len(tt.Dims) {
				p.failAt(typeOff, "elements literal has shape %v, but the type is %s", shape, tt)
			}
			for i := range shape {
				if shape[i] != tt.Dims[i] {
					p.failAt(typeOff, "elements literal has shape %v, but the type is %s", shape, tt)
				}
			}
		}
		count := countElems(elems)
		if int64(count) != n && !(count == 1 && !nested) {
			p.failAt(typeOff, "%d elements given for %s", count, tt)
		}
		l.Data = AlignedBytes(int(n) * tt.DType.Size())
		p.fillDense(l, elems, count == 1 && !nested)
	}
	return &DenseElementsAttr{Type: tt, Value: l}
}

func countElems(es []denseElem) int {
	n := 0
	for i := 0; i < len(es); i++ {
		if es[i].kind == eComplex {
			i += 2
		}
		n++
	}
	return n
}

// parseDenseList parses a bracketed list and returns its shape; all
// sublists must have the same shape.
func (p *parser) parseDenseList(elems *[]denseElem, depth int) []int64 {
	if depth > maxNesting {
		p.failAt(p.tok.start, "elements literal nested deeper than %d levels", maxNesting)
	}
	off := p.tok.start
	p.next() // '['
	var sub []int64
	n := int64(0)
	for !p.is("]") {
		if n > 0 {
			p.expect(",")
		}
		var s []int64
		if p.is("[") {
			s = p.parseDenseList(elems, depth+1)
			if s == nil {
				s = []int64{}
			}
		} else {
			p.parseDenseElem(elems)
			s = []int64{}
		}
		if n == 0 {
			sub = s
		} else if !slices.Equal(sub, s) {
			p.failAt(off, "elements literal is not rectangular")
		}
		n++
	}
	p.next()
	return append([]int64{n}, sub...)
}

// parseDenseElem records one element: [-]int, [-]float, true, false or
// (re, im).
func (p *parser) parseDenseElem(elems *[]denseElem) {
	if p.is("(") {
		p.next()
		*elems = append(*elems, denseElem{kind: eComplex})
		p.parseDenseScalar(elems)
		p.expect(",")
		p.parseDenseScalar(elems)
		p.expect(")")
		return
	}
	p.parseDenseScalar(elems)
}

func (p *parser) parseDenseScalar(elems *[]denseElem) {
	switch {
	case p.is("true"):
		*elems = append(*elems, denseElem{kind: eTrue, start: p.tok.start, end: p.tok.end})
		p.next()
		return
	case p.is("false"):
		*elems = append(*elems, denseElem{kind: eFalse, start: p.tok.start, end: p.tok.end})
		p.next()
		return
	}
	neg := p.accept("-")
	switch p.tok.kind {
	case tInt:
		*elems = append(*elems, denseElem{kind: eInt, neg: neg, start: p.tok.start, end: p.tok.end})
	case tFloat:
		*elems = append(*elems, denseElem{kind: eFloat, neg: neg, start: p.tok.start, end: p.tok.end})
	default:
		p.failExpected("element value")
	}
	p.next()
}

// fillDense converts the element spans into l (splat: one element
// repeated).
func (p *parser) fillDense(l *Literal, elems []denseElem, splat bool) {
	dt := l.DType
	n := l.NumElements()
	if n == 0 {
		return
	}
	k := 0
	for i := 0; i < n; i++ {
		if splat && i > 0 {
			break
		}
		e := elems[k]
		if e.kind == eComplex {
			if !dt.IsComplex() {
				p.failAt(elems[k+1].start, "complex value for element type %s", dt)
			}
			part := dt.ComplexPart()
			re := p.floatElem(part, elems[k+1])
			im := p.floatElem(part, elems[k+2])
			l.SetComplex(i, complex(re, im))
			k += 3
			continue
		}
		k++
		switch {
		case dt.IsComplex():
			p.failAt(e.start, "expected (re, im) for element type %s", dt)
		case dt.IsFloat():
			if e.kind == eInt && isHexText(p.src[e.start:e.end]) {
				bits, ok := parseIntText(p.src[e.start:e.end], false)
				if !ok || e.neg || dt.Bits() < 64 && uint64(bits)>>uint(dt.Bits()) != 0 {
					p.failAt(e.start, "hex bit pattern %s does not fit %s", p.src[e.start:e.end], dt)
				}
				l.SetBits(i, uint64(bits))
				continue
			}
			f := p.floatElem(dt, e)
			if dt == F32 || dt == F64 {
				l.SetFloat(i, f)
			} else {
				l.SetBits(i, Float64ToFloatBits(dt, f))
			}
		case dt.IsBool():
			switch e.kind {
			case eTrue:
				l.Data[i] = 1
			case eFalse:
				l.Data[i] = 0
			case eInt:
				v, ok := parseIntText(p.src[e.start:e.end], e.neg)
				if !ok || v != 0 && v != 1 {
					p.failAt(e.start, "i1 elements must be true, false, 0 or 1")
				}
				l.Data[i] = byte(v)
			default:
				p.failAt(e.start, "expected a boolean for element type i1")
			}
		case dt.IsInt():
			var v int64
			switch e.kind {
			case eInt:
				var ok bool
				v, ok = parseIntText(p.src[e.start:e.end], e.neg)
				if !ok || !intFits(dt, v) {
					p.failAt(e.start, "integer %s out of range for %s", p.src[e.start:e.end], dt)
				}
			case eTrue:
				v = 1
			case eFalse:
				v = 0
			default:
				p.failAt(e.start, "expected an integer for element type %s", dt)
			}
			l.SetInt(i, v)
		default:
			p.failAt(e.start, "unsupported element type %s", dt)
		}
	}
	if splat {
		s := dt.Size()
		for off := s; off < len(l.Data); off *= 2 {
			copy(l.Data[off:], l.Data[:off])
		}
	}
}

// floatElem converts a float element span (decimal, integer, or hex bit
// pattern) to a value of the float type dt, returned as float64.
func (p *parser) floatElem(dt DType, e denseElem) float64 {
	text := p.src[e.start:e.end]
	switch e.kind {
	case eInt:
		if isHexText(text) {
			bits, ok := parseIntText(text, false)
			if !ok || e.neg {
				p.failAt(e.start, "invalid hex bit pattern %s", text)
			}
			return FloatBitsToFloat64(dt, uint64(bits))
		}
		fallthrough
	case eFloat:
		bitSize := 64
		if dt == F32 {
			bitSize = 32
		}
		f, err := strconv.ParseFloat(string(text), bitSize)
		if err != nil && !isRangeErr(err) {
			p.failAt(e.start, "invalid number %s", text)
		}
		if e.neg {
			f = -f
		}
		if dt == F32 {
			return float64(float32(f))
		}
		if dt == F64 {
			return f
		}
		return FloatBitsToFloat64(dt, Float64ToFloatBits(dt, f))
	}
	p.failAt(e.start, "expected a number for element type %s", dt)
	return 0
}

// mlirElemBytes is the size of one element in MLIR's raw (hex) layout.
func mlirElemBytes(dt DType) int {
	if dt.IsComplex() {
		return 2 * mlirElemBytes(dt.ComplexPart())
	}
	return (dt.Bits() + 7) / 8
}

// hexLengthError returns a message when ndigits hex digits cannot be the
// payload of n elements of dt (all of them, or one for a splat), else "".
// It reads no storage, so a payload that does not fit its type fails
// before anything is allocated.
func hexLengthError(dt DType, n int64, ndigits int) string {
	if ndigits%2 != 0 {
		return "odd number of hex digits"
	}
	nbytes := int64(ndigits / 2)
	eb := int64(mlirElemBytes(dt))
	if eb == 0 {
		return "unsupported element type"
	}
	if want, ok := mulInt64(n, eb); ok && nbytes == want || nbytes == eb && n > 0 {
		return ""
	}
	return "hex payload of " + strconv.FormatInt(nbytes, 10) + " bytes does not match " + strconv.FormatInt(n, 10) + " elements of " + strconv.FormatInt(eb, 10) + " bytes"
}

// decodeDenseHex fills l.Data (already sized) from hex digits in MLIR's
// raw layout; it returns a message on malformed input.
func decodeDenseHex(l *Literal, hex []byte) string {
	dt := l.DType
	n := l.NumElements()
	if msg := hexLengthError(dt, int64(n), len(hex)); msg != "" {
		return msg
	}
	nbytes := len(hex) / 2
	eb := mlirElemBytes(dt)
	if n == 0 {
		return ""
	}
	count := nbytes / eb
	size := dt.Size()
	if eb == size {
		for i := 0; i < nbytes; i++ {
			h, lo := hex[2*i], hex[2*i+1]
			if !isHex(h) || !isHex(lo) {
				return "invalid hex digit"
			}
			l.Data[i] = hexVal(h)<<4 | hexVal(lo)
		}
	} else {
		// tf32: three raw bytes into four storage bytes.
		for i := 0; i < count; i++ {
			var v uint64
			for b := 0; b < eb; b++ {
				h, lo := hex[2*(i*eb+b)], hex[2*(i*eb+b)+1]
				if !isHex(h) || !isHex(lo) {
					return "invalid hex digit"
				}
				v |= uint64(hexVal(h)<<4|hexVal(lo)) << (8 * uint(b))
			}
			l.SetBits(i, v)
		}
	}
	fixSubByte(l, count)
	if count == 1 && n > 1 {
		for off := size; off < len(l.Data); off *= 2 {
			copy(l.Data[off:], l.Data[:off])
		}
	}
	return ""
}

// fixSubByte converts the first count elements from MLIR's raw sub-byte
// layout (low bits, zero high bits) to hlo storage (sign-extended for
// signed types, i1 as 0/1, small floats masked to their width).
func fixSubByte(l *Literal, count int) {
	dt := l.DType
	bits := dt.Bits()
	switch {
	case dt.IsBool():
		for i := 0; i < count; i++ {
			l.Data[i] &= 1
		}
	case dt.IsSigned() && bits < 8:
		sh := uint(8 - bits)
		for i := 0; i < count; i++ {
			l.Data[i] = byte(int8(l.Data[i]<<sh) >> sh)
		}
	case (dt.IsUnsigned() || dt.IsFloat()) && bits < 8:
		mask := byte(1<<uint(bits) - 1)
		for i := 0; i < count; i++ {
			l.Data[i] &= mask
		}
	}
}

const hexDigits = "0123456789ABCDEF"

// DenseHex returns `"0x..."`: the literal's elements in MLIR's raw hex
// layout (see parse_dense.go), as MLIR prints large dense attributes.
func DenseHex(l *Literal) string {
	dt := l.DType
	n := l.NumElements()
	eb := mlirElemBytes(dt)
	out := make([]byte, 0, 4+2*n*eb)
	out = append(out, '"', '0', 'x')
	size := dt.Size()
	bits := dt.Bits()
	switch {
	case eb == size && (bits >= 8 || dt.IsBool()):
		for _, b := range l.Data {
			out = append(out, hexDigits[b>>4], hexDigits[b&15])
		}
	case eb == size:
		mask := byte(1<<uint(bits) - 1)
		for _, b := range l.Data {
			b &= mask
			out = append(out, hexDigits[b>>4], hexDigits[b&15])
		}
	default:
		for i := 0; i < n; i++ {
			v := l.Bits(i)
			for b := 0; b < eb; b++ {
				c := byte(v >> (8 * uint(b)))
				out = append(out, hexDigits[c>>4], hexDigits[c&15])
			}
		}
	}
	out = append(out, '"')
	return string(out)
}
