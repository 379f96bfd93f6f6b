package movement

import (
	"math/bits"
	"sync"
)

// Float add-reductions as blocked pairwise trees (RATIONALE.md: "Why
// blocked pairwise summation, and what error bound?"). An output of at most
// sumSequential terms is summed left to right from the init value, the
// reference interpreter's order (the conformance corpus checks small sums
// bit for bit). Larger outputs sum contiguous runs in leaves of sumBlock
// terms (sumLanes interleaved accumulators, a loop the CPU pipelines),
// combine leaves pairwise, and combine runs, rows and parallel chunks
// through binary-counter cascades, so that no term goes through more than
// sumDepth(n) additions: |sum - exact| <= sumDepth(n) * u * sum(|x|) to
// first order, u the unit roundoff (2^-24 for f32), instead of n * u for a
// left fold. Integer sums are exact in any order and keep the plain loops.

const (
	sumSequential = 64  // terms per output summed left to right
	sumBlock      = 128 // terms per leaf of the pairwise tree
	sumLanes      = 8   // interleaved accumulators in a leaf
	sumColBlock   = 64  // rows summed into one partial row before it joins the cascade
)

// sumDepth bounds the additions a term goes through in a sum of n >
// sumSequential terms per output, in any layout: a leaf (15 lane additions
// and 3 to combine the lanes) or a sequential run of at most 64 terms, the
// pairwise tree and the cascades (at most 2*ceil(log2 n) together), and
// the init value.
func sumDepth(n int) int { return 64 + 2*ceilLog2(n) }

func ceilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

type sumT interface {
	~float32 | ~float64 | ~complex64 | ~complex128
}

// pairSum is the blocked pairwise sum of s (len(s) > 0). Long sums read
// four quarters in lockstep (four memory streams keep more loads in
// flight than one), each quarter's leaves of sumBlock terms going into its
// own cascade; the four totals then combine pairwise.
func pairSum[T sumT](s []T) T {
	if len(s) <= 8*sumBlock {
		return treeOfLeaves(s)
	}
	q := len(s) / 4 / sumBlock * sumBlock
	s0, s1, s2, s3 := s[:q], s[q:2*q], s[2*q:3*q], s[3*q:]
	var c0, c1, c2, c3 cascade[T]
	for i := 0; i < q; i += sumBlock {
		c0.push(leafSum(s0[i : i+sumBlock]))
		c1.push(leafSum(s1[i : i+sumBlock]))
		c2.push(leafSum(s2[i : i+sumBlock]))
		c3.push(leafSum(s3[i : i+sumBlock]))
	}
	for i := q; i < len(s3); i += sumBlock {
		c3.push(leafSum(s3[i:min(i+sumBlock, len(s3))]))
	}
	return (c0.total() + c1.total()) + (c2.total() + c3.total())
}

// treeOfLeaves is the pairwise sum of s over leaves of at most sumBlock
// terms, split near the middle at a leaf boundary.
func treeOfLeaves[T sumT](s []T) T {
	if len(s) <= sumBlock {
		return leafSum(s)
	}
	h := (len(s)/2 + sumBlock - 1) / sumBlock * sumBlock
	return treeOfLeaves(s[:h]) + treeOfLeaves(s[h:])
}

