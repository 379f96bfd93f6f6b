package linalg

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// This file is the blocked, packed matrix multiply behind dot_general and
// convolution for f32 and f64 (after the GotoBLAS/BLIS scheme):
//
//	for each kc-deep slab of K and nc-wide block of N:
//	    pack B[kc x nc] into nr-wide column panels (shared by all workers)
//	    for each mc-tall block of M (one task per block, in parallel):
//	        pack A[mc x kc] into mr-tall row panels (per worker)
//	        for each (mr x nr) tile: micro-kernel C_tile += A_panel * B_panel
//
// Packing reads the operands through arbitrary row/column strides, so a
// transposed operand (contracting dimension first) is packed directly with
// no separate transpose pass.

type float interface{ ~float32 | ~float64 }

// matrix is a batch of strided 2-D views into data: element (b, i, j) is at
// off[b] + i*rs + j*cs.
type matrix[T any] struct {
	data   []T
	off    []int
	rs, cs int
}

// microKernel computes C[mr x nr] += A_panel * B_panel over k steps (or
// C = A_panel * B_panel when store is set), where A_panel holds k groups
// of mr values (one per row) and B_panel k groups of nr values (one per
// column); c is row-major with row stride ldc and holds a full mr x nr
// tile.
type microKernel[T float] struct {
	name   string
	mr, nr int
	fn     func(k int, a, b, c []T, ldc int, store bool)
	// fnA, when set, is fn reading A in place: row r of step p at
	// a[r*lda+p] (a row-major block, no packed copy needed), k > 0.
	fnA func(k int, a, b, c []T, ldc, lda int, store bool)
	// edge, when set, computes edgeRows rows of a packed A panel (row r of
	// step p at a[p*lda+r]) against a B panel: the last rows of a block
	// that do not fill a panel cost edgeRows/mr of a panel, not a whole
	// one. It sums in the micro-kernel's order (same bits).
	edgeRows int
	edge     func(k int, a, b, c []T, ldc, lda int, store bool)
	// narrow, when set, is the kernel for products of at most narrow.nr
	// columns (see forColumns).
	narrow *microKernel[T]
	// kc is the deepest K slab (0: gemmKC); see slabK.
	kc int
}

// forColumns is the kernel for a product with n columns: the narrow one
// when it fits them (the wide one would mostly multiply padding).
func (k *microKernel[T]) forColumns(n int) *microKernel[T] {
	if k.narrow != nil && n <= k.narrow.nr {
		return k.narrow
	}
	return k
}

// Blocking parameters: kc*nr*sizeof(T) keeps a B panel in L1, mc*kc keeps
// an A block in L2, kc*nc keeps the packed B block in L3. Kernels may
// take deeper slabs (microKernel.kc): the AVX-512 ones take wideKC, their
// B panel (128 KiB for f32 at nr = 32) then streaming from L2, which keeps
// up with the 128 bytes of it they read per 24 multiply-adds, while each
// K slab past the first reads and writes all of C again.
const (
	gemmKC = 256
	wideKC = 1024
	gemmMC = 144
	gemmNC = 3072
	// Below this many multiply-adds a product runs on one goroutine.
	gemmParallelMin = 1 << 16
)

// Column splitting (see gemm2D) needs at least splitNMin panels per
// worker; above splitNMaxM rows the row split's balance wins.
var splitNMin, splitNMaxM = 2, 4096

type packBuf[T float] struct {
	a, b []T
	// tile is the macro-kernel's scratch for a partial tile (its size
	// fixed, kept with the buffers: a stack array would escape through
	// the micro-kernel's function value).
	tile [16 * 32]T
}

// floatPools holds a sync.Pool per element type of a generic object
// (packing buffers, pooled jobs).
type floatPools struct{ f32, f64 sync.Pool }

// poolOf returns the pool of T's objects.
func poolOf[T float](p *floatPools) *sync.Pool {
	var z T
	if _, ok := any(z).(float32); ok {
		return &p.f32
	}
	return &p.f64
}

var bufPools = floatPools{
	f32: sync.Pool{New: func() any { return new(packBuf[float32]) }},
	f64: sync.Pool{New: func() any { return new(packBuf[float64]) }},
}

func getBuf[T float]() (*packBuf[T], *sync.Pool) {
	pool := poolOf[T](&bufPools)
	return pool.Get().(*packBuf[T]), pool
}

