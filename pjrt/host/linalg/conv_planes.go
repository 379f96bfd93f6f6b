package linalg

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Convolutions over planes. A convolution whose result keeps its spatial
// dimensions innermost (NCHW, and the kernel gradients lax writes as
// [O, I, kh, kw]) runs without bringing its operands into the canonical
// channels-last layouts: the windows are gathered from the operands' own
// strides into a small matrix P, and the products write straight into the
// result. For the result element (b, o, y),
//
//	out[b][o][y] = sum over c, k of W[o][c][k] * P[(c, k)][(b, y)]
//
// with P[(c, k)][(b, y)] the input element that kernel position k reads
// for output position y of batch entry b (zero in padding). Two schedules
// cover the common cases:
//
//   - rows (forward and input-gradient convolutions, output positions
//     outnumber kernel positions): for each batch entry b, one product
//     W[O x C·K] · P_b[C·K x Y] into the result's [O x Y] block;
//   - accumulate (kernel gradients, kernel positions outnumber output
//     positions): for each input feature c, W_c[O x K] · P_c[K x B·Y]
//     summed over c, where W_c is read in place from the operand.
//
// P is built a slab of rows at a time, so its size stays bounded whatever
// the shapes.

const (
	planesRows = iota + 1
	planesAcc
)

// planesSlab bounds the elements of P built at once.
const planesSlab = 1 << 18

// planesConv is a convolution planned over planes.
type planesConv struct {
	mode             int
	nb, cg, og       int // batch entries, input and output features per group
	groups, fgc, bgc int
	kk, y            int   // kernel and output positions
	lB, lC           int   // lhs batch and feature strides
	rO, rI           int   // rhs output and input feature strides
	rK               int   // rhs stride of the merged kernel positions (accumulate)
	kIdx             []int // rhs offset of each kernel position
	oB, oO           int   // result batch and feature strides
	// gather reads P from an lhs plane: rows are kernel positions and runs
	// output positions (rows schedule), or the other way round
	// (accumulate).
	gather *gatherTab
	// direct, when set, packs the windows of a stride-1 rows schedule
	// straight into GEMM panels (conv_direct.go).
	direct *directConv
}

// task splits task t (a group g and a batch entry b of it) and returns
// where g's batch entries and input features start (bs, fs): batch or
// feature groups slice the operand, plain groups share it.
func (q *planesConv) task(t int) (g, b, bs, fs int) {
	g, b = t/q.nb, t%q.nb
	if q.bgc > 1 {
		bs = g * q.nb
	}
	if q.fgc > 1 {
		fs = g * q.cg
	}
	return g, b, bs, fs
}

// gatherTab gathers the rows of a window matrix from one lhs plane (a
// batch entry and feature): row r, column c holds the lhs element that
// row position r and column position c read together, or zero. Rows and
// columns are multi-indices over the spatial dimensions (kernel and output
// positions, in either role); columns are written as runs along the last
// spatial dimension.
type gatherTab struct {
	cols   int // column positions
	cOuter int // column positions over all spatial dimensions but the last
	cLast  int // column positions along the last one
	rLast  int // row positions along the last one
	// outer[r*cOuter+co] is the lhs offset of row r at outer column co
	// (all spatial dimensions but the last), -1 in padding.
	outer []int32
	// last[rl] is the run of last-dimension columns [x0, x1) that row
	// position rl reads inside the lhs, from offset in0 with step.
	last []lastRun
	// lastTab is set when a run has holes (lhs dilation): the lhs offset
	// along the last dimension of (rl, x), or -1.
	lastTab []int32
}

type lastRun struct{ x0, x1, in0, step int }

