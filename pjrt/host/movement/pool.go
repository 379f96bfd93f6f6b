package movement

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Pooling windows. Almost every reduce_window and select_and_scatter a
// program holds is a pooling layer: a window over one or two adjacent
// dimensions (H and W of NCHW or NHWC, or one axis), no dilation, with
// every other dimension passed through. Such an op is planned as planes: an
// operand seen as [outer, h, w, inner], where outer and inner are the
// passed-through dimensions before and after the window. Each output row
// then reads whole input rows with fixed strides, and the window loops run
// without the generic per-element offset tables. Every output element folds
// its window in the order the generic path uses (row-major, padding as the
// init value), so both give the same bits.

// usePoolPlanes enables the plane path (tests switch it off to compare it
// with the generic path).
var usePoolPlanes = true

// poolShape is a window over dimensions [d0, d1] of an operand viewed as
// [outer, h, w, inner] (h is 1 for a window over one dimension).
type poolShape struct {
	outer, h, w, inner int
	kh, kw, sh, sw     int // window and strides
	ph, pw             int // low padding
	oh, ow             int // output extents
}

// planPool returns the plane view of a window over an operand of shape in,
// or nil when the window is not a pooling window (dilated, negatively
// padded, or over dimensions that are not adjacent).
func planPool(in []int64, a *windowAttrs, out []int64) *poolShape {
	if !usePoolPlanes {
		return nil
	}
	r := len(in)
	var wd []int
	for d := 0; d < r; d++ {
		if a.baseDil[d] != 1 || a.winDil[d] != 1 || a.lo[d] < 0 || a.hi[d] < 0 {
			return nil
		}
		if a.win[d] != 1 || a.strides[d] != 1 || a.lo[d] != 0 || a.hi[d] != 0 {
			wd = append(wd, d)
		}
	}
	if len(wd) == 0 || len(wd) > 2 || (len(wd) == 2 && wd[1] != wd[0]+1) {
		return nil
	}
	first, last := wd[0], wd[len(wd)-1]
	p := &poolShape{outer: 1, h: 1, inner: 1, kh: 1, sh: 1, oh: 1}
	for d := 0; d < first; d++ {
		p.outer *= int(in[d])
	}
	for d := last + 1; d < r; d++ {
		p.inner *= int(in[d])
	}
	if len(wd) == 2 {
		p.h, p.kh, p.sh, p.ph, p.oh = int(in[first]), int(a.win[first]), int(a.strides[first]), int(a.lo[first]), int(out[first])
	}
	p.w, p.kw, p.sw, p.pw, p.ow = int(in[last]), int(a.win[last]), int(a.strides[last]), int(a.lo[last]), int(out[last])
	return p
}

// cols returns the output columns [x0, x1) whose window column kj falls
// inside the operand (the others read padding).
func (p *poolShape) cols(kj int) (x0, x1 int) {
	// x*sw + kj - pw in [0, w)
	off := kj - p.pw
	if off < 0 {
		x0 = (-off + p.sw - 1) / p.sw
	}
	if p.w-1-off >= 0 {
		x1 = (p.w-1-off)/p.sw + 1
	}
	x0, x1 = min(x0, p.ow), min(max(x1, 0), p.ow)
	if x1 < x0 {
		x1 = x0
	}
	return x0, x1
}

// outSize is the number of output elements.
func (p *poolShape) outSize() int { return p.outer * p.oh * p.ow * p.inner }

// reduceRows computes output rows [lo, hi) (a row is one (outer, y) pair)
// of a reduce_window whose body is acc: out must hold the init value, which
// is folded in again for every window position in padding.
func (p *poolShape) reduceRows(acc accFn, out, in, init []byte, lo, hi int) {
	rowLen := p.ow * p.inner
	for row := lo; row < hi; row++ {
		o, y := row/p.oh, row%p.oh
		dOff := row * rowLen
		for ki := 0; ki < p.kh; ki++ {
			ih := y*p.sh + ki - p.ph
			if ih < 0 || ih >= p.h {
				for kj := 0; kj < p.kw; kj++ {
					acc(out, dOff, 1, init, 0, 0, rowLen)
				}
				continue
			}
			sRow := (o*p.h + ih) * p.w * p.inner
			for kj := 0; kj < p.kw; kj++ {
				x0, x1 := p.cols(kj)
				if x0 > 0 {
					acc(out, dOff, 1, init, 0, 0, x0*p.inner)
				}
				if x1 < p.ow {
					acc(out, dOff+x1*p.inner, 1, init, 0, 0, (p.ow-x1)*p.inner)
				}
				if x1 <= x0 {
					continue
				}
				s := sRow + (x0*p.sw+kj-p.pw)*p.inner
				if p.inner == 1 {
					acc(out, dOff+x0, 1, in, s, p.sw, x1-x0)
					continue
				}
				for x := x0; x < x1; x++ {
					acc(out, dOff+x*p.inner, 1, in, s, 1, p.inner)
					s += p.sw * p.inner
				}
			}
		}
	}
}