// grow returns s resized to n, reallocated when its capacity is short
// (contents unspecified).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// gemmOpts are what a product does beyond C += A x B.
type gemmOpts[T float] struct {
	// overwrite says C holds garbage: the product replaces it (the first
	// K slab stores instead of accumulating, so C needs no clearing).
	overwrite bool
	// newEpi, when set, returns an epilogue and its release for one task:
	// the epilogue runs on every finished row segment of C the task
	// computes (seg is c.data[flat : flat+len(seg)]), while it is still in
	// cache. Tasks run concurrently, each with its own epilogue.
	newEpi func() (epi func(seg []T, flat int), done func())
	// packedB[b], when not nil, is product b's B already packed by
	// packWholeB for this kernel; keepB asks the product to pack B whole
	// into a new slice and store it there (for a caller's cache).
	packedB [][]T
	keepB   bool
}

// gemm computes c[b] += a[b] x b[b] for every batch b, where a is m x k, b
// is k x n and c is m x n with unit column stride.
func gemm[T float](kern *microKernel[T], batch, m, n, k int, a, b, c matrix[T]) {
	gemmEx(kern, batch, m, n, k, a, b, c, &gemmOpts[T]{})
}

// gemmEx is gemm with options (o is not nil).
func gemmEx[T float](kern *microKernel[T], batch, m, n, k int, a, b, c matrix[T], o *gemmOpts[T]) {
	if batch == 0 || m == 0 || n == 0 {
		return
	}
	if o.keepB && o.packedB == nil {
		o.packedB = make([][]T, batch)
	}
	work := m * n * k
	workers := kernel.Workers()
	if batch > 1 && (work < gemmParallelMin*4 || batch >= 4*workers) {
		// Many small products: one product per task.
		bj := getBatchJob[T]()
		bj.kern, bj.m, bj.n, bj.k, bj.a, bj.b, bj.c, bj.o = kern, m, n, k, a, b, c, *o
		runTasks(batch, workers, bj.task)
		putBatchJob(bj)
		return
	}
	if work < gemmParallelMin {
		workers = 1
	}
	for bi := 0; bi < batch; bi++ {
		gemm2D(kern, m, n, k, a.data, a.off[bi], a.rs, a.cs, b.data, b.off[bi], b.rs, b.cs, c.data, c.off[bi], c.rs, workers, o, bi)
	}
}

// runTasks runs task(t) for every t in [0, n) on the caller and up to
// workers-1 pool workers, each taking the next task when it finishes one
// (so that a worker the OS delays holds up no more than one task, and one
// that starts late only takes what is left: kernel.Help).
func runTasks(n, workers int, task func(t int)) {
	if n <= 1 || workers <= 1 {
		for t := 0; t < n; t++ {
			task(t)
		}
		return
	}
	r := runners.Get().(*taskRunner)
	r.task, r.n = task, int64(n)
	r.next.Store(0)
	kernel.Help(min(n, workers)-1, r.fn)
	r.task = nil
	runners.Put(r)
}

// taskRunner hands tasks [0, n) to the goroutines of a kernel.Help call as
// they free up. Runners are pooled with their function bound once, so that
// runTasks allocates nothing per call.
type taskRunner struct {
	next atomic.Int64
	n    int64
	task func(t int)
	fn   func()
}

var runners = sync.Pool{New: func() any {
	r := new(taskRunner)
	r.fn = r.claim
	return r
}}

// claim runs tasks until none is left.
func (r *taskRunner) claim() {
	for {
		t := r.next.Add(1) - 1
		if t >= r.n {
			return
		}
		r.task(int(t))
	}
}

// slabK is the depth of the K slabs of a product with k steps: at most the
// kernel's kc, and equal (with kc 1024, 1100 is two slabs of 550, not one
// of 1024 and one of 76: a thin last slab would pay the micro-kernel's
// fixed costs for little work).
func (kern *microKernel[T]) slabK(k int) int {
	kc := kern.kc
	if kc == 0 {
		kc = gemmKC
	}
	return ceilDiv(k, ceilDiv(k, kc))
}

// packedBLen is the length of a whole packed B (k x n): every kc-deep
// slab of K (kc from slabK), starting at element pc*roundUp(n, nr) for the slab at K
// offset pc, holds the slab's nr-wide column panels one after the other.
func packedBLen(k, n, nr int) int { return k * roundUp(n, nr) }