// newGather builds the table for row extents rows and column extents cols
// per spatial dimension, where idx(d, r, c) is the lhs index along d that
// row position r and column position c read (-1: none) and lSp the lhs
// strides of the spatial dimensions.
func newGather(rows, cols []int64, lSp []int, idx func(d int, r, c int64) int64) *gatherTab {
	s := len(rows)
	last := s - 1
	t := &gatherTab{cols: int(hlo.NumElements(cols)), cLast: int(cols[last]), rLast: int(rows[last])}
	t.cOuter = int(hlo.NumElements(cols[:last]))
	nr := int(hlo.NumElements(rows))
	rOuter := int(hlo.NumElements(rows[:last]))
	t.outer = make([]int32, nr*t.cOuter)
	ro, co := make([]int64, last), make([]int64, last)
	for rf := 0; rf < rOuter; rf++ {
		unravelInto(rf, rows[:last], ro)
		for cf := 0; cf < t.cOuter; cf++ {
			unravelInto(cf, cols[:last], co)
			off := int64(0)
			for d := 0; d < last && off >= 0; d++ {
				if x := idx(d, ro[d], co[d]); x < 0 {
					off = -1
				} else {
					off += x * int64(lSp[d])
				}
			}
			for rl := 0; rl < t.rLast; rl++ {
				t.outer[(rf*t.rLast+rl)*t.cOuter+cf] = int32(off)
			}
		}
	}
	at := func(rl, x int) int64 { return idx(last, int64(rl), int64(x)) }
	t.last = make([]lastRun, t.rLast)
	holes := false
	for rl := 0; rl < t.rLast; rl++ {
		r := lastRun{x0: t.cLast, x1: t.cLast}
		for x := 0; x < t.cLast; x++ {
			if at(rl, x) >= 0 {
				r.x0 = x
				break
			}
		}
		for x := t.cLast - 1; x >= r.x0; x-- {
			if at(rl, x) >= 0 {
				r.x1 = x + 1
				break
			}
		}
		if r.x0 < r.x1 {
			r.in0 = int(at(rl, r.x0)) * lSp[last]
			if r.x1-r.x0 > 1 {
				r.step = int(at(rl, r.x0+1)-at(rl, r.x0)) * lSp[last]
			}
			for x := r.x0; x < r.x1; x++ {
				if at(rl, x) < 0 {
					holes = true
				}
			}
		}
		t.last[rl] = r
	}
	if holes {
		t.lastTab = make([]int32, t.rLast*t.cLast)
		for rl := 0; rl < t.rLast; rl++ {
			for x := 0; x < t.cLast; x++ {
				v := int32(-1)
				if i := at(rl, x); i >= 0 {
					v = int32(i) * int32(lSp[last])
				}
				t.lastTab[rl*t.cLast+x] = v
			}
		}
	}
	return t
}

// fillRow writes row r of the window matrix of the lhs plane at base into
// dst (t.cols values). The runs are short (a row of a feature map): the
// zeros around them are written in loops, not with calls.
func fillRow[T float](t *gatherTab, dst, lhs []T, base, r int) {
	rl := r % t.rLast
	run := t.last[rl]
	n := t.cLast
	outer := t.outer[r*t.cOuter : (r+1)*t.cOuter]
	dst = dst[:len(outer)*n]
	for co, st := range outer {
		d := dst[co*n : (co+1)*n : (co+1)*n]
		if st < 0 {
			for x := range d {
				d[x] = 0
			}
			continue
		}
		src := base + int(st)
		if t.lastTab != nil {
			for x, i := range t.lastTab[rl*n : (rl+1)*n] {
				if i < 0 {
					d[x] = 0
				} else {
					d[x] = lhs[src+int(i)]
				}
			}
			continue
		}
		for x := 0; x < run.x0; x++ {
			d[x] = 0
		}
		for x := run.x1; x < n; x++ {
			d[x] = 0
		}
		if run.x1 <= run.x0 {
			continue
		}
		src += run.in0
		m := run.x1 - run.x0
		if run.step == 1 {
			copy(d[run.x0:run.x1], lhs[src:src+m])
			continue
		}
		for x := run.x0; x < run.x1; x++ {
			d[x] = lhs[src]
			src += run.step
		}
	}
}

