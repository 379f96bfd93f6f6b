package linalg

// Stride-1 convolutions packed straight into GEMM panels. With unit
// strides and dilations, every window of a (zero-padded) input plane of
// width Wp starts one element after the previous: computing the result
// over Wp columns per row (the Wp - OW extra ones are discarded), the
// window matrix row of kernel position (c, ki, kj) is the padded plane of
// feature c read from offset ki*Wp + kj on. Each B panel of the product
// W[O x C·K] · P[C·K x OH·Wp] is then nr-wide copies from the padded
// planes: no window matrix is built, and its columns need no edge
// handling (the planes have zeroed slack past their end, and the result's
// scratch rows are padded to whole panels).

// useDirect enables the direct schedule (tests switch it off to compare).
var useDirect = true

// directConv is the direct schedule of a 1-D or 2-D rows convolution.
type directConv struct {
	h, w   int   // input extents (h = 1 for 1-D)
	hp, wp int   // padded extents
	ph, pw int   // low padding
	oh, ow int   // output extents
	lH, lW int   // lhs strides of the spatial dimensions
	plane  int   // elements of one padded plane
	kOff   []int // per kernel position (c, ki, kj): its offset in the padded planes
	yExt   int   // extended output positions oh*wp
	maxOff int   // the largest of kOff
}

// directMaxPlanes bounds the padded planes of one batch entry (elements).
const directMaxPlanes = 1 << 22

// planDirect returns the direct schedule of q, or nil when its windows are
// strided, dilated, negatively padded or over more than two dimensions.
func planDirect(q *planesConv, inSp, kSp, outSp []int64, lSp []int, a *convAttrs) *directConv {
	s := len(inSp)
	if s > 2 {
		return nil
	}
	for i := 0; i < s; i++ {
		if a.strides[i] != 1 || a.lhsDil[i] != 1 || a.rhsDil[i] != 1 || a.padding[i][0] < 0 || a.padding[i][1] < 0 {
			return nil
		}
	}
	d := &directConv{h: 1, hp: 1, oh: 1}
	hi := s - 1
	if s == 2 {
		d.h, d.lH = int(inSp[0]), lSp[0]
		d.ph = int(a.padding[0][0])
		d.hp = d.h + d.ph + int(a.padding[0][1])
		d.oh = int(outSp[0])
	}
	d.w, d.lW = int(inSp[hi]), lSp[hi]
	d.pw = int(a.padding[hi][0])
	d.wp = d.w + d.pw + int(a.padding[hi][1])
	d.ow = int(outSp[hi])
	d.plane = d.hp * d.wp
	if q.cg*d.plane > directMaxPlanes || d.ow == 0 || d.oh == 0 {
		return nil
	}
	d.yExt = d.oh * d.wp
	kh, kw := 1, int(kSp[hi])
	if s == 2 {
		kh = int(kSp[0])
	}
	d.kOff = make([]int, q.cg*kh*kw)
	for c := 0; c < q.cg; c++ {
		for ki := 0; ki < kh; ki++ {
			for kj := 0; kj < kw; kj++ {
				ri, rj := ki, kj
				if s == 2 && a.reversal[0] {
					ri = kh - 1 - ki
				}
				if a.reversal[hi] {
					rj = kw - 1 - kj
				}
				off := c*d.plane + ri*d.wp + rj
				d.kOff[(c*kh+ki)*kw+kj] = off
				d.maxOff = max(d.maxOff, off)
			}
		}
	}
	return d
}

// runDirect is the rows schedule of q with windows packed from padded
// planes (q.direct).
func runDirect[T float](q *planesConv, kern *microKernel[T], lhs, rhs, out []T) {
	d := q.direct
	mr, nr := kern.mr, kern.nr
	mp := roundUp(q.og, mr)
	ck := q.cg * q.kk
	ypad := roundUp(d.yExt, nr)
	panels := ypad / nr
	kc := min(ck, gemmKC)
	slabs := ceilDiv(ck, kc)
	// W packed once per run: per group and K slab, mp/mr A panels of kc
	// groups of mr values (rows past og zero).
	aSize := mp * ck
	aPacked, scr := scratch[T](q.groups*aSize + ck)
	defer putScratch(scr)
	// wRow is one row of W in (c, k) order, after the packed panels.
	aPacked, wRow := aPacked[:q.groups*aSize], aPacked[q.groups*aSize:]
	for g := 0; g < q.groups; g++ {
		for o := 0; o < mp; o++ {
			row := wRow
			if o >= q.og {
				clear(row)
			} else {
				for c := 0; c < q.cg; c++ {
					src := (g*q.og+o)*q.rO + c*q.rI
					dst := row[c*q.kk : (c+1)*q.kk]
					for k, off := range q.kIdx {
						dst[k] = rhs[src+off]
					}
				}
			}
			ip, r := o/mr, o%mr
			for sl := 0; sl < slabs; sl++ {
				pc := sl * kc
				kcur := min(kc, ck-pc)
				panel := aPacked[g*aSize+pc*mp+ip*mr*kcur:]
				for p := 0; p < kcur; p++ {
					panel[p*mr+r] = row[pc+p]
				}
			}
		}
	}
	planeLen := d.maxOff + ypad
	tasks := q.groups * q.nb
	j := getConvJob[T]()
	j.body, j.q, j.kern, j.lhs, j.out, j.packed = bodyDirect, q, kern, lhs, out, aPacked
	j.mp, j.ck, j.kc, j.aSize, j.ypad, j.panels, j.slabs, j.planeLen = mp, ck, kc, aSize, ypad, panels, slabs, planeLen
	runConvJob(j, tasks)
}