// packBPanels packs column panels [p0, p1) of every kc-deep K slab of B
// (k x n, element (p, j) at off + p*rs + j*cs) into dst in packedBLen's
// layout.
func packBPanels[T float](dst, b []T, off, rs, cs, k, kc, n, nr, p0, p1 int) {
	nPad := roundUp(n, nr)
	for pc := 0; pc < k; pc += kc {
		kcur := min(kc, k-pc)
		base := pc * nPad
		for jp := p0; jp < p1; jp++ {
			packPanelB(dst[base+jp*nr*kcur:base+(jp+1)*nr*kcur], b, off+pc*rs+jp*nr*cs, rs, cs, kcur, min(nr, n-jp*nr), nr)
		}
	}
}

// packWholeB packs all of B with up to workers goroutines, in tasks of
// about 8192 elements.
func packWholeB[T float](dst, b []T, off, rs, cs, k, kc, n, nr, workers int) {
	nPanels := ceilDiv(n, nr)
	if workers <= 1 || k*n < 1<<14 {
		packBPanels(dst, b, off, rs, cs, k, kc, n, nr, 0, nPanels)
		return
	}
	j := getPackJob[T]()
	j.dst, j.b, j.off, j.rs, j.cs, j.k, j.kc, j.n, j.nr = dst, b, off, rs, cs, k, kc, n, nr
	j.per, j.nPanels = max(1, (1<<13)/(k*nr)), nPanels
	runTasks(ceilDiv(nPanels, j.per), workers, j.fn)
	putPackJob(j)
}

// packJob is a parallel packWholeB, pooled like gemm2DJob: task t packs
// panels [t*per, (t+1)*per).
type packJob[T float] struct {
	dst, b                    []T
	off, rs, cs, k, kc, n, nr int
	per, nPanels              int
	fn                        func(t int)
}

func (j *packJob[T]) run(t int) {
	packBPanels(j.dst, j.b, j.off, j.rs, j.cs, j.k, j.kc, j.n, j.nr, t*j.per, min(j.nPanels, (t+1)*j.per))
}

var packJobs = floatPools{
	f32: sync.Pool{New: func() any { j := new(packJob[float32]); j.fn = j.run; return j }},
	f64: sync.Pool{New: func() any { j := new(packJob[float64]); j.fn = j.run; return j }},
}

func getPackJob[T float]() *packJob[T] { return poolOf[T](&packJobs).Get().(*packJob[T]) }

func putPackJob[T float](j *packJob[T]) {
	fn := j.fn
	*j = packJob[T]{fn: fn}
	poolOf[T](&packJobs).Put(j)
}

