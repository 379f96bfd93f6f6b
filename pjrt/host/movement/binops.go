package movement

import (
	"github.com/xlajit/xlajit/hlo"
)

// binKind names a body region that is a single elementwise binary op of its
// two arguments (or returns one of them); such bodies run as typed loops
// instead of region calls.
type binKind uint8

const (
	binNone   binKind = iota
	binAdd            // stablehlo.add
	binMul            // stablehlo.multiply
	binMax            // stablehlo.maximum
	binMin            // stablehlo.minimum
	binAnd            // stablehlo.and
	binOr             // stablehlo.or
	binXor            // stablehlo.xor
	binFirst          // returns its first (accumulator) argument
	binSecond         // returns its second (new value) argument
)

var binByOp = map[string]binKind{
	"stablehlo.add":      binAdd,
	"stablehlo.multiply": binMul,
	"stablehlo.maximum":  binMax,
	"stablehlo.minimum":  binMin,
	"stablehlo.and":      binAnd,
	"stablehlo.or":       binOr,
	"stablehlo.xor":      binXor,
}

// accFn computes dst[dOff+j·dS] = op(dst[dOff+j·dS], src[sOff+j·sS]) for
// j < n (offsets and strides in elements).
type accFn func(dst []byte, dOff, dS int, src []byte, sOff, sS, n int)

// foldFn computes dst[dOff] = op(…op(dst[dOff], src[sOff])…, src[sOff+n-1])
// over a contiguous run; it may evaluate it as a tree whose leaves stay in
// order (the schedule the spec allows for reduce).
type foldFn func(dst []byte, dOff int, src []byte, sOff, n int)

type intT interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type floatT interface{ ~float32 | ~float64 }

type cplxT interface{ ~complex64 | ~complex128 }

type numT interface{ intT | floatT | cplxT }

// binKernels returns the typed kernels of k over dt, or ok = false when the
// pair has no typed loop (the caller then runs the body region).
func binKernels(k binKind, dt hlo.DType) (acc accFn, fold foldFn, ok bool) {
	if k == binNone {
		return nil, nil, false
	}
	if k == binFirst {
		return func([]byte, int, int, []byte, int, int, int) {}, func([]byte, int, []byte, int, int) {}, true
	}
	if k == binSecond {
		es := dt.Size()
		return func(dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
				copyRow(es, dst, src, dOff, sOff, n, dS, sS)
			}, func(dst []byte, dOff int, src []byte, sOff, n int) {
				if n > 0 {
					copy(dst[dOff*es:dOff*es+es], src[(sOff+n-1)*es:(sOff+n)*es])
				}
			}, true
	}
	if dt == hlo.Bool {
		switch k {
		case binAdd, binMax, binOr:
			return accOr[uint8], foldOr[uint8], true
		case binMul, binMin, binAnd:
			return accAnd[uint8], foldAnd[uint8], true
		case binXor:
			return accXor[uint8], foldXor[uint8], true
		}
		return nil, nil, false
	}
	switch dt {
	case hlo.F32:
		return floatKernels[float32](k)
	case hlo.F64:
		return floatKernels[float64](k)
	case hlo.I8:
		return intKernels[int8](k)
	case hlo.I16:
		return intKernels[int16](k)
	case hlo.I32:
		return intKernels[int32](k)
	case hlo.I64:
		return intKernels[int64](k)
	case hlo.U8:
		return intKernels[uint8](k)
	case hlo.U16:
		return intKernels[uint16](k)
	case hlo.U32:
		return intKernels[uint32](k)
	case hlo.U64:
		return intKernels[uint64](k)
	case hlo.C64:
		return cplxKernels[complex64](k, dt)
	case hlo.C128:
		return cplxKernels[complex128](k, dt)
	}
	if dt.IsFloat() || dt.IsInt() {
		return scalarKernels(k, dt)
	}
	return nil, nil, false
}

func floatKernels[T floatT](k binKind) (accFn, foldFn, bool) {
	switch k {
	case binAdd:
		return accAdd[T], foldSum[T], true
	case binMul:
		return accMul[T], foldMul[T], true
	case binMax:
		return accFMax[T], foldFMax[T], true
	case binMin:
		return accFMin[T], foldFMin[T], true
	}
	return nil, nil, false
}

func intKernels[T intT](k binKind) (accFn, foldFn, bool) {
	switch k {
	case binAdd:
		return accAdd[T], foldAdd[T], true
	case binMul:
		return accMul[T], foldMul[T], true
	case binMax:
		return accIMax[T], foldIMax[T], true
	case binMin:
		return accIMin[T], foldIMin[T], true
	case binAnd:
		return accAnd[T], foldAnd[T], true
	case binOr:
		return accOr[T], foldOr[T], true
	case binXor:
		return accXor[T], foldXor[T], true
	}
	return nil, nil, false
}