// runReducePool is reduce_window with one input and a typed body over the
// planes of p.
func (ro *reduceWindowOp) runReducePool(x *kernel.Ctx, p *poolShape, in, init *hlo.Literal, results []kernel.Value) error {
	dt := ro.outT[0].DType
	out := newOut(x, dt, ro.outT[0].Dims)
	es := dt.Size()
	iv := init.Data[:es]
	k := ro.body.kind
	typed := typed2x2(p, k, dt)
	if !typed {
		kernel.Fill(out.Data, iv)
	}
	rows := p.outer * p.oh
	work := max(1, p.ow*p.inner*p.kh*p.kw)
	j := getPoolJob(x, p, reducePoolRows)
	j.ro, j.out, j.in, j.iv, j.typed = ro, out, in, iv, typed
	err := j.loop(rows, max(1, 16384/work), ro.op)
	j.put()
	if err != nil {
		return err
	}
	results[0] = out
	return nil
}

// selectPlanes runs select_and_scatter over planes [lo, hi) of p (a plane
// is one outer index: windows never cross planes): out must hold the init
// value. Sources are visited in order within a plane, as the generic path
// visits them, so overlapping windows add in the same order.
func (p *poolShape) selectPlanes(sel elemCmp, acc accFn, out, operand, source []byte, lo, hi int) {
	for o := lo; o < hi; o++ {
		for y := 0; y < p.oh; y++ {
			for xo := 0; xo < p.ow; xo++ {
				s := ((o*p.oh+y)*p.ow + xo) * p.inner
				for c := 0; c < p.inner; c++ {
					chosen := -1
					for ki := 0; ki < p.kh; ki++ {
						ih := y*p.sh + ki - p.ph
						if ih < 0 || ih >= p.h {
							continue
						}
						rowOff := (o*p.h + ih) * p.w
						for kj := 0; kj < p.kw; kj++ {
							iw := xo*p.sw + kj - p.pw
							if iw < 0 || iw >= p.w {
								continue
							}
							off := (rowOff+iw)*p.inner + c
							if chosen < 0 || !sel(operand, chosen, operand, off) {
								chosen = off
							}
						}
					}
					if chosen >= 0 {
						acc(out, chosen, 0, source, s+c, 0, 1)
					}
				}
			}
		}
	}
}

// selectPlanesT is selectPlanes for a float operand and source of type T
// with a FLOAT comparison dir (GE, GT, LE or LT) or PyTorch's pooling rule
// (MAXNAN, MINNAN) and an add scatter. It
// walks the window positions in order for a whole output row at a time,
// keeping each output's choice as an operand index that a comparison
// replaces without a branch (comparisons of data mispredict often).
func selectPlanesT[T floatT](p *poolShape, dir string, out, operand, source []T, lo, hi int) {
	h, w, inner := p.h, p.w, p.inner
	oh, ow := p.oh, p.ow
	rowLen := ow * inner
	idx := make([]int, rowLen)
	for o := lo; o < hi; o++ {
		plane := o * h * w * inner
		for y := 0; y < oh; y++ {
			top := y*p.sh - p.ph
			k0, k1 := max(0, -top), min(p.kh, h-top)
			first := true
			for ki := k0; ki < k1; ki++ {
				rowOff := plane + (top+ki)*w*inner
				for kj := 0; kj < p.kw; kj++ {
					x0, x1 := p.cols(kj)
					if x0 >= x1 {
						continue
					}
					base := rowOff + (x0*p.sw+kj-p.pw)*inner
					step := p.sw * inner
					if first {
						// The first position of every window (its top row;
						// the leftmost column inside the operand), -1 for
						// windows wholly in padding.
						for xo := 0; xo < ow; xo++ {
							j := max(0, p.pw-xo*p.sw)
							iw := xo*p.sw + j - p.pw
							for c := 0; c < inner; c++ {
								k := -1
								if j < p.kw && iw < w {
									k = rowOff + iw*inner + c
								}
								idx[xo*inner+c] = k
							}
						}
						first = false
					}
					for c := 0; c < inner; c++ {
						ix := idx[x0*inner+c : x1*inner]
						switch dir {
						case "GE":
							selectGE(ix, inner, operand, base+c, step)
						case "GT":
							selectGT(ix, inner, operand, base+c, step)
						case "LE":
							selectLE(ix, inner, operand, base+c, step)
						case "MAXNAN":
							selectMaxNaN(ix, inner, operand, base+c, step)
						case "MINNAN":
							selectMinNaN(ix, inner, operand, base+c, step)
						default:
							selectLT(ix, inner, operand, base+c, step)
						}
					}
				}
			}
			if first {
				continue // every window lies in padding
			}
			src := source[(o*oh+y)*rowLen : (o*oh+y+1)*rowLen]
			for i, k := range idx {
				if k >= 0 {
					out[k] += src[i]
				}
			}
		}
	}
}