// gemm2D computes product bi, C[m x n] (at c[cOff:], row stride ldc) +=
// (or = with o.overwrite) A[m x k] * B[k x n], on up to workers
// goroutines. When A is read in place and C has panels enough and at
// most splitNMaxM rows, the workers claim units of C (a row block of a
// column panel; whole panels first), each packing the B panels it claims;
// else the work is split into tasks over row blocks of C when C has enough
// rows (B then packed whole first, once, and shared), else over its column
// panels. Tasks go to workers as they free up.
func gemm2D[T float](kern *microKernel[T], m, n, k int, a []T, aOff, ars, acs int, b []T, bOff, brs, bcs int, c []T, cOff, ldc, workers int, o *gemmOpts[T], bi int) {
	if k == 0 {
		// C = 0 (overwrite) or unchanged, then the epilogue.
		var epi func(seg []T, flat int)
		if o.newEpi != nil {
			var done func()
			epi, done = o.newEpi()
			defer done()
		}
		for i := 0; i < m; i++ {
			seg := c[cOff+i*ldc : cOff+i*ldc+n]
			if o.overwrite {
				clear(seg)
			}
			if epi != nil {
				epi(seg, cOff+i*ldc)
			}
		}
		return
	}
	mr, nr := kern.mr, kern.nr
	nPanels := ceilDiv(n, nr)
	var pb []T // the whole packed B, or nil
	if o.packedB != nil {
		pb = o.packedB[bi]
	}
	mTasks, nTasks, mc := 1, 1, m
	// With A read in place, splitting the columns shares nothing but A
	// (read-only): each claim packs, or reads packed, only its own B
	// panels, and reuses them for every row block.
	inPlaceA := kern.fnA != nil && acs == 1 && ars >= k
	claimMin, rowBlocks, mcUnit := 0, 1, m
	if workers > 1 {
		if inPlaceA && nPanels >= splitNMin*workers && m <= splitNMaxM {
			rowBlocks, mcUnit = claimRows(m, mr)
			claimMin = ceilDiv(claimMinWork, mcUnit*k*nr)
			nTasks = workers
		} else if m >= 4*workers*mr {
			mTasks = max(2*workers, ceilDiv(m, gemmMC))
			mc = roundUp(ceilDiv(m, mTasks), mr)
			mTasks = ceilDiv(m, mc)
		} else {
			nTasks = min(nPanels, workers)
		}
	}
	// B is packed whole when tasks share it or a cache wants it.
	if pb == nil && (mTasks > 1 || o.keepB) {
		var release func()
		if o.keepB {
			pb = make([]T, packedBLen(k, n, nr))
			o.packedB[bi] = pb
		} else {
			var buf *packBuf[T]
			var pool *sync.Pool
			buf, pool = getBuf[T]()
			buf.b = grow(buf.b, packedBLen(k, n, nr))
			pb = buf.b
			release = func() { pool.Put(buf) }
		}
		packWholeB(pb, b, bOff, brs, bcs, k, kern.slabK(k), n, nr, workers)
		if release != nil {
			defer release()
		}
	}
	var edgeA []T
	if claimMin > 0 && m%mr != 0 && gemmMC%mr == 0 {
		// The partial last row panel, packed once for all claims.
		buf, pool := getBuf[T]()
		buf.a = grow(buf.a, k*mr)
		edgeA = buf.a
		packEdgeA(edgeA, a, aOff, ars, m, k, kern.slabK(k), mr)
		defer pool.Put(buf)
	}
	j := getJob[T]()
	*j = gemm2DJob[T]{
		kern: kern, m: m, n: n, k: k,
		a: a, aOff: aOff, ars: ars, acs: acs,
		b: b, bOff: bOff, brs: brs, bcs: bcs,
		c: c, cOff: cOff, ldc: ldc,
		o: *o, pb: pb, inPlaceA: inPlaceA,
		nTasks: nTasks, nPanels: nPanels, mc: mc,
		nPad: roundUp(n, nr), kc: kern.slabK(k),
		claimMin: claimMin, workers: workers, edgeA: edgeA,
		rowBlocks: rowBlocks, mcUnit: mcUnit,
		task: j.task,
	}
	runTasks(mTasks*nTasks, workers, j.task)
	putJob(j)
}

// batchJob is a batch of small products, one product per task, pooled
// like gemm2DJob.
type batchJob[T float] struct {
	kern    *microKernel[T]
	m, n, k int
	a, b, c matrix[T]
	o       gemmOpts[T]
	task    func(bi int)
}

func (j *batchJob[T]) run(bi int) {
	a, b, c := &j.a, &j.b, &j.c
	gemm2D(j.kern, j.m, j.n, j.k, a.data, a.off[bi], a.rs, a.cs, b.data, b.off[bi], b.rs, b.cs, c.data, c.off[bi], c.rs, 1, &j.o, bi)
}

var batchJobs = floatPools{
	f32: sync.Pool{New: func() any { j := new(batchJob[float32]); j.task = j.run; return j }},
	f64: sync.Pool{New: func() any { j := new(batchJob[float64]); j.task = j.run; return j }},
}

func getBatchJob[T float]() *batchJob[T] { return poolOf[T](&batchJobs).Get().(*batchJob[T]) }

func putBatchJob[T float](j *batchJob[T]) {
	task := j.task
	*j = batchJob[T]{task: task}
	poolOf[T](&batchJobs).Put(j)
}

// gemm2DJob is one gemm2D call's product split into tasks. Jobs are pooled
// with their task function bound once, so that a product allocates
// nothing per call for the closure its workers run.
type gemm2DJob[T float] struct {
	kern                *microKernel[T]
	m, n, k             int
	a                   []T
	aOff, ars, acs      int
	b                   []T
	bOff, brs, bcs      int
	c                   []T
	cOff, ldc           int
	o                   gemmOpts[T]
	pb                  []T
	inPlaceA            bool
	nTasks, nPanels, mc int
	nPad, kc            int
	// claimMin > 0: tasks claim units from next (see claim), at least
	// claimMin at a time. Unit u is row block u%rowBlocks (mcUnit rows)
	// of column panel u/rowBlocks. edgeA, when set, is the partial last
	// row panel of A packed for every K slab (slab pc at edgeA[pc*mr:]).
	claimMin, workers int
	rowBlocks, mcUnit int
	next              atomic.Int64
	edgeA             []T
	task              func(t int)
}

