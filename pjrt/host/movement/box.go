package movement

import "sync"

import "github.com/xlajit/xlajit/pjrt/host/kernel"

// box is the one data-movement primitive of this package: a strided copy of
// an n-d index box,
//
//	dst[dOff + Σ i_k·dS_k] = src[sOff + Σ i_k·sS_k]   for every i in dims,
//
// in elements of es bytes. Broadcast (stride 0), transpose (permuted
// strides), slice (scaled strides), reverse (negative strides), pad and
// concatenate (strided destination) and gather (one box per index) are all
// boxes; newBox simplifies the loop nest once, at compile time.
type box struct {
	dims   []int
	dS, sS []int
	es     int
	empty  bool
	// tile is the dimension transposed against the innermost one (source
	// contiguous along it, destination contiguous along the innermost), or
	// -1: such boxes copy in cache-sized square tiles.
	tile int
}

// newBox builds a box over dims (destination order), dropping unit
// dimensions and merging dimensions that are contiguous in both source and
// destination.
func newBox(dims []int64, dS, sS []int, es int) *box {
	b := &box{es: es, tile: -1}
	for k, d := range dims {
		if d == 0 {
			b.empty = true
		}
		if d == 1 {
			continue
		}
		if n := len(b.dims); n > 0 && b.dS[n-1] == dS[k]*int(d) && b.sS[n-1] == sS[k]*int(d) {
			b.dims[n-1] *= int(d)
			b.dS[n-1] = dS[k]
			b.sS[n-1] = sS[k]
			continue
		}
		b.dims = append(b.dims, int(d))
		b.dS = append(b.dS, dS[k])
		b.sS = append(b.sS, sS[k])
	}
	if n := len(b.dims); n >= 2 && b.dS[n-1] == 1 && b.sS[n-1] != 1 && b.sS[n-1] != 0 {
		for k := 0; k < n-1; k++ {
			if b.sS[k] == 1 && b.dims[k] >= 8 && b.dims[n-1] >= 8 {
				b.tile = k
			}
		}
	}
	return b
}

// count is the number of elements the box copies.
func (b *box) count() int {
	if b.empty {
		return 0
	}
	n := 1
	for _, d := range b.dims {
		n *= d
	}
	return n
}

// run copies the whole box, in parallel when it is large.
func (b *box) run(dst, src []byte, dOff, sOff int) {
	if b.empty {
		return
	}
	if len(b.dims) > 0 && b.count()*b.es >= parallelBytes && b.dims[0] > 1 {
		j := boxJobs.Get().(*boxJob)
		j.b, j.dst, j.src, j.dOff, j.sOff = b, dst, src, dOff, sOff
		parallelRows(b.dims[0], b.count()/b.dims[0]*b.es, j.fn)
		fn := j.fn
		*j = boxJob{fn: fn}
		boxJobs.Put(j)
		return
	}
	b.runRange(dst, src, dOff, sOff, 0, -1)
}

// boxJob is a parallel box copy, pooled with its loop function bound once
// (no closure per copy).
type boxJob struct {
	b          *box
	dst, src   []byte
	dOff, sOff int
	fn         func(lo, hi int)
}

var boxJobs = sync.Pool{New: func() any {
	j := new(boxJob)
	j.fn = func(lo, hi int) { j.b.runRange(j.dst, j.src, j.dOff, j.sOff, lo, hi) }
	return j
}}

// parallelRows runs fn over [0, n) rows of rowBytes each on the worker pool,
// in chunks of at least 64 KiB.
func parallelRows(n, rowBytes int, fn func(lo, hi int)) {
	grain := 1
	if rowBytes > 0 && rowBytes < 1<<16 {
		grain = (1 << 16) / rowBytes
	}
	parallelFor(n, grain, fn)
}