// leafSum sums at most sumBlock terms in sumLanes interleaved accumulators
// (each starts at its first term, so a sum of -0s stays -0).
func leafSum[T sumT](s []T) T {
	if len(s) < sumLanes {
		acc := s[0]
		for _, v := range s[1:] {
			acc += v
		}
		return acc
	}
	// Locals, not an array: the accumulators stay in registers.
	a0, a1, a2, a3, a4, a5, a6, a7 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	s = s[sumLanes:]
	for len(s) >= sumLanes {
		a0 += s[0]
		a1 += s[1]
		a2 += s[2]
		a3 += s[3]
		a4 += s[4]
		a5 += s[5]
		a6 += s[6]
		a7 += s[7]
		s = s[sumLanes:]
	}
	// At most 7 left: one each into the first lanes.
	switch len(s) {
	case 7:
		a6 += s[6]
		fallthrough
	case 6:
		a5 += s[5]
		fallthrough
	case 5:
		a4 += s[4]
		fallthrough
	case 4:
		a3 += s[3]
		fallthrough
	case 3:
		a2 += s[2]
		fallthrough
	case 2:
		a1 += s[1]
		fallthrough
	case 1:
		a0 += s[0]
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// runSum sums one contiguous run: left to right when short, pairwise when
// long.
func runSum[T sumT](s []T) T {
	if len(s) <= sumSequential {
		acc := s[0]
		for _, v := range s[1:] {
			acc += v
		}
		return acc
	}
	return pairSum(s)
}

// treeSum is the pairwise sum of partial results (len(s) > 0).
func treeSum[T sumT](s []T) T {
	if len(s) == 1 {
		return s[0]
	}
	h := (len(s) + 1) / 2
	return treeSum(s[:h]) + treeSum(s[h:])
}

// foldSum is the foldFn of float and complex add: left to right from the
// accumulator up to sumSequential terms, else acc + pairSum.
func foldSum[T sumT](dst []byte, dOff int, src []byte, sOff, n int) {
	d, s := asT[T](dst), asT[T](src)[sOff:sOff+n]
	acc := d[dOff]
	if n > sumSequential {
		d[dOff] = acc + pairSum(s)
		return
	}
	for _, v := range s {
		acc += v
	}
	d[dOff] = acc
}

// cascade sums a stream of partial results pairwise (a binary counter:
// level k holds the sum of 2^k consecutive partials).
type cascade[T sumT] struct {
	lvl  [64]T
	used uint64
}

func (c *cascade[T]) push(v T) {
	k := 0
	for c.used&(1<<k) != 0 {
		v = c.lvl[k] + v
		c.used &^= 1 << k
		k++
	}
	c.lvl[k] = v
	c.used |= 1 << k
}

// total returns the sum of everything pushed (0 when nothing) and resets c.
func (c *cascade[T]) total() T {
	var t T
	first := true
	for k := 0; c.used != 0; k++ {
		if c.used&(1<<k) == 0 {
			continue
		}
		if first {
			t, first = c.lvl[k], false
		} else {
			t = c.lvl[k] + t
		}
		c.used &^= 1 << k
	}
	return t
}

// sumKernels are the typed layouts of a float or complex add-reduction.
type sumKernels struct {
	// rows reduces outputs [lo, hi) whose innermost reduced group is
	// contiguous and which have several runs of it.
	rows func(L *reduceLayout, out, in []byte, lo, hi int)
	// cols reduces column blocks [lo, hi) (the operand's innermost
	// dimension is kept), as runColumnBlocks.
	cols func(L, outer *reduceLayout, out, in []byte, nb, colsPer, lo, hi int)
	// combine adds the pairwise sum of n partial results to out[o].
	combine func(out []byte, o int, part []byte, n int)
}

func sumKernelsOf[T sumT]() *sumKernels {
	return &sumKernels{rows: sumRows[T], cols: sumCols[T], combine: func(out []byte, o int, part []byte, n int) {
		d := asT[T](out)
		d[o] += treeSum(asT[T](part)[:n])
	}}
}

// rowIter walks the runs of the innermost reduced group in lexicographic
// order, as forEachRow, without a closure.
type rowIter struct {
	outer []rgroup
	idx   []int
	off   int
}

func newRowIter(red []rgroup) *rowIter {
	return &rowIter{outer: red[:len(red)-1], idx: make([]int, len(red)-1)}
}

func (it *rowIter) reset() {
	clear(it.idx)
	it.off = 0
}

// next advances to the next run; false after the last.
func (it *rowIter) next() bool {
	k := len(it.outer) - 1
	for ; k >= 0; k-- {
		it.idx[k]++
		it.off += it.outer[k].inS
		if it.idx[k] < it.outer[k].n {
			return true
		}
		it.off -= it.idx[k] * it.outer[k].inS
		it.idx[k] = 0
	}
	return false
}

func sumRows[T sumT](L *reduceLayout, out, in []byte, lo, hi int) {
	d, s := asT[T](out), asT[T](in)
	m := L.red[len(L.red)-1].n
	it := newRowIter(L.red)
	var c cascade[T]
	for o := lo; o < hi; o++ {
		base := L.keptBase(o)
		it.reset()
		for {
			c.push(runSum(s[base+it.off : base+it.off+m]))
			if !it.next() {
				break
			}
		}
		d[o] += c.total()
	}
}

// rowCascade is a cascade of partial rows (width at most w).
type rowCascade[T sumT] struct {
	lvl   [][]T // nil: level empty
	free  [][]T
	slab  []T // storage for the buffers not yet handed out
	w     int
	store []T // all of the slab, kept with the cascade for its next use
}

// rowCascades pool the cascades of the element types of sumT, so that a
// column sum allocates nothing per execution.
var rowCascades [4]sync.Pool

func rowCascadePool[T sumT]() *sync.Pool {
	switch any(*new(T)).(type) {
	case float32:
		return &rowCascades[0]
	case float64:
		return &rowCascades[1]
	case complex64:
		return &rowCascades[2]
	case complex128:
		return &rowCascades[3]
	}
	return nil
}

// getRowCascade returns an empty cascade for sums of up to rows rows in
// blocks of sumColBlock, with its buffers in one slab; put gives it back.
func getRowCascade[T sumT](w, rows int) *rowCascade[T] {
	n := ceilLog2((rows+sumColBlock-1)/sumColBlock) + 3 // levels, the current row and one spare
	var c *rowCascade[T]
	if p := rowCascadePool[T](); p != nil {
		c, _ = p.Get().(*rowCascade[T])
	}
	if c == nil {
		c = &rowCascade[T]{lvl: make([][]T, 0, n), free: make([][]T, 0, n)}
	}
	if cap(c.store) < n*w {
		c.store = make([]T, n*w)
	}
	c.w, c.slab = w, c.store[:n*w]
	return c
}

// put empties c and pools it.
func (c *rowCascade[T]) put() {
	clear(c.lvl)
	clear(c.free)
	c.lvl, c.free, c.slab = c.lvl[:0], c.free[:0], nil
	if p := rowCascadePool[T](); p != nil {
		p.Put(c)
	}
}

func (c *rowCascade[T]) buf() []T {
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free = c.free[:n-1]
		return b
	}
	if len(c.slab) >= c.w {
		b := c.slab[:c.w:c.w]
		c.slab = c.slab[c.w:]
		return b
	}
	return make([]T, c.w)
}

// push adds the partial row cur (which c takes) and returns an empty
// buffer for the next one.
func (c *rowCascade[T]) push(cur []T) []T {
	k := 0
	for ; k < len(c.lvl) && c.lvl[k] != nil; k++ {
		l := c.lvl[k][:len(cur)]
		for j := range cur {
			cur[j] = l[j] + cur[j]
		}
		c.free = append(c.free, c.lvl[k])
		c.lvl[k] = nil
	}
	if k == len(c.lvl) {
		c.lvl = append(c.lvl, nil)
	}
	c.lvl[k] = cur[:cap(cur)]
	return c.buf()
}

// addTotal adds the sum of everything pushed to dst and resets c.
func (c *rowCascade[T]) addTotal(dst []T) {
	var acc []T
	defer func() {
		for j := range acc {
			dst[j] += acc[j]
		}
	}()
	for k, l := range c.lvl {
		if l == nil {
			continue
		}
		l = l[:len(dst)]
		if acc == nil {
			acc = l
		} else {
			for j := range acc {
				acc[j] = l[j] + acc[j]
			}
		}
		c.free = append(c.free, c.lvl[k])
		c.lvl[k] = nil
	}
}

func sumCols[T sumT](L, outer *reduceLayout, out, in []byte, nb, colsPer, lo, hi int) {
	d, s := asT[T](out), asT[T](in)
	nc := L.kept[len(L.kept)-1].n
	last := L.red[len(L.red)-1]
	it := newRowIter(L.red)
	c := getRowCascade[T](colsPer, L.nRed)
	defer c.put()
	cur := c.buf()
	for t := lo; t < hi; t++ {
		row, b := t/nb, t%nb
		c0 := b * colsPer
		c1 := min(c0+colsPer, nc)
		w := c1 - c0
		base := outer.keptBase(row) + c0
		cnt := 0
		it.reset()
		for {
			for k := 0; k < last.n; {
				take := min(sumColBlock-cnt, last.n-k)
				r0 := base + it.off + k*last.inS
				p := cur[:w]
				if cnt == 0 {
					copy(p, s[r0:r0+w])
					addRowsT(p, s, r0+last.inS, last.inS, take-1)
				} else {
					addRowsT(p, s, r0, last.inS, take)
				}
				cnt += take
				k += take
				if cnt == sumColBlock {
					cur = c.push(p)
					cnt = 0
				}
			}
			if !it.next() {
				break
			}
		}
		if cnt > 0 {
			cur = c.push(cur[:w])
		}
		c.addTotal(d[row*nc+c0 : row*nc+c1])
	}
}