var gemmJobs = floatPools{
	f32: sync.Pool{New: func() any { return newJob[float32]() }},
	f64: sync.Pool{New: func() any { return newJob[float64]() }},
}

func newJob[T float]() *gemm2DJob[T] {
	j := new(gemm2DJob[T])
	j.task = j.run
	return j
}

func getJob[T float]() *gemm2DJob[T] { return poolOf[T](&gemmJobs).Get().(*gemm2DJob[T]) }

// putJob drops the job's references (operands, options) and pools it.
func putJob[T float](j *gemm2DJob[T]) {
	task := j.task
	*j = gemm2DJob[T]{task: task}
	poolOf[T](&gemmJobs).Put(j)
}

// run computes task t: rows [i0, i1) by column panels [p0, p1) of C, or,
// when tasks claim panels, every claim it gets.
func (j *gemm2DJob[T]) run(t int) {
	buf, pool := getBuf[T]()
	var epi func(seg []T, flat int)
	var done func()
	if j.o.newEpi != nil {
		epi, done = j.o.newEpi()
	}
	if j.claimMin > 0 {
		unitWork := j.mcUnit * j.k * j.kern.nr
		since := 0 // multiply-adds since the last scheduling point
		for {
			u0, u1, ok := j.claim()
			if !ok {
				break
			}
			j.units(u0, u1, buf, epi)
			if since += (u1 - u0) * unitWork; since >= yieldWork {
				// A scheduling point: the collector's workers, and
				// the finalizers that hand dropped results back to
				// the recycler, otherwise wait for the runtime to
				// preempt a busy thread, and a loop of products
				// allocates fresh results meanwhile.
				runtime.Gosched()
				since = 0
			}
		}
	} else {
		nTasks, nPanels, mc := j.nTasks, j.nPanels, j.mc
		i0 := (t / nTasks) * mc
		jn := t % nTasks
		j.block(i0, min(j.m, i0+mc), jn*nPanels/nTasks, (jn+1)*nPanels/nTasks, buf, epi)
	}
	pool.Put(buf)
	if done != nil {
		done()
	}
}

// claim takes the next units [u0, u1) of a product whose tasks claim
// them: what is left divided by the workers, at least claimMin (guided
// self-scheduling), so that the first claims are wide (whole column
// panels: units run panel by panel) and the last narrow (row blocks of
// one panel, whose B each claim of it packs): a worker that starts late
// or is taken off its core meanwhile holds up at most its share of what
// was left when it claimed, while the others take the rest. The units
// past the whole panels cut the tail finer than a panel, which at 1024²
// is 0.45 ms of one core.
func (j *gemm2DJob[T]) claim() (u0, u1 int, ok bool) {
	for {
		cur := j.next.Load()
		left := int64(j.nPanels*j.rowBlocks) - cur
		if left <= 0 {
			return 0, 0, false
		}
		q := max(int64(j.claimMin), (left+int64(j.workers)-1)/int64(j.workers))
		if rb := int64(j.rowBlocks); q >= rb {
			// Whole panels (claims start on one until they get
			// narrower than a panel).
			q = (q + rb - 1) / rb * rb
		}
		q = min(q, left)
		if j.next.CompareAndSwap(cur, cur+q) {
			return int(cur), int(cur + q), true
		}
	}
}

// units computes units [u0, u1) (see gemm2DJob.claimMin): whole column
// panels as one block, and the row blocks of a panel the range cuts.
func (j *gemm2DJob[T]) units(u0, u1 int, buf *packBuf[T], epi func(seg []T, flat int)) {
	rb := j.rowBlocks
	for u0 < u1 {
		p, r := u0/rb, u0%rb
		if r == 0 && u1-u0 >= rb {
			p1 := p + (u1-u0)/rb
			j.block(0, j.m, p, p1, buf, epi)
			u0 = p1 * rb
			continue
		}
		e := min(u1, (p+1)*rb)
		j.block(r*j.mcUnit, min(j.m, (e-p*rb)*j.mcUnit), p, p+1, buf, epi)
		u0 = e
	}
}