func cplxKernels[T cplxT](k binKind, dt hlo.DType) (accFn, foldFn, bool) {
	switch k {
	case binAdd:
		return accAdd[T], foldSum[T], true
	case binMul:
		return accMul[T], foldMul[T], true
	case binMax, binMin:
		return scalarKernels(k, dt)
	}
	return nil, nil, false
}

// The loops below are written out per op so that the op inlines.

func accAdd[T numT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	if dS == 1 && sS == 1 {
		dd, ss := d[dOff:dOff+n], s[sOff:sOff+n]
		j := 0
		for ; j+4 <= len(dd) && j+4 <= len(ss); j += 4 {
			a, b := dd[j:j+4:j+4], ss[j:j+4:j+4]
			a[0] += b[0]
			a[1] += b[1]
			a[2] += b[2]
			a[3] += b[3]
		}
		for ; j < len(dd); j++ {
			dd[j] += ss[j]
		}
		return
	}
	for j := 0; j < n; j++ {
		d[dOff] += s[sOff]
		dOff += dS
		sOff += sS
	}
}

func accMul[T numT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	if dS == 1 && sS == 1 {
		dd, ss := d[dOff:dOff+n], s[sOff:sOff+n]
		for j := range dd {
			dd[j] *= ss[j]
		}
		return
	}
	for j := 0; j < n; j++ {
		d[dOff] *= s[sOff]
		dOff += dS
		sOff += sS
	}
}

func accAnd[T intT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] &= s[sOff]
		dOff += dS
		sOff += sS
	}
}

func accOr[T intT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] |= s[sOff]
		dOff += dS
		sOff += sS
	}
}

func accXor[T intT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] ^= s[sOff]
		dOff += dS
		sOff += sS
	}
}

func accIMax[T intT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] = max(d[dOff], s[sOff])
		dOff += dS
		sOff += sS
	}
}

func accIMin[T intT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] = min(d[dOff], s[sOff])
		dOff += dS
		sOff += sS
	}
}

// fmax and fmin are IEEE-754 maximum and minimum (NaN wins, -0 < +0),
// which is what Go's builtins compute for floats.
func fmax[T floatT](a, b T) T { return max(a, b) }

func fmin[T floatT](a, b T) T { return min(a, b) }

func accFMax[T floatT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] = fmax(d[dOff], s[sOff])
		dOff += dS
		sOff += sS
	}
}

func accFMin[T floatT](dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
	d, s := asT[T](dst), asT[T](src)
	for j := 0; j < n; j++ {
		d[dOff] = fmin(d[dOff], s[sOff])
		dOff += dS
		sOff += sS
	}
}

// foldBlocks is the run length from which folds keep four independent
// partial results (one per contiguous quarter) to hide the op's latency.
const foldBlocks = 64

func foldAdd[T numT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	if n >= foldBlocks {
		q := n / 4
		a, b, c, e := s[:q], s[q:2*q], s[2*q:3*q], s[3*q:]
		s0, s1, s2, s3 := a[0], b[0], c[0], e[0]
		for i := 1; i < q; i++ {
			s0 += a[i]
			s1 += b[i]
			s2 += c[i]
			s3 += e[i]
		}
		for _, v := range e[q:] {
			s3 += v
		}
		d[dOff] = acc + s0 + s1 + s2 + s3
		return
	}
	for _, v := range s {
		acc += v
	}
	d[dOff] = acc
}

func foldMul[T numT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc *= v
	}
	d[dOff] = acc
}

func foldAnd[T intT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc &= v
	}
	d[dOff] = acc
}

func foldOr[T intT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc |= v
	}
	d[dOff] = acc
}

func foldXor[T intT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc ^= v
	}
	d[dOff] = acc
}

func foldIMax[T intT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc = max(acc, v)
	}
	d[dOff] = acc
}

func foldIMin[T intT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc = min(acc, v)
	}
	d[dOff] = acc
}

func foldFMax[T floatT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc = fmax(acc, v)
	}
	d[dOff] = acc
}

func foldFMin[T floatT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	for _, v := range s {
		acc = fmin(acc, v)
	}
	d[dOff] = acc
}

// scalarKernels covers element types without a native Go type (f16, bf16,
// f8, f6, f4, tf32, sub-byte integers) and complex max/min: each step
// decodes both elements, applies the op exactly in float64/int64/complex128
// and rounds back to the element type, which is the op's result in that
// type.
func scalarKernels(k binKind, dt hlo.DType) (accFn, foldFn, bool) {
	step, ok := scalarStep(k, dt)
	if !ok {
		return nil, nil, false
	}
	es := dt.Size()
	acc := func(dst []byte, dOff, dS int, src []byte, sOff, sS, n int) {
		for j := 0; j < n; j++ {
			step(dst[dOff*es:dOff*es+es], src[sOff*es:sOff*es+es])
			dOff += dS
			sOff += sS
		}
	}
	fold := func(dst []byte, dOff int, src []byte, sOff, n int) {
		acc(dst, dOff, 0, src, sOff, 1, n)
	}
	return acc, fold, true
}

