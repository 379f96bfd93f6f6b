package movement

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
)

// The most common pooling layer, 2x2 windows with stride 2 over the two
// innermost dimensions and no padding, tiles its operand exactly: every
// operand element is in one window. Its forward pass folds four values in
// registers, and its gradient writes each window's four results at once
// (the init value, and init + source at the chosen position), so neither
// fills its result first. Values are folded and compared in the generic
// path's order, so results are the same bits.

// useVec enables the vector kernels (pool2x2_amd64.s; tests switch it off
// to compare them with the loops).
var useVec = true

// spill reports whether window row row of a chunk ending at hi, with ow
// windows (4 to 7), runs as eight windows reaching into the next window
// row: operand rows are consecutive (window row r reads operand rows 2r
// and 2r+1), so the extra windows read and write the next window row,
// which the same chunk computes after this one. The chunk's last row
// never does (the next one may be another worker's, or past the end).
func spill(ow, row, hi int) bool { return ow >= 4 && ow < 8 && row+1 < hi }

// tiles2x2 reports whether p is such a window.
func (p *poolShape) tiles2x2() bool {
	return p.inner == 1 && p.kh == 2 && p.kw == 2 && p.sh == 2 && p.sw == 2 && p.ph == 0 && p.pw == 0 &&
		p.h == 2*p.oh && p.w == 2*p.ow
}

// reduce2x2 computes output rows [lo, hi) of a 2x2 stride-2 reduce_window
// of kind k (binAdd, binMax or binMin) with init value init.
func reduce2x2[T floatT](p *poolShape, k binKind, out, in []T, init T, lo, hi int) {
	w, ow := p.w, p.ow
	// Window row r reads operand rows 2r and 2r+1 (h = 2*oh).
	if o, ok := any(out).([]float32); ok {
		lo += reduce2x2RowsVec(k, any(in).([]float32)[2*lo*w:2*hi*w], o[lo*ow:hi*ow], hi-lo, w, ow, any(init).(float32))
	}
	for row := lo; row < hi; row++ {
		o, y := row/p.oh, row%p.oh
		r0 := in[(o*p.h+2*y)*w:][:w]
		r1 := in[(o*p.h+2*y+1)*w:][:w]
		dst := out[row*ow:][:ow]
		done := 0
		if o, ok := any(out).([]float32); ok {
			if spill(ow, row, hi) {
				// Eight windows, the last ones garbage in the next window
				// row (recomputed when the loop gets there).
				i := any(in).([]float32)
				done = reduce2x2Vec(k, i[2*row*w:][:16], i[(2*row+1)*w:][:16], o[row*ow:][:8], any(init).(float32))
				done = min(done, ow)
			} else {
				done = reduce2x2Vec(k, any(r0).([]float32), any(r1).([]float32), any(dst).([]float32), any(init).(float32))
			}
		}
		r0, r1, dst = r0[2*done:], r1[2*done:], dst[done:]
		switch k {
		case binMax:
			for x := range dst {
				dst[x] = max(max(max(max(init, r0[2*x]), r0[2*x+1]), r1[2*x]), r1[2*x+1])
			}
		case binMin:
			for x := range dst {
				dst[x] = min(min(min(min(init, r0[2*x]), r0[2*x+1]), r1[2*x]), r1[2*x+1])
			}
		default:
			for x := range dst {
				dst[x] = init + r0[2*x] + r0[2*x+1] + r1[2*x] + r1[2*x+1]
			}
		}
	}
}

