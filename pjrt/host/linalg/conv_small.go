package linalg

import (
	"math/bits"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Direct f32 convolutions for few channels. A CNN's first layers have
// 1 to 16 channels on images of 14 to 32 pixels: the products are too
// thin for a GEMM (8 or 16 output channels pad to the micro-kernel's 12
// rows, and packing the windows costs as much as the arithmetic). Two
// schedules compute them straight from zero-padded planes, vectorised
// along the output width:
//
//   - taps (forward and input-gradient convolutions with unit strides): a
//     strip of three 16-wide output vectors (rows of the result, the last
//     of a row masked) times eight output channels is one register tile
//     of 24 accumulators; each step of the kernel loads the strip's input
//     vectors at one tap's offset in the planes (c, ki, kj) and multiplies
//     them by the eight channels' weights of that tap. Nothing is packed
//     but the weights ([taps][8] per block of eight output channels).
//   - wgrad (kernel gradients of 3x3 kernels): for an input channel and two
//     output channels, 18 vector accumulators (one per output channel and
//     tap) run over every output-gradient row of a chunk of images: each
//     16-wide gradient vector is multiplied by the nine input vectors under
//     it. The lanes are summed once at the end, and the images are cut into
//     a fixed number of chunks whose sums are added in order, so results do
//     not depend on the number of cores.
//
// The kernels are AVX-512 assembly; the Go loops beside them compute the
// same sums in the same order of taps (tests force them). Without
// AVX-512 the schedules are not chosen: the GEMM paths are faster than the
// scalar loops.

// useSmallConv enables the small-channel schedules (tests switch it off
// to compare); forceSmallGo runs them with the Go loops.
var (
	useSmallConv = true
	forceSmallGo = false
)

// tapStrip is a strip of three output vectors: per vector, the planes
// offset of its first element's (0, 0) tap, its offset in a result plane,
// and its lane mask (zero: no vector). The assembly reads it by offset.
type tapStrip struct {
	in, out [3]int
	mask    [3]uint64
}

// tapsConv is the taps schedule of a convolution.
type tapsConv struct {
	n, c, o     int // batch, input and output features
	h, w        int // input extents (h = 1 for 1-D)
	hp, wp      int // padded extents
	ph, pw      int // low padding
	oh, ow      int // output extents
	lB, lC      int // lhs batch and feature strides
	lH, lW      int // lhs spatial strides
	rO, rI      int // rhs output and input feature strides
	kIdx        []int
	oB, oO      int // result batch and feature strides
	plane       int // elements of one padded plane
	planeLen    int // the planes of one batch entry with their slack
	taps        int // c * kernel positions
	tapOff      []int32
	blocks      int // blocks of eight output channels
	strips      []tapStrip
	kernelCount int
}

// smallMaxPlanes bounds the padded planes of one batch entry (elements):
// the taps of a strip read all of them, which must stay in the L2 cache.
const smallMaxPlanes = 1 << 16

// planTaps returns the taps schedule of p, or nil.
func planTaps(p *convPlan, lt, rt, ot *hlo.TensorType, a *convAttrs) *tapsConv {
	dn := a.dn
	s := len(dn.InputSpatialDims)
	if !smallConvOK(p, lt, rt, ot) || s < 1 || s > 2 || p.groups != 1 {
		return nil
	}
	for i := 0; i < s; i++ {
		if a.strides[i] != 1 || a.lhsDil[i] != 1 || a.padding[i][0] < 0 || a.padding[i][1] < 0 {
			return nil
		}
	}
	ls, rs, os := kernel.Strides(lt.Dims), kernel.Strides(rt.Dims), kernel.Strides(ot.Dims)
	last := s - 1
	// The result's planes must be contiguous rows: spatial dimensions
	// innermost, in order.
	for i, d := range dn.OutputSpatialDims {
		if int(d) != ot.Rank()-s+i {
			return nil
		}
	}
	t := &tapsConv{n: p.n, c: p.c, o: p.o, h: 1, hp: 1, oh: 1,
		lB: int(ls[dn.InputBatchDim]), lC: int(ls[dn.InputFeatureDim]),
		rO: int(rs[dn.KernelOutputFeatureDim]), rI: int(rs[dn.KernelInputFeatureDim]),
		oB: int(os[dn.OutputBatchDim]), oO: int(os[dn.OutputFeatureDim])}
	kh, kw, dy, dx := 1, int(rt.Dims[dn.KernelSpatialDims[last]]), 1, int(a.rhsDil[last])
	if s == 2 {
		t.h, t.lH = int(lt.Dims[dn.InputSpatialDims[0]]), int(ls[dn.InputSpatialDims[0]])
		t.ph = int(a.padding[0][0])
		t.hp = t.h + t.ph + int(a.padding[0][1])
		t.oh = int(ot.Dims[dn.OutputSpatialDims[0]])
		kh, dy = int(rt.Dims[dn.KernelSpatialDims[0]]), int(a.rhsDil[0])
	}
	t.w, t.lW = int(lt.Dims[dn.InputSpatialDims[last]]), int(ls[dn.InputSpatialDims[last]])
	t.pw = int(a.padding[last][0])
	t.wp = t.w + t.pw + int(a.padding[last][1])
	t.ow = int(ot.Dims[dn.OutputSpatialDims[last]])
	t.plane = t.hp * t.wp
	t.taps = t.c * kh * kw
	if t.ow < 8 || t.oh == 0 || t.c*t.plane > smallMaxPlanes || t.taps > 4096 || t.o > 1024 {
		return nil
	}
	t.kIdx = make([]int, kh*kw)
	t.tapOff = make([]int32, t.taps)
	for ki := 0; ki < kh; ki++ {
		for kj := 0; kj < kw; kj++ {
			k := ki*kw + kj
			if s == 2 {
				t.kIdx[k] = ki * int(rs[dn.KernelSpatialDims[0]])
			}
			t.kIdx[k] += kj * int(rs[dn.KernelSpatialDims[last]])
			ri, rj := ki, kj
			if s == 2 && a.reversal[0] {
				ri = kh - 1 - ki
			}
			if a.reversal[last] {
				rj = kw - 1 - kj
			}
			for c := 0; c < t.c; c++ {
				t.tapOff[c*kh*kw+k] = int32(c*t.plane + ri*dy*t.wp + rj*dx)
			}
		}
	}
	t.blocks = ceilDiv(t.o, 8)
	var vecs []tapStrip // one vector each, merged below
	for y := 0; y < t.oh; y++ {
		for x0 := 0; x0 < t.ow; x0 += 16 {
			n := min(16, t.ow-x0)
			vecs = append(vecs, tapStrip{in: [3]int{y*t.wp + x0}, out: [3]int{y*t.ow + x0}, mask: [3]uint64{1<<n - 1}})
		}
	}
	for i := 0; i < len(vecs); i += 3 {
		var st tapStrip
		for r := 0; r < 3; r++ {
			v := vecs[min(i+r, len(vecs)-1)] // a missing vector repeats the last, masked off
			st.in[r], st.out[r] = v.in[0], v.out[0]
			if i+r < len(vecs) {
				st.mask[r] = v.mask[0]
			}
		}
		t.strips = append(t.strips, st)
	}
	// The last strip's vectors read up to 16 lanes past the last output
	// position, at the largest tap offset.
	maxOff := int32(0)
	for _, o := range t.tapOff {
		maxOff = max(maxOff, o)
	}
	t.planeLen = max(t.c*t.plane, int(maxOff)+(t.oh-1)*t.wp+roundUp(t.ow, 16)) + 16
	return t
}

// smallConvOK reports whether p is an f32 convolution the small-channel
// kernels may run.
func smallConvOK(p *convPlan, lt, rt, ot *hlo.TensorType) bool {
	return useSmallConv && (tapsKernel != nil || forceSmallGo) && p.kind == dotF32 &&
		lt.DType == hlo.F32 && rt.DType == hlo.F32 && ot.DType == hlo.F32
}

// runTaps computes the convolution of lhs and rhs into out, plus bias
// (per output feature) when not nil, and max(out, +0) into relu when not
// nil.
func runTaps(t *tapsConv, lhs, rhs, out, bias, relu []float32) {
	// W packed as [block][tap][8], channels past o zero, then the bias
	// as [block][8].
	w, scr := scratch[float32](t.blocks*t.taps*8 + t.blocks*8)
	defer putScratch(scr)
	var bp []float32
	if bias != nil {
		bp = w[t.blocks*t.taps*8:]
		copy(bp, bias[:t.o])
		clear(bp[t.o:])
	}
	kk := len(t.kIdx)
	for b := 0; b < t.blocks; b++ {
		for o8 := 0; o8 < 8; o8++ {
			o := b*8 + o8
			dst := w[b*t.taps*8:]
			if o >= t.o {
				for tp := 0; tp < t.taps; tp++ {
					dst[tp*8+o8] = 0
				}
				continue
			}
			for c := 0; c < t.c; c++ {
				src := o*t.rO + c*t.rI
				for k, off := range t.kIdx {
					dst[(c*kk+k)*8+o8] = rhs[src+off]
				}
			}
		}
	}
	j := smallJobs.Get().(*smallJob)
	j.taps, j.lhs, j.out, j.packed, j.bias, j.relu = t, lhs, out, w, bp, relu
	kernel.ParallelFor(t.n, 1, j.fn)
	j.release()
}

// tapsTasks is runTaps's loop body: batch entries [lo, hi).
func tapsTasks(j *smallJob, lo, hi int) {
	t, lhs, out, w := j.taps, j.lhs, j.out, j.packed
	planes, scr := scratch[float32](t.planeLen)
	defer putScratch(scr)
	clear(planes[t.c*t.plane:])
	kern := tapsKernel
	if kern == nil || forceSmallGo {
		kern = tapsGo
	}
	for b := lo; b < hi; b++ {
		for c := 0; c < t.c; c++ {
			padPlane(planes[c*t.plane:(c+1)*t.plane], lhs, b*t.lB+c*t.lC, t.lH, t.lW, t.h, t.w, t.ph, t.pw, t.wp)
		}
		for blk := 0; blk < t.blocks; blk++ {
			no := min(8, t.o-blk*8)
			ob := out[b*t.oB+blk*8*t.oO:]
			wb := w[blk*t.taps*8 : (blk+1)*t.taps*8]
			var bb []float32
			if j.bias != nil {
				bb = j.bias[blk*8 : (blk+1)*8]
			}
			var rb []float32
			if j.relu != nil {
				rb = j.relu[b*t.oB+blk*8*t.oO:]
			}
			kern(t.taps, t.tapOff, wb, planes, t.strips, ob, t.oO, no, bb, rb)
		}
	}
}

// padPlane writes the zero-padded plane (rows of width wp) of the lhs
// plane at base (strides lH, lW, extents h x w, low padding ph, pw) into
// dst.
func padPlane(dst, lhs []float32, base, lH, lW, h, w, ph, pw, wp int) {
	if lW == 1 && padPlaneKernel != nil && !forceSmallGo {
		padPlaneKernel(dst, lhs[base:], h, w, lH, wp, ph*wp+pw)
		return
	}
	hp := len(dst) / wp
	for y := 0; y < hp; y++ {
		row := dst[y*wp : (y+1)*wp : (y+1)*wp]
		sy := y - ph
		if sy < 0 || sy >= h {
			for x := range row {
				row[x] = 0
			}
			continue
		}
		for x := 0; x < pw; x++ {
			row[x] = 0
		}
		for x := pw + w; x < wp; x++ {
			row[x] = 0
		}
		at := base + sy*lH
		if lW == 1 {
			copy(row[pw:pw+w], lhs[at:at+w])
			continue
		}
		for x := 0; x < w; x++ {
			row[pw+x] = lhs[at+x*lW]
		}
	}
}

// padPlaneKernel, when set, is padPlane for contiguous rows: it zeroes dst
// and copies h rows of w elements from src (rows lH apart) to dst from
// first on (rows wp apart).
var padPlaneKernel func(dst, src []float32, h, w, lH, wp, first int)

// tapsFunc computes strips for up to eight output channels: for each
// strip st, vector r of st and lane l under its mask, and each channel
// o < no, out[o*ostride + st.out[r] + l] = sum over taps tp of
// w[tp*8+o] * in[st.in[r] + l + off[tp]], the taps added in order, then
// bias[o] added when bias is not nil; relu, when not nil (as long as
// out), receives Go's max(v, +0) of each value v stored in out, at the
// same offset.
type tapsFunc func(taps int, off []int32, w, in []float32, strips []tapStrip, out []float32, ostride, no int, bias, relu []float32)

// tapsKernel is the assembly kernel, nil when the CPU has none.
var tapsKernel tapsFunc

// tapsGo is the Go form of tapsKernel.
func tapsGo(taps int, off []int32, w, in []float32, strips []tapStrip, out []float32, ostride, no int, bias, relu []float32) {
	for i := range strips {
		tapsGoStrip(taps, off, w, in, &strips[i], out, ostride, no, bias, relu)
	}
}

func tapsGoStrip(taps int, off []int32, w, in []float32, st *tapStrip, out []float32, ostride, no int, bias, relu []float32) {
	off, w = off[:taps], w[:taps*8]
	for r := 0; r < 3; r++ {
		m := st.mask[r]
		for l := 0; l < 16; l++ {
			if m>>l&1 == 0 {
				continue
			}
			src := in[st.in[r]+l:]
			for o := 0; o < no; o++ {
				var s float32
				for tp, d := range off {
					s += w[tp*8+o] * src[d]
				}
				if bias != nil {
					s += bias[o]
				}
				out[o*ostride+st.out[r]+l] = s
				if relu != nil {
					relu[o*ostride+st.out[r]+l] = max(s, 0)
				}
			}
		}
	}
}

// wgradConv is the wgrad schedule: the kernel gradient of a 3x3
// convolution with unit strides and dilations along its last dimension.
// In the convolution's own terms the lhs is the layer's input (features:
// the images, batch: its channels), the rhs the output gradient
// (input features: the images, output features: the layer's outputs,
// spatial: the output positions), and the result the kernel gradient
// (batch: channels, features: outputs, spatial: the 3x3 taps).
type wgradConv struct {
	n, c, o    int // images, input channels, output channels
	h, w       int // input extents
	hp, wp     int // padded extents
	ph, pw     int // low padding
	oh, ow     int // output-gradient extents
	sy, dy     int // the layer's stride and dilation along the rows
	lN, lC     int // lhs image and channel strides
	lH, lW     int
	gN, gO, gH int // output-gradient strides (the last dimension is contiguous)
	rC, rO     int // result channel and output strides
	rK         [9]int
	plane      int // elements of one padded plane
	chunk      int // images per chunk
	chunks     int // image chunks (fixed: results do not depend on the cores)
	nxv        int // 16-wide vectors per output-gradient row
	mask       uint64
}

// wgradChunk bounds the images summed in one pass of the kernel (each
// pass ends in lane sums, which cost as much as a few rows).
const wgradChunk = 32

// planWgrad returns the wgrad schedule of p, or nil.
func planWgrad(p *convPlan, lt, rt, ot *hlo.TensorType, a *convAttrs) *wgradConv {
	dn := a.dn
	if !smallConvOK(p, lt, rt, ot) || len(dn.InputSpatialDims) != 2 || p.groups != 1 || p.kSp <= p.outSp {
		return nil
	}
	// Output spatial: the 3x3 taps; kernel spatial: the output gradient.
	if ot.Dims[dn.OutputSpatialDims[0]] != 3 || ot.Dims[dn.OutputSpatialDims[1]] != 3 {
		return nil
	}
	for i := 0; i < 2; i++ {
		if a.lhsDil[i] != 1 || a.reversal[i] || a.padding[i][0] < 0 || a.padding[i][1] < 0 {
			return nil
		}
	}
	if a.strides[1] != 1 || a.rhsDil[1] != 1 {
		return nil
	}
	ls, rs, os := kernel.Strides(lt.Dims), kernel.Strides(rt.Dims), kernel.Strides(ot.Dims)
	g := &wgradConv{n: p.c, c: p.n, o: p.o, sy: int(a.rhsDil[0]), dy: int(a.strides[0]),
		h: int(lt.Dims[dn.InputSpatialDims[0]]), w: int(lt.Dims[dn.InputSpatialDims[1]]),
		ph: int(a.padding[0][0]), pw: int(a.padding[1][0]),
		oh: int(rt.Dims[dn.KernelSpatialDims[0]]), ow: int(rt.Dims[dn.KernelSpatialDims[1]]),
		lN: int(ls[dn.InputFeatureDim]), lC: int(ls[dn.InputBatchDim]),
		lH: int(ls[dn.InputSpatialDims[0]]), lW: int(ls[dn.InputSpatialDims[1]]),
		gN: int(rs[dn.KernelInputFeatureDim]), gO: int(rs[dn.KernelOutputFeatureDim]), gH: int(rs[dn.KernelSpatialDims[0]]),
		rC: int(os[dn.OutputBatchDim]), rO: int(os[dn.OutputFeatureDim])}
	if rs[dn.KernelSpatialDims[1]] != 1 || g.gH < g.ow || g.ow < 8 {
		return nil
	}
	g.hp = g.h + g.ph + int(a.padding[0][1])
	g.wp = g.w + g.pw + int(a.padding[1][1])
	g.plane = g.hp * g.wp
	// A chunk's planes stay in the L2 cache.
	g.chunk = min(wgradChunk, smallMaxPlanes/(g.plane+16))
	if g.chunk == 0 {
		return nil
	}
	for ki := 0; ki < 3; ki++ {
		for kj := 0; kj < 3; kj++ {
			g.rK[ki*3+kj] = ki*int(os[dn.OutputSpatialDims[0]]) + kj*int(os[dn.OutputSpatialDims[1]])
		}
	}
	g.chunks = ceilDiv(g.n, g.chunk)
	g.nxv = ceilDiv(g.ow, 16)
	g.mask = 1<<(g.ow-(g.nxv-1)*16) - 1
	return g
}

// wgradFunc accumulates into acc (18 vectors of 16: output channel o of
// the pair, tap t at (o*9+t)*16) the products of the output gradients of
// two channels (g and g+gO) with the padded input planes under them, for
// nimg images (strides gN and inN), oh rows (g rows gH apart, input rows
// inRow apart, tap rows dyRow apart) of nxv vectors (the last masked by
// mask).
type wgradFunc func(acc []float32, nimg, oh, nxv int, mask uint64, g []float32, gN, gH, gO int, in []float32, inN, inRow, dyRow int)

// wgradKernel is the assembly kernel, nil when the CPU has none.
var wgradKernel wgradFunc

// wgradGo is the Go form of wgradKernel.
func wgradGo(acc []float32, nimg, oh, nxv int, mask uint64, g []float32, gN, gH, gO int, in []float32, inN, inRow, dyRow int) {
	acc = acc[:18*16]
	for n := 0; n < nimg; n++ {
		for y := 0; y < oh; y++ {
			for xv := 0; xv < nxv; xv++ {
				m := uint64(0xffff)
				if xv == nxv-1 {
					m = mask
				}
				gb := n*gN + y*gH + xv*16
				ib := n*inN + y*inRow + xv*16
				for l := 0; l < 16; l++ {
					if m>>l&1 == 0 {
						continue
					}
					g0, g1 := g[gb+l], g[gb+gO+l]
					for ki := 0; ki < 3; ki++ {
						for kj := 0; kj < 3; kj++ {
							x := in[ib+ki*dyRow+kj+l]
							acc[(ki*3+kj)*16+l] += g0 * x
							acc[(9+ki*3+kj)*16+l] += g1 * x
						}
					}
				}
			}
		}
	}
}

// runWgrad computes the kernel gradient of lhs and rhs into out.
func runWgrad(g *wgradConv, lhs, rhs, out []float32) {
	// part[chunk][o][c][9]: each chunk's sums.
	size := g.o * g.c * 9
	part, scr := scratch[float32](g.chunks * size)
	defer putScratch(scr)
	j := smallJobs.Get().(*smallJob)
	j.wgrad, j.lhs, j.rhs, j.packed = g, lhs, rhs, part
	kernel.ParallelFor(g.chunks*g.c, 1, j.fn)
	j.release()
	for o := 0; o < g.o; o++ {
		for c := 0; c < g.c; c++ {
			at := (o*g.c + c) * 9
			for t := 0; t < 9; t++ {
				s := part[at+t]
				for ch := 1; ch < g.chunks; ch++ {
					s += part[ch*size+at+t]
				}
				out[o*g.rO+c*g.rC+g.rK[t]] = s
			}
		}
	}
}

// wgradTasks is runWgrad's loop body: tasks [lo, hi), each an image chunk
// and an input channel.
func wgradTasks(j *smallJob, lo, hi int) {
	g, lhs, rhs, part := j.wgrad, j.lhs, j.rhs, j.packed
	inN := g.plane + 16 // each plane followed by slack for the last vectors
	buf, scr := scratch[float32](g.chunk*inN + 18*16)
	defer putScratch(scr)
	planes, acc := buf[:g.chunk*inN], buf[g.chunk*inN:]
	kern := wgradKernel
	if kern == nil || forceSmallGo {
		kern = wgradGo
	}
	size := g.o * g.c * 9
	for task := lo; task < hi; task++ {
		ch, c := task/g.c, task%g.c
		n0 := ch * g.chunk
		nimg := min(g.chunk, g.n-n0)
		for n := 0; n < nimg; n++ {
			pl := planes[n*inN : (n+1)*inN]
			padPlane(pl[:g.plane], lhs, (n0+n)*g.lN+c*g.lC, g.lH, g.lW, g.h, g.w, g.ph, g.pw, g.wp)
			clear(pl[g.plane:])
		}
		for o := 0; o < g.o; o += 2 {
			gO := g.gO
			if o+1 == g.o {
				gO = 0 // an odd last channel pairs with itself
			}
			clear(acc)
			kern(acc, nimg, g.oh, g.nxv, g.mask, rhs[n0*g.gN+o*g.gO:], g.gN, g.gH, gO, planes, inN, g.sy*g.wp, g.dy*g.wp)
			for oo := o; oo < min(o+2, g.o); oo++ {
				dst := part[ch*size+(oo*g.c+c)*9:]
				for t := 0; t < 9; t++ {
					v := acc[((oo-o)*9+t)*16:]
					dst[t] = sumLanes16(v)
				}
			}
		}
	}
}

// sumLanes16 adds 16 lanes pairwise (a fixed order).
func sumLanes16(v []float32) float32 {
	v = v[:16]
	var h [8]float32
	for i := range h {
		h[i] = v[i] + v[i+8]
	}
	for i := 0; i < 4; i++ {
		h[i] += h[i+4]
	}
	return (h[0] + h[2]) + (h[1] + h[3])
}

// smallJob is one parallel loop of a small-channel convolution, pooled
// with its loop function bound once (see convJob).
type smallJob struct {
	taps                  *tapsConv
	wgrad                 *wgradConv
	lhs, rhs, out, packed []float32
	bias                  []float32 // taps: per block of eight channels, or nil
	relu                  []float32 // taps: max(out, +0), or nil
	fn                    func(lo, hi int)
}

var smallJobs = sync.Pool{New: func() any { j := new(smallJob); j.fn = j.run; return j }}

func (j *smallJob) run(lo, hi int) {
	if j.taps != nil {
		tapsTasks(j, lo, hi)
	} else {
		wgradTasks(j, lo, hi)
	}
}

func (j *smallJob) release() {
	fn := j.fn
	*j = smallJob{fn: fn}
	smallJobs.Put(j)
}

// tapRange is the smallest and largest of the taps' offsets, and whether
// the taps fit the weights.
func tapRange(taps int, off []int32, w []float32) (lo, hi int) {
	if taps < 0 || taps > len(off) || taps*8 > len(w) {
		panic("linalg: taps kernel called with short buffers")
	}
	if taps == 0 {
		return 0, 0
	}
	lo, hi = int(off[0]), int(off[0])
	for _, d := range off[:taps] {
		lo, hi = min(lo, int(d)), max(hi, int(d))
	}
	return lo, hi
}

// checkStrip panics unless every element the taps kernel reads or writes
// for strip st lies inside its slices (the assembly's loads are unmasked,
// so every vector of the strip reads 16 lanes), given the taps' offsets
// range lo..hi.
func checkStrip(taps, lo, hi int, in []float32, st *tapStrip, out []float32, ostride, no int) {
	if no < 0 || no > 8 || ostride < 0 {
		panic("linalg: taps kernel called with bad arguments")
	}
	for r := 0; r < 3; r++ {
		if taps > 0 && (st.in[r]+lo < 0 || st.in[r]+hi+16 > len(in)) {
			panic("linalg: taps kernel reads past its planes")
		}
		if m := st.mask[r] & 0xffff; m != 0 && no > 0 {
			top := 63 - bits.LeadingZeros64(m)
			if st.out[r] < 0 || (no-1)*ostride+st.out[r]+top >= len(out) {
				panic("linalg: taps kernel writes past its result")
			}
		}
	}
}

// checkWgrad panics unless every element the wgrad kernel reads or writes
// lies inside its slices (its loads are masked).
func checkWgrad(acc []float32, nimg, oh, nxv int, mask uint64, g []float32, gN, gH, gO int, in []float32, inN, inRow, dyRow int) {
	if len(acc) < 18*16 || nimg < 0 || oh < 0 || nxv < 1 || mask&0xffff == 0 || gN < 0 || gH < 0 || gO < 0 || inN < 0 || inRow < 0 || dyRow < 0 {
		panic("linalg: wgrad kernel called with bad arguments")
	}
	if nimg == 0 || oh == 0 {
		return
	}
	last := (nxv-1)*16 + 63 - bits.LeadingZeros64(mask&0xffff)
	if (nimg-1)*gN+(oh-1)*gH+gO+last >= len(g) || (nimg-1)*inN+(oh-1)*inRow+2*dyRow+2+last >= len(in) {
		panic("linalg: wgrad kernel reads past its operands")
	}
}