// scalarStep returns a = op(a, b) on single elements of dt.
func scalarStep(k binKind, dt hlo.DType) (func(a, b []byte), bool) {
	switch {
	case dt.IsComplex():
		if k != binMax && k != binMin && k != binAdd && k != binMul {
			return nil, false
		}
		return func(a, b []byte) {
			la, lb := hlo.Literal{DType: dt, Data: a}, hlo.Literal{DType: dt, Data: b}
			x, y := la.Complex(0), lb.Complex(0)
			switch k {
			case binAdd:
				x += y
			case binMul:
				x *= y
			// Lexicographic on (real, imag); when the comparison is false
			// (equal, or NaN) the right operand wins, as the elementwise ops.
			case binMax:
				if !(real(x) > real(y) || (real(x) == real(y) && imag(x) > imag(y))) {
					x = y
				}
			case binMin:
				if !(real(x) < real(y) || (real(x) == real(y) && imag(x) < imag(y))) {
					x = y
				}
			}
			la.SetComplex(0, x)
		}, true
	case dt.IsFloat():
		var f func(x, y float64) float64
		switch k {
		case binAdd:
			f = func(x, y float64) float64 { return x + y }
		case binMul:
			f = func(x, y float64) float64 { return x * y }
		case binMax:
			f = fmax[float64]
		case binMin:
			f = fmin[float64]
		default:
			return nil, false
		}
		return func(a, b []byte) {
			la, lb := hlo.Literal{DType: dt, Data: a}, hlo.Literal{DType: dt, Data: b}
			la.SetFloat(0, f(la.Float(0), lb.Float(0)))
		}, true
	case dt.IsInt():
		var f func(x, y int64) int64
		switch k {
		case binAdd:
			f = func(x, y int64) int64 { return x + y }
		case binMul:
			f = func(x, y int64) int64 { return x * y }
		case binMax:
			f = func(x, y int64) int64 { return max(x, y) }
		case binMin:
			f = func(x, y int64) int64 { return min(x, y) }
		case binAnd:
			f = func(x, y int64) int64 { return x & y }
		case binOr:
			f = func(x, y int64) int64 { return x | y }
		case binXor:
			f = func(x, y int64) int64 { return x ^ y }
		default:
			return nil, false
		}
		// Sub-byte and narrow types: Int sign- or zero-extends, so max/min
		// compare correctly and SetInt wraps the result to the width.
		return func(a, b []byte) {
			la, lb := hlo.Literal{DType: dt, Data: a}, hlo.Literal{DType: dt, Data: b}
			la.SetInt(0, f(la.Int(0), lb.Int(0)))
		}, true
	}
	return nil, false
}

// rowsFn folds nRows source rows (row stride rs, n contiguous elements
// each) into a contiguous destination row: for each j, dst[dOff+j] =
// op(…op(dst[dOff+j], src[sOff+j])…, src[sOff+(nRows-1)·rs+j]), the same
// order as nRows accFn calls but with one pass over dst per four rows.
type rowsFn func(dst []byte, dOff int, src []byte, sOff, rs, nRows, n int)

// rowsKernel returns the multi-row kernel of k over dt, or nil (the caller
// then loops over accFn).
func rowsKernel(k binKind, dt hlo.DType) rowsFn {
	if k != binAdd {
		return nil
	}
	switch dt {
	case hlo.F32:
		return addRows[float32]
	case hlo.F64:
		return addRows[float64]
	case hlo.I32:
		return addRows[int32]
	case hlo.I64:
		return addRows[int64]
	}
	return nil
}

func addRows[T numT](dst []byte, dOff int, src []byte, sOff, rs, nRows, n int) {
	addRowsT(asT[T](dst)[dOff:dOff+n], asT[T](src), sOff, rs, nRows)
}

// addRowsT adds nRows rows of s (the first at sOff, row stride rs) to d,
// row by row in order.
func addRowsT[T numT](d, s []T, sOff, rs, nRows int) {
	n := len(d)
	r := 0
	for ; r+4 <= nRows; r += 4 {
		o := sOff + r*rs
		r0, r1, r2, r3 := s[o:o+n], s[o+rs:o+rs+n], s[o+2*rs:o+2*rs+n], s[o+3*rs:o+3*rs+n]
		r0, r1, r2, r3 = r0[:len(d)], r1[:len(d)], r2[:len(d)], r3[:len(d)]
		for j := range d {
			d[j] = d[j] + r0[j] + r1[j] + r2[j] + r3[j]
		}
	}
	for ; r < nRows; r++ {
		o := sOff + r*rs
		row := s[o : o+n][:len(d)]
		for j := range d {
			d[j] += row[j]
		}
	}
}