// block computes rows [i0, i1) by column panels [p0, p1) of C.
func (j *gemm2DJob[T]) block(i0, i1, p0, p1 int, buf *packBuf[T], epi func(seg []T, flat int)) {
	kern, o := j.kern, &j.o
	n, k := j.n, j.k
	a, aOff, ars, acs := j.a, j.aOff, j.ars, j.acs
	b, bOff, brs, bcs := j.b, j.bOff, j.brs, j.bcs
	c, cOff, ldc := j.c, j.cOff, j.ldc
	mr, nr := kern.mr, kern.nr
	pb, inPlaceA := j.pb, j.inPlaceA
	nPad, kc := j.nPad, j.kc
	j0, j1 := p0*nr, min(n, p1*nr)
	for pc := 0; pc < k; pc += kc {
		kcur := min(kc, k-pc)
		// bp holds panels [p0, p1) of this slab, panel jp at
		// (jp-p0)*nr*kcur.
		var bp []T
		if pb != nil {
			base := pc*nPad + p0*nr*kcur
			bp = pb[base : base+(p1-p0)*nr*kcur]
		} else {
			buf.b = grow(buf.b, (p1-p0)*nr*kcur)
			bp = buf.b
			for jp := p0; jp < p1; jp++ {
				packPanelB(bp[(jp-p0)*nr*kcur:(jp-p0+1)*nr*kcur], b, bOff+pc*brs+jp*nr*bcs, brs, bcs, kcur, min(nr, n-jp*nr), nr)
			}
		}
		last := pc+kcur == k
		for ic := i0; ic < i1; ic += gemmMC {
			mcur := min(gemmMC, i1-ic)
			mPanels := ceilDiv(mcur, mr)
			src := aPanels[T]{kc: kcur}
			if inPlaceA {
				// Row-major A is read in place; only a last, partial
				// panel is packed (the kernel would read past A).
				src.data, src.off, src.ld = a, aOff+ic*ars+pc, ars
				if mcur%mr != 0 {
					if j.edgeA != nil {
						src.edge = j.edgeA[pc*mr : (pc+kcur)*mr]
					} else {
						buf.a = grow(buf.a, mr*kcur)
						src.edge = buf.a
						ip := mPanels - 1
						packPanelA(src.edge, a, aOff+(ic+ip*mr)*ars+pc, ars, 1, kcur, mcur-ip*mr, mr)
					}
				}
			} else {
				buf.a = grow(buf.a, mPanels*mr*kcur)
				src.packed = buf.a
				for ip := 0; ip < mPanels; ip++ {
					packPanelA(src.packed[ip*mr*kcur:(ip+1)*mr*kcur], a, aOff+(ic+ip*mr)*ars+pc*acs, ars, acs, kcur, min(mr, mcur-ip*mr), mr)
				}
			}
			macroKernel(kern, &src, bp, mPanels, p1-p0, kcur, mcur, j1-j0, c, cOff+ic*ldc+j0, ldc, o.overwrite && pc == 0, &buf.tile)
			if last && epi != nil {
				for i := ic; i < ic+mcur; i++ {
					f := cOff + i*ldc + j0
					epi(c[f:f+j1-j0], f)
				}
			}
		}
	}
}

// packEdgeA packs the rows past the last full mr-row panel of a row-major
// A (m x k at a[off:], row stride lda) for every kc-deep K slab: slab pc
// at dst[pc*mr:], in packPanelA's layout.
func packEdgeA[T float](dst, a []T, off, lda, m, k, kc, mr int) {
	r0 := m - m%mr
	for pc := 0; pc < k; pc += kc {
		kcur := min(kc, k-pc)
		packPanelA(dst[pc*mr:(pc+kcur)*mr], a, off+r0*lda+pc, lda, 1, kcur, m-r0, mr)
	}
}

// A claim of units takes at least claimMinWork multiply-adds. A task
// that claims yields its thread after every yieldWork multiply-adds or
// more (about 0.2 ms of one core), at the end of a claim.
const (
	claimMinWork = 1 << 19
	yieldWork    = 1 << 24
)

// claimRows splits m rows into the row blocks of claim units: about
// gemmMC rows each, a multiple of mr (so that only the last block ends in
// a partial row panel), as even as that allows. It returns their number
// and height.
func claimRows(m, mr int) (blocks, rows int) {
	rows = roundUp(ceilDiv(m, ceilDiv(m, gemmMC)), mr)
	return ceilDiv(m, rows), rows
}

// aPanels is where a block's A row panels are: packed (panel ip at
// packed[ip*mr*kc:]), or read in place from a row-major block (data[off:]
// with row stride ld) with only a partial last panel packed (edge).
type aPanels[T float] struct {
	packed, edge []T
	data         []T
	off, ld, kc  int
}