// directTasks is runDirect's loop body: tasks [lo, hi), one (group,
// batch) image each.
func directTasks[T float](j *convJob[T], lo, hi int) {
	q, kern, lhs, out, aPacked := j.q, j.kern, j.lhs, j.out, j.packed
	d := q.direct
	mr, nr := kern.mr, kern.nr
	mp, ck, kc, aSize, ypad, panels, slabs, planeLen := j.mp, j.ck, j.kc, j.aSize, j.ypad, j.panels, j.slabs, j.planeLen
	buf, wscr := scratch[T](planeLen + kc*ypad + mp*ypad)
	defer putScratch(wscr)
	planes := buf[:planeLen]
	bp := buf[planeLen : planeLen+kc*ypad]
	cbuf := buf[planeLen+kc*ypad:]
	clear(planes[q.cg*d.plane:]) // slack read by the last panels
	for t := lo; t < hi; t++ {
		g, b, bs, fs := q.task(t)
		padPlanes(d, planes, lhs, (bs+b)*q.lB, fs, q)
		clear(cbuf)
		for sl := 0; sl < slabs; sl++ {
			pc := sl * kc
			kcur := min(kc, ck-pc)
			offs := d.kOff[pc : pc+kcur]
			for p := 0; p < panels; p++ {
				packWindows(bp[p*kcur*nr:(p+1)*kcur*nr], planes, offs, p*nr, nr)
			}
			ap := aPacked[g*aSize+pc*mp:]
			for p := 0; p < panels; p++ {
				bpan := bp[p*kcur*nr : (p+1)*kcur*nr]
				for ip := 0; ip < mp/mr; ip++ {
					kern.fn(kcur, ap[ip*mr*kcur:(ip+1)*mr*kcur], bpan, cbuf[ip*mr*ypad+p*nr:], ypad, false)
				}
			}
		}
		for o := 0; o < q.og; o++ {
			at := b*q.oB + (g*q.og+o)*q.oO
			for y := 0; y < d.oh; y++ {
				copy(out[at+y*d.ow:at+(y+1)*d.ow], cbuf[o*ypad+y*d.wp:o*ypad+y*d.wp+d.ow])
			}
		}
	}
}

// packWindows fills one B panel: for each kernel position k, the nr
// values of the padded planes from offs[k]+at (fixed-size copies for the
// micro-kernels' panel widths: a call to copy costs more than 64 bytes).
func packWindows[T float](dst, planes []T, offs []int, at, nr int) {
	switch d := any(dst).(type) {
	case []float32:
		if nr == 32 {
			packWindows32(d, any(planes).([]float32), offs, at)
			return
		}
	case []float64:
		if nr == 16 {
			packWindows16(d, any(planes).([]float64), offs, at)
			return
		}
	}
	for k, off := range offs {
		copy(dst[k*nr:(k+1)*nr], planes[off+at:off+at+nr])
	}
}

func packWindows32(dst, planes []float32, offs []int, at int) {
	// Through a local: a copy between two slices' arrays may overlap, so
	// it becomes a call to memmove; to and from the stack it is moves.
	for k, off := range offs {
		v := *(*[32]float32)(planes[off+at:])
		*(*[32]float32)(dst[k*32:]) = v
	}
}

func packWindows16(dst, planes []float64, offs []int, at int) {
	for k, off := range offs {
		v := *(*[16]float64)(planes[off+at:])
		*(*[16]float64)(dst[k*16:]) = v
	}
}

// padPlanes writes the zero-padded planes of the cg features from fs on
// of the lhs batch entry at base into planes.
func padPlanes[T float](d *directConv, planes, lhs []T, base, fs int, q *planesConv) {
	for c := 0; c < q.cg; c++ {
		src := base + (fs+c)*q.lC
		plane := planes[c*d.plane : (c+1)*d.plane]
		for hp := 0; hp < d.hp; hp++ {
			row := plane[hp*d.wp : (hp+1)*d.wp]
			h := hp - d.ph
			if h < 0 || h >= d.h {
				clear(row)
				continue
			}
			for x := 0; x < d.pw; x++ {
				row[x] = 0
			}
			for x := d.pw + d.w; x < d.wp; x++ {
				row[x] = 0
			}
			at := src + h*d.lH
			if d.lW == 1 {
				copy(row[d.pw:d.pw+d.w], lhs[at:at+d.w])
				continue
			}
			for x := 0; x < d.w; x++ {
				row[d.pw+x] = lhs[at+x*d.lW]
			}
		}
	}
}