// planPlanes returns the planes plan of a convolution, or nil when its
// layout or types do not suit it.
func planPlanes(p *convPlan, lt, rt, ot *hlo.TensorType, a *convAttrs) *planesConv {
	dn := a.dn
	s := len(dn.InputSpatialDims)
	if s == 0 || !(p.kind == dotF32 && lt.DType == hlo.F32 || p.kind == dotF64 && lt.DType == hlo.F64) ||
		rt.DType != lt.DType || ot.DType != lt.DType {
		return nil
	}
	ls, rs, os := kernel.Strides(lt.Dims), kernel.Strides(rt.Dims), kernel.Strides(ot.Dims)
	// The result's spatial dimensions must be its innermost, in order.
	for i, d := range dn.OutputSpatialDims {
		if int(d) != ot.Rank()-s+i {
			return nil
		}
	}
	q := &planesConv{groups: p.groups, fgc: a.fgc, bgc: a.bgc, nb: p.n / a.bgc, cg: p.c / a.fgc, og: p.o / p.groups,
		kk: p.kSp, y: p.outSp,
		lB: int(ls[dn.InputBatchDim]), lC: int(ls[dn.InputFeatureDim]),
		rO: int(rs[dn.KernelOutputFeatureDim]), rI: int(rs[dn.KernelInputFeatureDim]),
		oB: int(os[dn.OutputBatchDim]), oO: int(os[dn.OutputFeatureDim])}
	inSp, outSp, kSp := make([]int64, s), make([]int64, s), make([]int64, s)
	lSp, rSp := make([]int, s), make([]int, s)
	for i := 0; i < s; i++ {
		inSp[i], kSp[i], outSp[i] = lt.Dims[dn.InputSpatialDims[i]], rt.Dims[dn.KernelSpatialDims[i]], ot.Dims[dn.OutputSpatialDims[i]]
		lSp[i], rSp[i] = int(ls[dn.InputSpatialDims[i]]), int(rs[dn.KernelSpatialDims[i]])
	}
	// The rhs offset of each kernel position (row-major); they merge into
	// one stride when the kernel's spatial dimensions are laid out
	// row-major relative to each other.
	q.kIdx = make([]int, q.kk)
	kd := make([]int64, s)
	q.rK = rSp[s-1]
	merged := true
	for k := range q.kIdx {
		unravelInto(k, kSp, kd)
		for d, v := range kd {
			q.kIdx[k] += int(v) * rSp[d]
		}
		merged = merged && q.kIdx[k] == k*q.rK
	}
	q.mode = planesRows
	if q.kk > q.y && merged && q.oB == q.y && q.groups == 1 {
		q.mode = planesAcc
	}
	// Per spatial dimension: the lhs index each (kernel, output) position
	// pair reads, or -1 (padding, or a hole of the lhs dilation).
	idx := func(d int, k, o int64) int64 {
		if a.reversal[d] {
			k = kSp[d] - 1 - k
		}
		dil := int64(0)
		if inSp[d] > 0 {
			dil = (inSp[d]-1)*a.lhsDil[d] + 1
		}
		x := o*a.strides[d] + k*a.rhsDil[d] - a.padding[d][0]
		if x < 0 || x >= dil || x%a.lhsDil[d] != 0 {
			return -1
		}
		return x / a.lhsDil[d]
	}
	if q.mode == planesAcc {
		// Runs along the kernel positions (the long ones here).
		q.gather = newGather(outSp, kSp, lSp, func(d int, o, k int64) int64 { return idx(d, k, o) })
	} else {
		q.gather = newGather(kSp, outSp, lSp, idx)
		q.direct = planDirect(q, inSp, kSp, outSp, lSp, a)
	}
	return q
}

// The micro-kernel computes tiles of mr rows; a product whose row count is
// not a multiple of mr spends more on its partial tiles than on the
// arithmetic. Both schedules therefore compute mp = roundUp(og, mr) rows
// (W padded with zero rows) into scratch and copy the og real ones out.

// runPlanes computes the convolution of lhs and rhs into out (all of
// type T).
func runPlanes[T float](q *planesConv, kern *microKernel[T], lhs, rhs, out []T) {
	if q.mode == planesAcc {
		runAcc(q, kern, lhs, rhs, out)
		return
	}
	if q.direct != nil && useDirect {
		runDirect(q, kern, lhs, rhs, out)
		return
	}
	mp := roundUp(q.og, kern.mr)
	// W packed as [groups][mp][cg][K] (kernel positions row-major), rows
	// past og zero.
	ck := q.cg * q.kk
	w, scr := scratch[T](q.groups * mp * ck)
	defer putScratch(scr)
	for g := 0; g < q.groups; g++ {
		for o := 0; o < mp; o++ {
			row := w[(g*mp+o)*ck : (g*mp+o+1)*ck]
			if o >= q.og {
				clear(row)
				continue
			}
			for c := 0; c < q.cg; c++ {
				src := (g*q.og+o)*q.rO + c*q.rI
				dst := row[c*q.kk : (c+1)*q.kk]
				for k, off := range q.kIdx {
					dst[k] = rhs[src+off]
				}
			}
		}
	}
	slab := max(1, min(ck, planesSlab/max(q.y, 1)))
	tasks := q.groups * q.nb
	par := tasks < 2*kernel.Workers()
	kernel.ParallelFor(tasks, 1, func(lo, hi int) {
		pbuf, wscr := scratch[T](slab*q.y + mp*q.y)
		defer putScratch(wscr)
		cbuf := pbuf[slab*q.y:]
		for t := lo; t < hi; t++ {
			g, b, bs, fs := q.task(t)
			clear(cbuf)
			for r0 := 0; r0 < ck; r0 += slab {
				nr := min(slab, ck-r0)
				for r := 0; r < nr; r++ {
					c, k := (r0+r)/q.kk, (r0+r)%q.kk
					fillRow(q.gather, pbuf[r*q.y:(r+1)*q.y], lhs, (bs+b)*q.lB+(fs+c)*q.lC, k)
				}
				gemmAdd(kern, mp, q.y, nr, w, g*mp*ck+r0, ck, 1, pbuf, 0, q.y, 1, cbuf, q.y, par)
			}
			for o := 0; o < q.og; o++ {
				at := b*q.oB + (g*q.og+o)*q.oO
				copy(out[at:at+q.y], cbuf[o*q.y:(o+1)*q.y])
			}
		}
	})
}