// panel returns panel ip packed (the packed slice of it), or nil for one
// to read in place.
func (s *aPanels[T]) panel(ip, mr int, full bool) []T {
	switch {
	case s.packed != nil:
		return s.packed[ip*mr*s.kc : (ip+1)*mr*s.kc]
	case !full:
		return s.edge[:mr*s.kc]
	}
	return nil
}

// macroKernel runs the micro-kernel over the tiles of one A block
// (mPanels panels, mcur rows) and nPanels packed B panels (ncur columns),
// for the block of C at c[cOff:] with row stride ldc; store replaces C
// instead of adding to it.
func macroKernel[T float](kern *microKernel[T], as *aPanels[T], pb []T, mPanels, nPanels, kcur, mcur, ncur int, c []T, cOff, ldc int, store bool, tile *[16 * 32]T) {
	mr, nr := kern.mr, kern.nr
	for jp := 0; jp < nPanels; jp++ {
		j := cOff + jp*nr
		nv := min(nr, ncur-jp*nr)
		bp := pb[jp*nr*kcur : (jp+1)*nr*kcur]
		for ip := 0; ip < mPanels; ip++ {
			i := ip * mr
			mv := min(mr, mcur-i)
			ap := as.panel(ip, mr, mv == mr)
			if ap == nil {
				// A full panel read in place.
				arow := as.data[as.off+i*as.ld:]
				if nv == nr {
					kern.fnA(kcur, arow, bp, c[j+i*ldc:], ldc, as.ld, store)
					continue
				}
				t := tile[:mr*nr]
				kern.fnA(kcur, arow, bp, t, nr, as.ld, true)
				addTile(c, j+i*ldc, ldc, t, nr, mv, nv, store)
				continue
			}
			if mv == mr && nv == nr {
				kern.fn(kcur, ap, bp, c[j+i*ldc:], ldc, store)
				continue
			}
			if e := kern.edgeRows; e > 0 && nv == nr {
				// Whole groups of edge rows straight into C, the rest
				// through the tile.
				r0 := 0
				for ; r0+e <= mv; r0 += e {
					kern.edge(kcur, ap[r0:], bp, c[j+(i+r0)*ldc:], ldc, mr, store)
				}
				if r0 < mv {
					t := tile[:e*nr]
					kern.edge(kcur, ap[r0:], bp, t, nr, mr, true)
					addTile(c, j+(i+r0)*ldc, ldc, t, nr, mv-r0, nv, store)
				}
				continue
			}
			t := tile[:mr*nr]
			kern.fn(kcur, ap, bp, t, nr, true)
			addTile(c, j+i*ldc, ldc, t, nr, mv, nv, store)
		}
	}
}

// addTile adds (or with store, copies) rows x cols of a tile with row
// stride ldt into C at c[off:] with row stride ldc.
func addTile[T float](c []T, off, ldc int, t []T, ldt, rows, cols int, store bool) {
	for r := 0; r < rows; r++ {
		row := c[off+r*ldc : off+r*ldc+cols]
		src := t[r*ldt : r*ldt+cols]
		if store {
			copy(row, src)
			continue
		}
		for q := range row {
			row[q] += src[q]
		}
	}
}

// packPanelA packs rows [0, rows) of an A slab (kc columns) starting at off
// into dst as kc groups of mr values, zero-padding missing rows.
func packPanelA[T float](dst, a []T, off, rs, cs, kc, rows, mr int) {
	if rows < mr {
		clear(dst[:kc*mr])
	}
	switch {
	case cs == 1:
		interleave(dst[:kc*mr], a, off, rs, kc, rows, mr)
	case rs == 1:
		copyGroups(dst[:kc*mr], a, off, cs, kc, rows, mr)
	default:
		for r := 0; r < rows; r++ {
			for p := 0; p < kc; p++ {
				dst[p*mr+r] = a[off+r*rs+p*cs]
			}
		}
	}
}

// packPanelB packs columns [0, cols) of a B slab (kc rows) starting at off
// into dst as kc groups of nr values, zero-padding missing columns.
func packPanelB[T float](dst, b []T, off, rs, cs, kc, cols, nr int) {
	if cols < nr {
		clear(dst[:kc*nr])
	}
	switch {
	case cs == 1:
		copyGroups(dst[:kc*nr], b, off, rs, kc, cols, nr)
	case rs == 1:
		interleave(dst[:kc*nr], b, off, cs, kc, cols, nr)
	default:
		for p := 0; p < kc; p++ {
			for q := 0; q < cols; q++ {
				dst[p*nr+q] = b[off+p*rs+q*cs]
			}
		}
	}
}

