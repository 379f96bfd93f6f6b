package linalg

import (
	"sync"

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

// microKernel computes C[mr x nr] += A_panel * B_panel over k steps, where
// A_panel holds k groups of mr values (one per row) and B_panel k groups of
// nr values (one per column); c is row-major with row stride ldc and holds
// a full mr x nr tile.
type microKernel[T float] struct {
	name   string
	mr, nr int
	fn     func(k int, a, b, c []T, ldc int)
}

// Blocking parameters. kc*nr*sizeof(T) keeps a B panel in L1, mc*kc keeps
// an A block in L2, kc*nc keeps the packed B block in L3.
const (
	gemmKC = 256
	gemmMC = 144
	gemmNC = 3072
	// Below this many multiply-adds a product runs on one goroutine.
	gemmParallelMin = 1 << 16
)

// packBuf is a worker's packing storage: a, the packed A block; b, a
// packed B block; tile, a partial tile of C.
type packBuf[T float] struct {
	a, b []T
	tile [16 * 32]T
}

var (
	poolF32 = sync.Pool{New: func() any { return new(packBuf[float32]) }}
	poolF64 = sync.Pool{New: func() any { return new(packBuf[float64]) }}
)

func getBuf[T float]() (*packBuf[T], *sync.Pool) {
	var z T
	if _, ok := any(z).(float32); ok {
		return poolF32.Get().(*packBuf[T]), &poolF32
	}
	return poolF64.Get().(*packBuf[T]), &poolF64
}

func grow[T float](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// gemm computes c[b] += a[b] x b[b] for every batch b, where a is m x k, b
// is k x n and c is m x n with unit column stride.
func gemm[T float](kern *microKernel[T], batch, m, n, k int, a, b, c matrix[T]) {
	if batch == 0 || m == 0 || n == 0 || k == 0 {
		return
	}
	work := m * n * k
	if batch > 1 && (work < gemmParallelMin*4 || batch >= 4*kernel.Workers()) {
		// Many small products: one product per task.
		kernel.ParallelFor(batch, max(1, gemmParallelMin/max(work, 1)), func(lo, hi int) {
			for bi := lo; bi < hi; bi++ {
				gemm2D(kern, m, n, k, a.data, a.off[bi], a.rs, a.cs, b.data, b.off[bi], b.rs, b.cs, c.data[c.off[bi]:], c.rs, false)
			}
		})
		return
	}
	par := work >= gemmParallelMin
	for bi := 0; bi < batch; bi++ {
		gemm2D(kern, m, n, k, a.data, a.off[bi], a.rs, a.cs, b.data, b.off[bi], b.rs, b.cs, c.data[c.off[bi]:], c.rs, par)
	}
}

// gemm2D computes C[m x n] += A[m x k] * B[k x n], C with row stride ldc.
func gemm2D[T float](kern *microKernel[T], m, n, k int, a []T, aOff, ars, acs int, b []T, bOff, brs, bcs int, c []T, ldc int, par bool) {
	mr, nr := kern.mr, kern.nr
	kc := min(k, gemmKC)
	nc := min(roundUp(n, nr), gemmNC)
	workers := 1
	if par {
		workers = kernel.Workers()
	}
	// Split M into blocks: at most gemmMC tall, and at least one per worker.
	mBlocks := max(ceilDiv(m, gemmMC), min(workers, ceilDiv(m, mr)))
	mc := roundUp(ceilDiv(m, mBlocks), mr)
	mBlocks = ceilDiv(m, mc)

	j := getJob[T]()
	defer putJob(j)
	j.kern, j.m, j.n = kern, m, n
	j.a, j.aOff, j.ars, j.acs = a, aOff, ars, acs
	j.b, j.bOff, j.brs, j.bcs = b, bOff, brs, bcs
	j.c, j.ldc, j.mc = c, ldc, mc
	j.buf.b = grow(j.buf.b, kc*nc)
	for jc := 0; jc < n; jc += nc {
		j.jc, j.ncur = jc, min(nc, n-jc)
		j.nPanels = ceilDiv(j.ncur, nr)
		// When M gives too few tasks, split the column panels as well.
		j.nSplit = 1
		if mBlocks < workers {
			j.nSplit = min(ceilDiv(workers, mBlocks), j.nPanels)
		}
		for pc := 0; pc < k; pc += kc {
			j.pc, j.kcur = pc, min(kc, k-pc)
			if par && j.nPanels > 1 {
				kernel.ParallelFor(j.nPanels, 1, j.packFn)
			} else {
				j.packB(0, j.nPanels)
			}
			tasks := mBlocks * j.nSplit
			if par && tasks > 1 {
				kernel.ParallelFor(tasks, 1, j.tasksFn)
			} else {
				j.tasks(0, tasks)
			}
		}
	}
}

// gemmJob is one gemm2D call's operands and loop state, shared by its
// parallel chunks. Jobs are reused (with their packed-B buffer and their
// chunk functions, bound once), so a product allocates nothing.
type gemmJob[T float] struct {
	kern              *microKernel[T]
	m, n              int
	a                 []T
	aOff, ars, acs    int
	b                 []T
	bOff, brs, bcs    int
	c                 []T
	ldc, mc           int
	jc, ncur, nPanels int
	nSplit, pc, kcur  int
	buf               packBuf[T] // buf.b: the packed B block
	packFn, tasksFn   func(lo, hi int)
}

var (
	jobsF32 = sync.Pool{New: func() any { return newJob[float32]() }}
	jobsF64 = sync.Pool{New: func() any { return newJob[float64]() }}
)

func newJob[T float]() *gemmJob[T] {
	j := &gemmJob[T]{}
	j.packFn, j.tasksFn = j.packB, j.tasks
	return j
}

func getJob[T float]() *gemmJob[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return jobsF32.Get().(*gemmJob[T])
	}
	return jobsF64.Get().(*gemmJob[T])
}

func putJob[T float](j *gemmJob[T]) {
	j.a, j.b, j.c, j.kern = nil, nil, nil, nil
	var z T
	if _, ok := any(z).(float32); ok {
		jobsF32.Put(j)
	} else {
		jobsF64.Put(j)
	}
}

// packB packs column panels [lo, hi) of the current B slab.
func (j *gemmJob[T]) packB(lo, hi int) {
	nr, kcur := j.kern.nr, j.kcur
	for p := lo; p < hi; p++ {
		packPanelB(j.buf.b[p*nr*kcur:(p+1)*nr*kcur], j.b, j.bOff+j.pc*j.brs+(j.jc+p*nr)*j.bcs, j.brs, j.bcs, kcur, min(nr, j.ncur-p*nr), nr)
	}
}

// tasks runs tasks [lo, hi): each packs an M block of the A slab and
// multiplies it with a share of the packed B panels.
func (j *gemmJob[T]) tasks(lo, hi int) {
	mr, kcur := j.kern.mr, j.kcur
	bufA, poolA := getBuf[T]()
	for t := lo; t < hi; t++ {
		ib, js := t/j.nSplit, t%j.nSplit
		ic := ib * j.mc
		mcur := min(j.mc, j.m-ic)
		p0 := js * j.nPanels / j.nSplit
		p1 := (js + 1) * j.nPanels / j.nSplit
		bufA.a = grow(bufA.a, roundUp(mcur, mr)*kcur)
		pa := bufA.a
		mPanels := ceilDiv(mcur, mr)
		for ip := 0; ip < mPanels; ip++ {
			packPanelA(pa[ip*mr*kcur:(ip+1)*mr*kcur], j.a, j.aOff+(ic+ip*mr)*j.ars+j.pc*j.acs, j.ars, j.acs, kcur, min(mr, mcur-ip*mr), mr)
		}
		macroKernel(j.kern, pa, j.buf.b, mPanels, p0, p1, kcur, mcur, j.ncur, j.c, ic, j.jc, j.ldc, bufA)
	}
	poolA.Put(bufA)
}

// macroKernel runs the micro-kernel over the tiles of one packed A block
// and column panels [p0, p1) of the packed B block.
func macroKernel[T float](kern *microKernel[T], pa, pb []T, mPanels, p0, p1, kcur, mcur, ncur int, c []T, ic, jc, ldc int, buf *packBuf[T]) {
	mr, nr := kern.mr, kern.nr
	tile := &buf.tile
	for jp := p0; jp < p1; jp++ {
		j := jc + jp*nr
		nv := min(nr, ncur-jp*nr)
		bp := pb[jp*nr*kcur : (jp+1)*nr*kcur]
		for ip := 0; ip < mPanels; ip++ {
			i := ic + ip*mr
			mv := min(mr, mcur-ip*mr)
			ap := pa[ip*mr*kcur : (ip+1)*mr*kcur]
			if mv == mr && nv == nr {
				kern.fn(kcur, ap, bp, c[i*ldc+j:], ldc)
				continue
			}
			t := tile[:mr*nr]
			clear(t)
			kern.fn(kcur, ap, bp, t, nr)
			for r := 0; r < mv; r++ {
				row := c[(i+r)*ldc+j : (i+r)*ldc+j+nv]
				for q := range row {
					row[q] += t[r*nr+q]
				}
			}
		}
	}
}

// packPanelA packs rows [0, rows) of an A slab (kc columns) starting at off
// into dst as kc groups of mr values, zero-padding missing rows.
func packPanelA[T float](dst, a []T, off, rs, cs, kc, rows, mr int) {
	if rows < mr {
		clear(dst[:kc*mr])
	}
	if cs == 1 {
		for r := 0; r < rows; r++ {
			src := a[off+r*rs : off+r*rs+kc]
			for p, v := range src {
				dst[p*mr+r] = v
			}
		}
		return
	}
	if rs == 1 {
		for p := 0; p < kc; p++ {
			copy(dst[p*mr:p*mr+rows], a[off+p*cs:off+p*cs+rows])
		}
		return
	}
	for r := 0; r < rows; r++ {
		for p := 0; p < kc; p++ {
			dst[p*mr+r] = a[off+r*rs+p*cs]
		}
	}
}

// packPanelB packs columns [0, cols) of a B slab (kc rows) starting at off
// into dst as kc groups of nr values, zero-padding missing columns.
func packPanelB[T float](dst, b []T, off, rs, cs, kc, cols, nr int) {
	if cols < nr {
		clear(dst[:kc*nr])
	}
	if cs == 1 {
		for p := 0; p < kc; p++ {
			copy(dst[p*nr:p*nr+cols], b[off+p*rs:off+p*rs+cols])
		}
		return
	}
	if rs == 1 {
		for q := 0; q < cols; q++ {
			src := b[off+q*cs : off+q*cs+kc]
			for p, v := range src {
				dst[p*nr+q] = v
			}
		}
		return
	}
	for p := 0; p < kc; p++ {
		for q := 0; q < cols; q++ {
			dst[p*nr+q] = b[off+p*rs+q*cs]
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
