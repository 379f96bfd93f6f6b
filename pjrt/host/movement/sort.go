package movement

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// sortOp is a compiled stablehlo.sort. Every 1-D slice along the dimension
// is sorted as a permutation of positions by a merge sort (stable, so it
// serves is_stable either way) that asks the comparator less(a, b) only,
// then each input is permuted into its result.
type sortOp struct {
	op   *hlo.Op
	n    int
	dim  int64
	cmp  *region
	dts  []hlo.DType
	fast func(ins []*hlo.Literal) func(a, b int) bool // typed comparator, or nil
}

// lessFn compares elements at flat offsets a and b.
type lessFn func(a, b int) bool

func compileSort(c *kernel.OpCtx) (kernel.RunFn, error) {
	n := len(c.In)
	if n == 0 || len(c.Out) != n {
		return nil, c.Errorf("has %d inputs and %d results, want N of each (N >= 1)", len(c.In), len(c.Out))
	}
	dim, err := intAttr(c, -1, "dimension")
	if err != nil {
		return nil, err
	}
	so := &sortOp{op: c.Op, n: n, dim: dim}
	var t0 *hlo.TensorType
	for i := 0; i < n; i++ {
		t, err := tensorIn(c, i)
		if err != nil {
			return nil, err
		}
		ot, err := tensorOut(c, i)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			t0 = t
		} else if !sameShape(t, t0) {
			return nil, c.Errorf("input %d %s and input 0 %s differ in shape", i, t.ShapeString(), t0.ShapeString())
		}
		if ot.DType != t.DType || !sameShape(ot, t) {
			return nil, c.Errorf("result %d %s differs from input %s", i, ot.ShapeString(), t.ShapeString())
		}
		so.dts = append(so.dts, t.DType)
	}
	r := int64(t0.Rank())
	if dim < -r || dim >= r {
		return nil, c.Errorf("dimension %d out of range for inputs of rank %d (%s)", dim, r, t0.ShapeString())
	}
	if so.cmp, err = compileRegion(c, 0, "comparator", 2*n, 1); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if so.cmp.args[2*i] != so.dts[i] || so.cmp.args[2*i+1] != so.dts[i] {
			return nil, c.Errorf("comparator arguments %v do not match the inputs' element types %v", so.cmp.args, so.dts)
		}
	}
	if so.cmp.res[0] != hlo.Bool {
		return nil, c.Errorf("comparator returns %s, want i1", so.cmp.res[0])
	}
	if cb := so.cmp.cmp; cb != nil {
		so.fast = fastLess(cb)
	}
	return so.run, nil
}

func (so *sortOp) run(x *kernel.Ctx, args, results []kernel.Value) error {
	op, n := so.op, so.n
	ins := make([]*hlo.Literal, n)
	for i := range ins {
		l, err := lit(op, args, i)
		if err != nil {
			return err
		}
		if i > 0 && !slices.Equal(l.Dims, ins[0].Dims) {
			return runErr(op, "input %d %s and input 0 %s differ in shape", i, l.ShapeString(), ins[0].ShapeString())
		}
		ins[i] = l
	}
	dims := ins[0].Dims
	r := len(dims)
	d := int(so.dim)
	if d < 0 {
		d += r
	}
	outs := make([]*hlo.Literal, n)
	for i := range outs {
		outs[i] = newOut(x, so.dts[i], dims)
		results[i] = outs[i]
	}
	if r == 0 {
		for i := range outs {
			copy(outs[i].Data, ins[i].Data)
		}
		return nil
	}
	// A slice is the run of positions base + k·stride, k < length.
	length := int(dims[d])
	stride := stridesInt(dims)[d]
	total := numel(dims)
	if total == 0 {
		return nil
	}
	nSlices := total / length
	base := func(s int) int { return (s/stride)*stride*length + s%stride }
	work := func(lo, hi int, less lessFn, cur *int) {
		perm := make([]int32, length)
		buf := make([]int32, length)
		for s := lo; s < hi; s++ {
			b := base(s)
			*cur = b
			for k := range perm {
				perm[k] = int32(k)
			}
			mergeSort(perm, buf, less)
			for i := range outs {
				es := so.dts[i].Size()
				out, in := outs[i].Data, ins[i].Data
				for k, p := range perm {
					dst := (b + k*stride) * es
					src := (b + int(p)*stride) * es
					copy(out[dst:dst+es], in[src:src+es])
				}
			}
		}
	}
	grain := max(1, 4096/max(1, length))
	if so.fast != nil {
		pos := so.fast(ins)
		parallelFor(nSlices, grain, func(lo, hi int) {
			var cur int
			less := func(a, b int) bool { return pos(cur+a*stride, cur+b*stride) }
			work(lo, hi, less, &cur)
		})
		return nil
	}
	return forEachParallel(so.cmp, x, nSlices, grain, func(lo, hi int, c *caller) error {
		var err error
		var cur int
		less := func(a, b int) bool {
			if err != nil {
				return false
			}
			for i := 0; i < n; i++ {
				c.set(2*i, ins[i].Data, cur+a*stride, so.dts[i])
				c.set(2*i+1, ins[i].Data, cur+b*stride, so.dts[i])
			}
			if err = c.call(op); err != nil {
				return false
			}
			return c.truth()
		}
		work(lo, hi, less, &cur)
		return err
	})
}

// mergeSort sorts perm stably by less, using buf (same length) as scratch.
// Short runs are insertion-sorted first.
func mergeSort(perm, buf []int32, less lessFn) {
	n := len(perm)
	if n < 2 {
		return
	}
	const run = 16
	for lo := 0; lo < n; lo += run {
		hi := min(lo+run, n)
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && less(int(perm[j]), int(perm[j-1])); j-- {
				perm[j], perm[j-1] = perm[j-1], perm[j]
			}
		}
	}
	src, dst := perm, buf
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid := min(lo+width, n)
			hi := min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				// Take from the right run only when strictly less: stability.
				if less(int(src[j]), int(src[i])) {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &perm[0] {
		copy(perm, src)
	}
}