// selectGE replaces ix[i·n] by the offset of operand[off+i·step] when
// !(operand[ix[i·n]] >= that element); selectGT, selectLE and selectLT
// likewise.
func selectGE[T floatT](ix []int, n int, operand []T, off, step int) {
	for i := 0; i < len(ix); i, off = i+n, off+step {
		k := ix[i]
		if !(operand[k] >= operand[off]) {
			k = off
		}
		ix[i] = k
	}
}

func selectGT[T floatT](ix []int, n int, operand []T, off, step int) {
	for i := 0; i < len(ix); i, off = i+n, off+step {
		k := ix[i]
		if !(operand[k] > operand[off]) {
			k = off
		}
		ix[i] = k
	}
}

func selectLE[T floatT](ix []int, n int, operand []T, off, step int) {
	for i := 0; i < len(ix); i, off = i+n, off+step {
		k := ix[i]
		if !(operand[k] <= operand[off]) {
			k = off
		}
		ix[i] = k
	}
}

func selectLT[T floatT](ix []int, n int, operand []T, off, step int) {
	for i := 0; i < len(ix); i, off = i+n, off+step {
		k := ix[i]
		if !(operand[k] < operand[off]) {
			k = off
		}
		ix[i] = k
	}
}

// selectMaxNaN replaces ix[i·n] by the offset of operand[off+i·step] when
// that element is greater than operand[ix[i·n]] or NaN (PyTorch's max
// pooling: the first maximum, or the last NaN); selectMinNaN likewise with
// less.
func selectMaxNaN[T floatT](ix []int, n int, operand []T, off, step int) {
	for i := 0; i < len(ix); i, off = i+n, off+step {
		k := ix[i]
		if v := operand[off]; v > operand[k] || v != v {
			k = off
		}
		ix[i] = k
	}
}

func selectMinNaN[T floatT](ix []int, n int, operand []T, off, step int) {
	for i := 0; i < len(ix); i, off = i+n, off+step {
		k := ix[i]
		if v := operand[off]; v < operand[k] || v != v {
			k = off
		}
		ix[i] = k
	}
}

// runSelectPoolMasked is runSelectPool of 2x2 tiles followed by
// out[i] = a[i] > 0 ? out[i] : c (le: a[i] <= 0 ? c : out[i]), chunk by
// chunk (select_group.go).
func (so *selectScatterOp) runSelectPoolMasked(x *kernel.Ctx, p *poolShape, operand, source, init, a *hlo.Literal, c float32, le bool) (*hlo.Literal, error) {
	out := newOut(x, so.dt, operand.Dims)
	j := getPoolJob(x, p, select2x2Rows)
	defer j.put()
	j.so, j.out, j.in, j.src, j.init, j.mask, j.maskFill, j.maskLE = so, out, operand, source, init, a, c, le
	rows := p.outer * p.oh
	if err := j.loop(rows, max(1, 16384/max(1, 4*p.ow)), so.op); err != nil {
		return nil, err
	}
	return out, nil
}

// runSelectPool is select_and_scatter over the planes of p.
func (so *selectScatterOp) runSelectPool(x *kernel.Ctx, p *poolShape, operand, source, init *hlo.Literal) (*hlo.Literal, error) {
	out := newOut(x, so.dt, operand.Dims)
	es := so.dt.Size()
	j := getPoolJob(x, p, select2x2Rows)
	defer j.put()
	j.so, j.out, j.in, j.src, j.init = so, out, operand, source, init
	if so.typed && p.tiles2x2() {
		rows := p.outer * p.oh
		if err := j.loop(rows, max(1, 16384/max(1, 4*p.ow)), so.op); err != nil {
			return nil, err
		}
		return out, nil
	}
	kernel.Fill(out.Data, init.Data[:es])
	work := max(1, p.oh*p.ow*p.inner*p.kh*p.kw)
	j.body = selectPlaneRows
	if err := j.loop(p.outer, max(1, 16384/work), so.op); err != nil {
		return nil, err
	}
	return out, nil
}
