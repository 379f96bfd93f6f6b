//go:build amd64 && !purego

package movement

import "github.com/xlajit/xlajit/pjrt/host/kernel"

// Implemented in pool2x2_amd64.s: n windows (a multiple of 8 is done; the
// rest is left to the caller) of rows v0 and v1 (2n elements each).

//go:noescape
func select2x2GE(v0, v1, d0, d1, src *float32, n int, init float32)

//go:noescape
func select2x2GT(v0, v1, d0, d1, src *float32, n int, init float32)

//go:noescape
func select2x2LE(v0, v1, d0, d1, src *float32, n int, init float32)

//go:noescape
func select2x2LT(v0, v1, d0, d1, src *float32, n int, init float32)

//go:noescape
func select2x2MaxNaN(v0, v1, d0, d1, src *float32, n int, init float32)

//go:noescape
func select2x2MinNaN(v0, v1, d0, d1, src *float32, n int, init float32)

//go:noescape
func reduce2x2Max(v0, v1, dst *float32, n int, init float32)

//go:noescape
func reduce2x2Add(v0, v1, dst *float32, n int, init float32)

//go:noescape
func reduce2x2MaxRows(in, out *float32, rows, w, ow int, init float32)

//go:noescape
func select2x2GERows(operand, out, src *float32, rows, w, ow int, init float32)

//go:noescape
func select2x2MaxNaNRows(operand, out, src *float32, rows, w, ow int, init float32)

//go:noescape
func maskGT0AVX2(out, a *float32, n int, c float32)

//go:noescape
func maskLE0AVX2(out, a *float32, n int, c float32)

// maskLE0Vec runs maskLE0's vector kernel over the first multiple of 8
// elements and returns how many it did.
func maskLE0Vec(out, a []float32, c float32) int {
	n := len(out) &^ 7
	if !useVec || !hasAVX2 || n == 0 {
		return 0
	}
	_, _ = out[n-1], a[n-1]
	maskLE0AVX2(&out[0], &a[0], n, c)
	return n
}

// maskGT0Vec runs maskGT0's vector kernel over the first multiple of 8
// elements and returns how many it did.
func maskGT0Vec(out, a []float32, c float32) int {
	n := len(out) &^ 7
	if !useVec || !hasAVX2 || n == 0 {
		return 0
	}
	_, _ = out[n-1], a[n-1]
	maskGT0AVX2(&out[0], &a[0], n, c)
	return n
}

// rowsVec is how many of rows window rows of ow windows the row kernels
// do in one call: all when ow >= 8, all but the last when 4 <= ow < 8
// (their last windows spill into the next row), else none.
func rowsVec(rows, w, ow int) int {
	if !useVec || !hasAVX2 || ow < 4 || w != 2*ow {
		return 0
	}
	if ow < 8 {
		return max(rows-1, 0)
	}
	return rows
}

// reduce2x2RowsVec runs a max over the first window rows of in (operand
// rows of w = 2*ow elements) in one call, and returns how many it did.
func reduce2x2RowsVec(k binKind, in, out []float32, rows, w, ow int, init float32) int {
	n := rowsVec(rows, w, ow)
	if k != binMax || n == 0 {
		return 0
	}
	_, _ = in[2*rows*w-1], out[rows*ow-1]
	reduce2x2MaxRows(&in[0], &out[0], n, w, ow, init)
	return n
}

// select2x2RowsVec runs a GE or MAXNAN select_and_scatter over the first
// window rows in one call, and returns how many it did.
func select2x2RowsVec(dir string, operand, out, src []float32, rows, w, ow int, init float32) int {
	n := rowsVec(rows, w, ow)
	if dir != "GE" && dir != "MAXNAN" || n == 0 {
		return 0
	}
	_, _, _ = operand[2*rows*w-1], out[2*rows*w-1], src[rows*ow-1]
	if dir == "MAXNAN" {
		select2x2MaxNaNRows(&operand[0], &out[0], &src[0], n, w, ow, init)
	} else {
		select2x2GERows(&operand[0], &out[0], &src[0], n, w, ow, init)
	}
	return n
}

// hasAVX2 reports AVX2 with the OS saving YMM state.
var hasAVX2 = kernel.CPU.AVX2

// select2x2Vec runs the vector kernel of dir over a window row and returns
// how many windows it did: all when the row has 8 or more (the last eight
// are done again, overlapping: windows do not share elements, so a window
// done twice writes the same results), else none.
func select2x2Vec(dir string, v0, v1, d0, d1, src []float32, init float32) int {
	n := len(src) &^ 7
	if !useVec || !hasAVX2 || n == 0 {
		return 0
	}
	if t := len(src) - 8; n != len(src) && select2x2Vec(dir, v0[2*t:], v1[2*t:], d0[2*t:], d1[2*t:], src[t:], init) == 0 {
		return 0
	}
	_, _, _, _ = v0[2*n-1], v1[2*n-1], d0[2*n-1], d1[2*n-1]
	switch dir {
	case "GE":
		select2x2GE(&v0[0], &v1[0], &d0[0], &d1[0], &src[0], n, init)
	case "GT":
		select2x2GT(&v0[0], &v1[0], &d0[0], &d1[0], &src[0], n, init)
	case "LE":
		select2x2LE(&v0[0], &v1[0], &d0[0], &d1[0], &src[0], n, init)
	case "LT":
		select2x2LT(&v0[0], &v1[0], &d0[0], &d1[0], &src[0], n, init)
	case "MAXNAN":
		select2x2MaxNaN(&v0[0], &v1[0], &d0[0], &d1[0], &src[0], n, init)
	case "MINNAN":
		select2x2MinNaN(&v0[0], &v1[0], &d0[0], &d1[0], &src[0], n, init)
	default:
		return 0
	}
	return len(src)
}

// reduce2x2Vec runs the vector kernel of k (max or add) over a window row
// and returns how many windows it did (as select2x2Vec).
func reduce2x2Vec(k binKind, v0, v1, dst []float32, init float32) int {
	n := len(dst) &^ 7
	if !useVec || !hasAVX2 || n == 0 || k != binMax && k != binAdd {
		return 0
	}
	if t := len(dst) - 8; n != len(dst) {
		reduce2x2Vec(k, v0[2*t:], v1[2*t:], dst[t:], init)
	}
	_, _ = v0[2*n-1], v1[2*n-1]
	switch k {
	case binMax:
		reduce2x2Max(&v0[0], &v1[0], &dst[0], n, init)
	case binAdd:
		reduce2x2Add(&v0[0], &v1[0], &dst[0], n, init)
	}
	return len(dst)
}