// select2x2 runs a 2x2 stride-2 select_and_scatter with a FLOAT
// comparison dir (or PyTorch's pooling rule, MAXNAN or MINNAN) and an add
// scatter over output rows [lo, hi) (a row of windows): it writes both
// operand rows of each window row.
func select2x2[T floatT](p *poolShape, dir string, out, operand, source []T, init T, lo, hi int) {
	// LE and LT are GE and GT with the operands swapped (false for NaNs
	// either way); MINNAN is MAXNAN with the order comparison swapped.
	gt, swap := dir == "GT" || dir == "LT", dir == "LE" || dir == "LT" || dir == "MINNAN"
	nan := dir == "MAXNAN" || dir == "MINNAN"
	if o, ok := any(out).([]float32); ok {
		select2x2f32(p, dir, gt, swap, nan, o, any(operand).([]float32), any(source).([]float32), any(init).(float32), lo, hi)
		return
	}
	w, ow := p.w, p.ow
	for row := lo; row < hi; row++ {
		o, y := row/p.oh, row%p.oh
		base := (o*p.h + 2*y) * w
		v0, v1 := operand[base:][:w], operand[base+w:][:w]
		d := out[base:][:2*w]
		src := source[row*ow:][:ow]
		for x := range src {
			k := choose4(v0[2*x], v0[2*x+1], v1[2*x], v1[2*x+1], gt, swap, nan)
			d[2*x], d[2*x+1], d[w+2*x], d[w+2*x+1] = init, init, init, init
			// Candidate k is at row k>>1, column k&1 of the window.
			d[(k>>1)*w+2*x+k&1] = init + src[x]
		}
	}
}

// select2x2f32 is select2x2 for float32.
func select2x2f32(p *poolShape, dir string, gt, swap, nan bool, out, operand, source []float32, init float32, lo, hi int) {
	w, ow := p.w, p.ow
	lo += select2x2RowsVec(dir, operand[2*lo*w:2*hi*w], out[2*lo*w:2*hi*w], source[lo*ow:hi*ow], hi-lo, w, ow, init)
	for row := lo; row < hi; row++ {
		o, y := row/p.oh, row%p.oh
		base := (o*p.h + 2*y) * w
		v0, v1 := operand[base:][:w], operand[base+w:][:w]
		d := out[base:][:2*w]
		src := source[row*ow:][:ow]
		var done int
		if spill(ow, row, hi) {
			// Eight windows; the stores of the last ones land in the next
			// window row, which the loop writes afterwards.
			done = min(ow, select2x2Vec(dir, operand[base:][:16], operand[base+w:][:16], out[base:][:16], out[base+w:][:16], source[row*ow:][:8], init))
		} else {
			done = select2x2Vec(dir, v0, v1, d[:w], d[w:], src, init)
		}
		for x := done; x < len(src); x++ {
			k := choose4f32(v0[2*x], v0[2*x+1], v1[2*x], v1[2*x+1], gt, swap, nan)
			d[2*x], d[2*x+1], d[w+2*x], d[w+2*x+1] = init, init, init, init
			d[(k>>1)*w+2*x+k&1] = init + src[x]
		}
	}
}

// choose4 returns the index select_and_scatter chooses among a, b, c, d:
// the current choice is kept while keep(current, candidate) holds, with
// keep GE (gt: GT), operands swapped for LE (LT); with nan, keep is
// PyTorch's pooling rule !(candidate > current || candidate is NaN)
// (swap: <).
func choose4[T floatT](a, b, c, d T, gt, swap, nan bool) int {
	v := [4]T{a, b, c, d}
	k := 0
	for j := 1; j < 4; j++ {
		x, y := v[k], v[j]
		if swap {
			x, y = y, x
		}
		keep := x >= y
		switch {
		case nan:
			keep = !(y > x || v[j] != v[j])
		case gt:
			keep = x > y
		}
		if !keep {
			k = j
		}
	}
	return k
}

// choose4f32 is choose4 for float32 without a data-dependent branch: the
// current value and index are replaced through masks (comparisons of data
// mispredict often, and a mispredicted branch costs more than the window).
func choose4f32(a, b, c, d float32, gt, swap, nan bool) int {
	cur, k := math.Float32bits(a), uint32(0)
	for j, v := range [3]float32{b, c, d} {
		x, y := math.Float32frombits(cur), v
		if swap {
			x, y = y, x
		}
		var keep bool
		switch {
		case nan:
			keep = !(y > x || v != v)
		case gt:
			keep = x > y
		default:
			keep = x >= y
		}
		m := uint32(0)
		if !keep {
			m = ^uint32(0)
		}
		cur ^= (cur ^ math.Float32bits(v)) & m
		k ^= (k ^ uint32(j+1)) & m
	}
	return int(k)
}

// typed2x2 reports whether a reduce_window of body kind k over dt runs as
// reduce2x2.
func typed2x2(p *poolShape, k binKind, dt hlo.DType) bool {
	return p.tiles2x2() && (dt == hlo.F32 || dt == hlo.F64) && (k == binAdd || k == binMax || k == binMin)
}