// runAcc is the accumulate schedule: for each input feature c,
// out[o][(b, y)] += W_c[o][k] · P_c[k][(b, y)], the features split into a
// fixed number of chunks (independent of the machine, so results are too)
// whose partial sums are added in order.
func runAcc[T float](q *planesConv, kern *microKernel[T], lhs, rhs, out []T) {
	cols := q.nb * q.y
	chunks := min(q.cg, 8)
	if chunks == 0 {
		for o := 0; o < q.og; o++ {
			clear(out[o*q.oO : o*q.oO+cols])
		}
		return
	}
	mp := roundUp(q.og, kern.mr)
	size := mp * cols
	part, scr := scratch[T](chunks * size)
	defer putScratch(scr)
	clear(part)
	// P_c is built transposed, [(b, y)][k] (runs along the kernel), a slab
	// of columns (b, y) at a time.
	slab := max(1, min(cols, planesSlab/max(q.kk, 1)))
	j := getConvJob[T]()
	j.body, j.q, j.kern, j.lhs, j.rhs, j.packed = bodyAcc, q, kern, lhs, rhs, part
	j.mp, j.cols, j.size, j.slab, j.chunks = mp, cols, size, slab, chunks
	runConvJob(j, chunks)
	for o := 0; o < q.og; o++ {
		dst := out[o*q.oO : o*q.oO+cols]
		copy(dst, part[o*cols:(o+1)*cols])
		for ch := 1; ch < chunks; ch++ {
			src := part[ch*size+o*cols : ch*size+(o+1)*cols]
			for i, v := range src {
				dst[i] += v
			}
		}
	}
}

// accChunks is runAcc's loop body: chunks [lo, hi) of the input
// channels, each into its own partial sums.
func accChunks[T float](j *convJob[T], lo, hi int) {
	q, kern, lhs, rhs, part := j.q, j.kern, j.lhs, j.rhs, j.packed
	mp, cols, size, slab, chunks := j.mp, j.cols, j.size, j.slab, j.chunks
	// P_c^T for a slab of columns, and W_c padded to mp rows.
	pbuf, wscr := scratch[T](slab*q.kk + mp*q.kk)
	defer putScratch(wscr)
	wbuf := pbuf[slab*q.kk:]
	clear(wbuf[q.og*q.kk:])
	for ch := lo; ch < hi; ch++ {
		acc := part[ch*size : (ch+1)*size]
		for c := ch * q.cg / chunks; c < (ch+1)*q.cg/chunks; c++ {
			for o := 0; o < q.og; o++ {
				src := o*q.rO + c*q.rI
				dst := wbuf[o*q.kk : (o+1)*q.kk]
				if q.rK == 1 {
					copy(dst, rhs[src:src+q.kk])
					continue
				}
				for k := range dst {
					dst[k] = rhs[src+k*q.rK]
				}
			}
			for j0 := 0; j0 < cols; j0 += slab {
				nj := min(slab, cols-j0)
				for j := 0; j < nj; j++ {
					b, y := (j0+j)/q.y, (j0+j)%q.y
					fillRow(q.gather, pbuf[j*q.kk:(j+1)*q.kk], lhs, b*q.lB+c*q.lC, y)
				}
				gemmAdd(kern, mp, nj, q.kk, wbuf, 0, q.kk, 1, pbuf, 0, 1, q.kk, acc[j0:], cols, false)
			}
		}
	}
}

// gemmAdd computes C[m x n] += A[m x k] * B[k x n] (C with row stride
// ldc), on every worker when par is set.
func gemmAdd[T float](kern *microKernel[T], m, n, k int, a []T, aOff, ars, acs int, b []T, bOff, brs, bcs int, c []T, ldc int, par bool) {
	workers := 1
	if par {
		workers = kernel.Workers()
	}
	gemm2D(kern, m, n, k, a, aOff, ars, acs, b, bOff, brs, bcs, c, 0, ldc, workers, &gemmOpts[T]{}, 0)
}