// runRange copies the part of the box whose first index lies in [lo, hi)
// (hi < 0: the whole box) on the calling goroutine.
func (b *box) runRange(dst, src []byte, dOff, sOff, lo, hi int) {
	if b.empty {
		return
	}
	n := len(b.dims)
	if n == 0 {
		copy(dst[dOff*b.es:dOff*b.es+b.es], src[sOff*b.es:sOff*b.es+b.es])
		return
	}
	var dimsBuf, idxBuf [maxStackRank]int
	var dims, idx []int
	if n <= maxStackRank {
		dims, idx = dimsBuf[:n], idxBuf[:n]
	} else {
		dims, idx = make([]int, n), make([]int, n)
	}
	copy(dims, b.dims)
	if hi >= 0 {
		dOff += lo * b.dS[0]
		sOff += lo * b.sS[0]
		dims[0] = hi - lo
		if dims[0] <= 0 {
			return
		}
	}
	inner := n - 1
	ni, dsi, ssi := dims[inner], b.dS[inner], b.sS[inner]
	tile := b.tile
	// The odometer runs over every dimension but the innermost (and the
	// tiled one).
	for {
		if tile >= 0 {
			copyTile(b.es, dst, src, dOff, sOff, dims[tile], ni, b.dS[tile], ssi)
		} else {
			copyRow(b.es, dst, src, dOff, sOff, ni, dsi, ssi)
		}
		k := inner - 1
		for ; k >= 0; k-- {
			if k == tile {
				continue
			}
			idx[k]++
			dOff += b.dS[k]
			sOff += b.sS[k]
			if idx[k] < dims[k] {
				break
			}
			dOff -= idx[k] * b.dS[k]
			sOff -= idx[k] * b.sS[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// copyRow copies n elements with strides ds (destination) and ss (source).
func copyRow(es int, dst, src []byte, dOff, sOff, n, ds, ss int) {
	if ds == 1 && ss == 1 {
		copy(dst[dOff*es:(dOff+n)*es], src[sOff*es:(sOff+n)*es])
		return
	}
	if ds == 1 && ss == 0 {
		kernel.Fill(dst[dOff*es:(dOff+n)*es], src[sOff*es:sOff*es+es])
		return
	}
	switch es {
	case 1:
		rowT(dst, src, dOff, sOff, n, ds, ss)
	case 2:
		rowT(asT[uint16](dst), asT[uint16](src), dOff, sOff, n, ds, ss)
	case 4:
		rowT(asT[uint32](dst), asT[uint32](src), dOff, sOff, n, ds, ss)
	case 8:
		rowT(asT[uint64](dst), asT[uint64](src), dOff, sOff, n, ds, ss)
	case 16:
		rowT(asT[[2]uint64](dst), asT[[2]uint64](src), dOff, sOff, n, ds, ss)
	default:
		for j := 0; j < n; j++ {
			d, s := (dOff+j*ds)*es, (sOff+j*ss)*es
			copy(dst[d:d+es], src[s:s+es])
		}
	}
}

func rowT[T any](dst, src []T, dOff, sOff, n, ds, ss int) {
	if ds == 1 {
		d := dst[dOff : dOff+n]
		for j := range d {
			d[j] = src[sOff]
			sOff += ss
		}
		return
	}
	for j := 0; j < n; j++ {
		dst[dOff] = src[sOff]
		dOff += ds
		sOff += ss
	}
}

// tileSize is the edge of the square tiles of a blocked transpose.
const tileSize = 32

// copyTile copies an na x nb block where the source is contiguous along a
// and the destination along b: dst[dOff + i·da + j] = src[sOff + i + j·sb].
func copyTile(es int, dst, src []byte, dOff, sOff, na, nb, da, sb int) {
	switch es {
	case 1:
		tileT(dst, src, dOff, sOff, na, nb, da, sb)
	case 2:
		tileT(asT[uint16](dst), asT[uint16](src), dOff, sOff, na, nb, da, sb)
	case 4:
		tileT(asT[uint32](dst), asT[uint32](src), dOff, sOff, na, nb, da, sb)
	case 8:
		tileT(asT[uint64](dst), asT[uint64](src), dOff, sOff, na, nb, da, sb)
	case 16:
		tileT(asT[[2]uint64](dst), asT[[2]uint64](src), dOff, sOff, na, nb, da, sb)
	default:
		for i := 0; i < na; i++ {
			copyRow(es, dst, src, dOff+i*da, sOff+i, nb, 1, sb)
		}
	}
}

func tileT[T any](dst, src []T, dOff, sOff, na, nb, da, sb int) {
	for i0 := 0; i0 < na; i0 += tileSize {
		i1 := min(i0+tileSize, na)
		for j0 := 0; j0 < nb; j0 += tileSize {
			j1 := min(j0+tileSize, nb)
			for i := i0; i < i1; i++ {
				d := dst[dOff+i*da+j0 : dOff+i*da+j1]
				s := sOff + i + j0*sb
				for j := range d {
					d[j] = src[s]
					s += sb
				}
			}
		}
	}
}