// copyGroups sets dst[p*g : p*g+cnt] = src[off+p*ld : off+p*ld+cnt] for p
// in [0, kc): whole groups are copied as fixed-size arrays (a few vector
// moves, no call).
func copyGroups[T float](dst, src []T, off, ld, kc, cnt, g int) {
	switch {
	case cnt == 32 && g == 32:
		for p := 0; p < kc; p++ {
			*(*[32]T)(dst[p*32:]) = *(*[32]T)(src[off+p*ld:])
		}
	case cnt == 16 && g == 16:
		for p := 0; p < kc; p++ {
			*(*[16]T)(dst[p*16:]) = *(*[16]T)(src[off+p*ld:])
		}
	case cnt == 12 && g == 12:
		for p := 0; p < kc; p++ {
			*(*[12]T)(dst[p*12:]) = *(*[12]T)(src[off+p*ld:])
		}
	default:
		for p := 0; p < kc; p++ {
			copy(dst[p*g:p*g+cnt], src[off+p*ld:off+p*ld+cnt])
		}
	}
}

// interleave sets dst[p*g+r] = src[off+r*ld+p] for r in [0, cnt) and p in
// [0, kc): cnt contiguous source vectors become kc groups of g, eight (or
// four) vectors at a time so that every step writes neighbours.
func interleave[T float](dst, src []T, off, ld, kc, cnt, g int) {
	if kc == 0 {
		return
	}
	if d32, ok := any(dst).([]float32); ok && interleave16F32 != nil && g == 32 && cnt == 32 && kc >= 16 {
		// Two vector transposes of sixteen rows, the steps past the last
		// block of sixteen in Go.
		s32 := any(src).([]float32)
		blocks := kc / 16
		interleave16F32(d32, s32[off:], ld, blocks)
		interleave16F32(d32[16:], s32[off+16*ld:], ld, blocks)
		if kc%16 != 0 {
			p0 := blocks * 16
			interleave(dst[p0*g:], src, off+p0, ld, kc-p0, cnt, g)
		}
		return
	}
	r := 0
	for ; r+8 <= cnt; r += 8 {
		s0 := src[off+r*ld:][:kc]
		s1 := src[off+(r+1)*ld:][:kc]
		s2 := src[off+(r+2)*ld:][:kc]
		s3 := src[off+(r+3)*ld:][:kc]
		s4 := src[off+(r+4)*ld:][:kc]
		s5 := src[off+(r+5)*ld:][:kc]
		s6 := src[off+(r+6)*ld:][:kc]
		s7 := src[off+(r+7)*ld:][:kc]
		d := dst[r:]
		for p := range s0 {
			q := (*[8]T)(d[p*g:])
			q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7] = s0[p], s1[p], s2[p], s3[p], s4[p], s5[p], s6[p], s7[p]
		}
	}
	for ; r+4 <= cnt; r += 4 {
		s0 := src[off+r*ld:][:kc]
		s1 := src[off+(r+1)*ld:][:kc]
		s2 := src[off+(r+2)*ld:][:kc]
		s3 := src[off+(r+3)*ld:][:kc]
		d := dst[r:]
		for p := range s0 {
			q := (*[4]T)(d[p*g:])
			q[0], q[1], q[2], q[3] = s0[p], s1[p], s2[p], s3[p]
		}
	}
	for ; r < cnt; r++ {
		s := src[off+r*ld:][:kc]
		for p, v := range s {
			dst[p*g+r] = v
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
func roundUp(a, b int) int { return ceilDiv(a, b) * b }

type number interface {
	~int64 | ~float32 | ~float64 | ~complex64 | ~complex128
}

// naiveGemm is the exact-type product for integers and complex numbers (and
// tiny float problems): rows of C are accumulated in i-p-j order so that B
// is read along its rows when it is row-major.
func naiveGemm[T number](batch, m, n, k int, a, b, c matrix[T]) {
	rows := batch * m
	kernel.ParallelFor(rows, max(1, 4096/max(n*k, 1)), func(lo, hi int) {
		for row := lo; row < hi; row++ {
			bi, i := row/m, row%m
			co := c.off[bi] + i*c.rs
			aBase := a.off[bi] + i*a.rs
			for q := 0; q < k; q++ {
				av := a.data[aBase+q*a.cs]
				bBase := b.off[bi] + q*b.rs
				for j := 0; j < n; j++ {
					c.data[co+j*c.cs] += av * b.data[bBase+j*b.cs]
				}
			}
		}
	})
}
