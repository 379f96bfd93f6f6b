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

type packBuf[T float] struct{ a, b []T }

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

	bufB, pool := getBuf[T]()
	defer pool.Put(bufB)
	bufB.b = grow(bufB.b, kc*nc)
	pb := bufB.b

	for jc := 0; jc < n; jc += nc {
		ncur := min(nc, n-jc)
		nPanels := ceilDiv(ncur, nr)
		// When M gives too few tasks, split the column panels as well.
		nSplit := 1
		if mBlocks < workers {
			nSplit = min(ceilDiv(workers, mBlocks), nPanels)
		}
		for pc := 0; pc < k; pc += kc {
			kcur := min(kc, k-pc)
			packB := func(lo, hi int) {
				for p := lo; p < hi; p++ {
					packPanelB(pb[p*nr*kcur:(p+1)*nr*kcur], b, bOff+pc*brs+(jc+p*nr)*bcs, brs, bcs, kcur, min(nr, ncur-p*nr), nr)
				}
			}
			if par && nPanels > 1 {
				kernel.ParallelFor(nPanels, 1, packB)
			} else {
				packB(0, nPanels)
			}
			task := func(t int) {
				ib, js := t/nSplit, t%nSplit
				ic := ib * mc
				mcur := min(mc, m-ic)
				p0 := js * nPanels / nSplit
				p1 := (js + 1) * nPanels / nSplit
				bufA, poolA := getBuf[T]()
				bufA.a = grow(bufA.a, roundUp(mcur, mr)*kcur)
				pa := bufA.a
				mPanels := ceilDiv(mcur, mr)
				for ip := 0; ip < mPanels; ip++ {
					packPanelA(pa[ip*mr*kcur:(ip+1)*mr*kcur], a, aOff+(ic+ip*mr)*ars+pc*acs, ars, acs, kcur, min(mr, mcur-ip*mr), mr)
				}
				macroKernel(kern, pa, pb, mPanels, p0, p1, kcur, mcur, ncur, c, ic, jc, ldc)
				poolA.Put(bufA)
			}
			tasks := mBlocks * nSplit
			if par && tasks > 1 {
				kernel.ParallelFor(tasks, 1, func(lo, hi int) {
					for t := lo; t < hi; t++ {
						task(t)
					}
				})
			} else {
				for t := 0; t < tasks; t++ {
					task(t)
				}
			}
		}
	}
}

// macroKernel runs the micro-kernel over the tiles of one packed A block
// and column panels [p0, p1) of the packed B block.
func macroKernel[T float](kern *microKernel[T], pa, pb []T, mPanels, p0, p1, kcur, mcur, ncur int, c []T, ic, jc, ldc int) {
	mr, nr := kern.mr, kern.nr
	var tile [16 * 32]T
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
