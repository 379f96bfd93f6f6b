package movement

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// windowLayout maps every (output index, window index) pair of a windowed
// op to an operand offset, per dimension: tab[d][o·win[d] + w] is the
// operand element offset contributed by dimension d, or -1 when that
// position falls in padding (edge or base-dilation holes).
type windowLayout struct {
	outDims []int64
	win     []int64
	tab     [][]int
	nOut    int
	nWin    int
}

type windowAttrs struct {
	win, strides, baseDil, winDil, lo, hi []int64
}

// newWindowLayout plans the windows of an operand of shape in. fits
// checks that the tables (one int per output and window position of each
// dimension) may be allocated; their size also bounds the work per output.
func newWindowLayout(in []int64, a *windowAttrs, fits func(entries int64) error) (*windowLayout, error) {
	r := len(in)
	for _, v := range [][]int64{a.win, a.strides, a.baseDil, a.winDil, a.lo, a.hi} {
		if len(v) != r {
			return nil, fmt.Errorf("window attributes (window_dimensions %v, window_strides %v, base_dilations %v, window_dilations %v, padding low %v high %v) must each have %d entries", a.win, a.strides, a.baseDil, a.winDil, a.lo, a.hi, r)
		}
	}
	L := &windowLayout{win: a.win, nOut: 1, nWin: 1, tab: make([][]int, r), outDims: make([]int64, r)}
	inS := stridesInt(in)
	entries := int64(0)
	for d := 0; d < r; d++ {
		if a.win[d] <= 0 || a.strides[d] <= 0 || a.baseDil[d] <= 0 || a.winDil[d] <= 0 {
			return nil, fmt.Errorf("dimension %d: window_dimensions %d, window_strides %d, base_dilations %d and window_dilations %d must be positive", d, a.win[d], a.strides[d], a.baseDil[d], a.winDil[d])
		}
		out, ok := windowCount(in[d], a.lo[d], a.hi[d], a.baseDil[d], a.win[d], a.winDil[d], a.strides[d])
		var n int64
		if ok {
			n, ok = hlo.CheckedMul(out, a.win[d])
		}
		if ok {
			entries, ok = hlo.CheckedAdd(entries, n)
		}
		if !ok {
			return nil, fmt.Errorf("dimension %d: the windows (window_dimensions %d, window_strides %d, base_dilations %d, window_dilations %d, padding %d, %d over size %d) overflow int64", d, a.win[d], a.strides[d], a.baseDil[d], a.winDil[d], a.lo[d], a.hi[d], in[d])
		}
		L.outDims[d] = out
	}
	if err := fits(entries); err != nil {
		return nil, err
	}
	nOut, _ := hlo.CheckedNumElements(L.outDims)
	nWin, _ := hlo.CheckedNumElements(a.win)
	L.nOut, L.nWin = int(nOut), int(nWin)
	for d := 0; d < r; d++ {
		dilated := int64(0)
		if in[d] > 0 {
			dilated = (in[d]-1)*a.baseDil[d] + 1
		}
		out := L.outDims[d]
		t := make([]int, int(out*a.win[d]))
		for o := int64(0); o < out; o++ {
			for w := int64(0); w < a.win[d]; w++ {
				q := o*a.strides[d] + w*a.winDil[d] - a.lo[d]
				v := -1
				if q >= 0 && q < dilated && q%a.baseDil[d] == 0 {
					v = int(q/a.baseDil[d]) * inS[d]
				}
				t[o*a.win[d]+w] = v
			}
		}
		L.tab[d] = t
	}
	return L, nil
}

// windowCount is the number of windows along one dimension (0 when the
// window does not fit), false when the padded or dilated sizes overflow an
// int64.
func windowCount(in, lo, hi, baseDil, win, winDil, stride int64) (int64, bool) {
	dilated := int64(0)
	ok := true
	if in > 0 {
		m, ok1 := hlo.CheckedMul(in-1, baseDil)
		dilated, ok = hlo.CheckedAdd(m, 1)
		ok = ok && ok1
	}
	p1, ok2 := hlo.CheckedAdd(dilated, lo)
	padded, ok3 := hlo.CheckedAdd(p1, hi)
	m, ok4 := hlo.CheckedMul(win-1, winDil)
	span, ok5 := hlo.CheckedAdd(m, 1)
	if !(ok && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	if padded < span {
		return 0, true
	}
	return (padded-span)/stride + 1, true
}

// tableFits returns the fits function of newWindowLayout: the tables must
// fit the memory limit now (mem may be nil: only the int64 range).
func tableFits(check func(dt hlo.DType, dims []int64) error) func(int64) error {
	return func(n int64) error { return check(hlo.I64, []int64{n}) }
}

// forEachWindow calls fn(off) for every window element of output o, in
// lexicographic window order; off is -1 for padding.
func (L *windowLayout) forEachWindow(o int, fn func(off int)) {
	r := len(L.win)
	if r == 0 {
		fn(0)
		return
	}
	var rowBuf [maxStackRank][]int
	var idxBuf [maxStackRank]int
	var rows [][]int
	var idx []int
	if r <= maxStackRank {
		rows, idx = rowBuf[:r], idxBuf[:r]
	} else {
		rows, idx = make([][]int, r), make([]int, r)
	}
	for d := r - 1; d >= 0; d-- {
		od := o % int(L.outDims[d])
		o /= int(L.outDims[d])
		w := int(L.win[d])
		rows[d] = L.tab[d][od*w : od*w+w]
	}
	inner := rows[r-1]
	for {
		base, pad := 0, false
		for d := 0; d < r-1; d++ {
			v := rows[d][idx[d]]
			if v < 0 {
				pad = true
			}
			base += v
		}
		for _, v := range inner {
			if pad || v < 0 {
				fn(-1)
			} else {
				fn(base + v)
			}
		}
		k := r - 2
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(rows[k]) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// readWindowAttrs reads the attributes of reduce_window and
// select_and_scatter (defaults: strides and dilations 1, no padding).
func readWindowAttrs(c *kernel.OpCtx, r int, dilations bool) (*windowAttrs, error) {
	a := &windowAttrs{}
	var err error
	if a.win, err = reqInts(c, "window_dimensions"); err != nil {
		return nil, err
	}
	ones := func() []int64 {
		v := make([]int64, r)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	opt := func(name string) ([]int64, error) {
		v, ok, err := intsAttr(c, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return ones(), nil
		}
		return v, nil
	}
	if a.strides, err = opt("window_strides"); err != nil {
		return nil, err
	}
	a.baseDil, a.winDil = ones(), ones()
	if dilations {
		if a.baseDil, err = opt("base_dilations"); err != nil {
			return nil, err
		}
		if a.winDil, err = opt("window_dilations"); err != nil {
			return nil, err
		}
	}
	a.lo, a.hi = make([]int64, r), make([]int64, r)
	pad, ok, err := intsAttr(c, "padding")
	if err != nil {
		return nil, err
	}
	if ok {
		if len(pad) != 2*r {
			return nil, c.Errorf("padding %v must have %d (low, high) pairs", pad, r)
		}
		for d := 0; d < r; d++ {
			a.lo[d], a.hi[d] = pad[2*d], pad[2*d+1]
		}
	}
	return a, nil
}

type reduceWindowOp struct {
	op     *hlo.Op
	n      int
	attrs  *windowAttrs
	body   *region
	inDT   []hlo.DType
	outT   []*hlo.TensorType
	static *windowLayout
	acc    accFn
	pool   *poolShape // a pooling window (pool.go), or nil
}

func compileReduceWindow(c *kernel.OpCtx) (kernel.RunFn, error) {
	n := len(c.Out)
	if n == 0 || len(c.In) != 2*n {
		return nil, c.Errorf("has %d operands and %d results, want N inputs, N init values and N results", len(c.In), len(c.Out))
	}
	ro := &reduceWindowOp{op: c.Op, n: n}
	var ins []*hlo.TensorType
	for i := 0; i < n; i++ {
		t, err := tensorIn(c, i)
		if err != nil {
			return nil, err
		}
		it, err := tensorIn(c, n+i)
		if err != nil {
			return nil, err
		}
		ot, err := tensorOut(c, i)
		if err != nil {
			return nil, err
		}
		if it.Rank() != 0 || it.DType != t.DType {
			return nil, c.Errorf("init value %d has type %s, want a 0-d %s", i, it.ShapeString(), t.DType)
		}
		if i > 0 && !sameShape(t, ins[0]) {
			return nil, c.Errorf("input %d %s and input 0 %s differ in shape", i, t.ShapeString(), ins[0].ShapeString())
		}
		ins = append(ins, t)
		ro.inDT = append(ro.inDT, t.DType)
		ro.outT = append(ro.outT, ot)
	}
	var err error
	if ro.attrs, err = readWindowAttrs(c, ins[0].Rank(), true); err != nil {
		return nil, err
	}
	if ro.body, err = compileRegion(c, 0, "body", 2*n, n); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if ro.body.args[i] != ro.body.args[n+i] || ro.body.res[i] != ro.body.args[i] || ro.outT[i].DType != ro.body.res[i] || !promotable(ro.inDT[i], ro.body.args[i]) {
			return nil, c.Errorf("body types %v -> %v do not match input %s and result %s", ro.body.args, ro.body.res, ins[i].ShapeString(), ro.outT[i].ShapeString())
		}
	}
	if ins[0].IsStatic() {
		L, err := newWindowLayout(ins[0].Dims, ro.attrs, tableFits(c.CheckAlloc))
		if oom(err) {
			return nil, err
		}
		if err != nil {
			return nil, c.Errorf("%v (input %s)", err, ins[0].ShapeString())
		}
		for i := range ro.outT {
			if err := matchDims(ro.outT[i], L.outDims); err != nil {
				return nil, c.Errorf("%v (input %s)", err, ins[0].ShapeString())
			}
		}
		ro.static = L
	}
	if n == 1 && ro.inDT[0] == ro.body.args[0] {
		ro.acc, _, _ = binKernels(ro.body.kind, ro.inDT[0])
	}
	if ro.acc != nil && ro.static != nil {
		ro.pool = planPool(ins[0].Dims, ro.attrs, ro.static.outDims)
	}
	return ro.run, nil
}

func (ro *reduceWindowOp) run(x *kernel.Ctx, args, results []kernel.Value) error {
	op, n := ro.op, ro.n
	if ro.pool != nil {
		// One operand and its init (ro.acc needs one): no operand list.
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		init, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		return ro.runReducePool(x, ro.pool, in, init, results)
	}
	ins := make([]*hlo.Literal, 2*n)
	if err := lits(op, args, ins); err != nil {
		return err
	}
	L := ro.static
	if L == nil {
		var err error
		if L, err = newWindowLayout(ins[0].Dims, ro.attrs, tableFits(func(dt hlo.DType, dims []int64) error { return x.CheckAlloc(op, dt, dims) })); err != nil {
			if oom(err) {
				return err
			}
			return runErr(op, "%v (input %s)", err, ins[0].ShapeString())
		}
	}
	stop := newStopper(x)
	outs := make([]*hlo.Literal, n)
	inits := make([][]byte, n) // in the body's element type
	for i := range outs {
		dt := ro.outT[i].DType
		outs[i] = newOut(x, dt, L.outDims)
		inits[i] = ins[n+i].Data[:ro.inDT[i].Size()]
		if dt != ro.inDT[i] {
			b := make([]byte, dt.Size())
			convertElem(dt, b, ro.inDT[i], inits[i])
			inits[i] = b
		}
		kernel.Fill(outs[i].Data, inits[i])
		results[i] = outs[i]
	}
	if L.nOut == 0 {
		return nil
	}
	grain := max(1, 4096/max(1, L.nWin))
	if ro.acc != nil {
		out, in, init := outs[0].Data, ins[0].Data, ins[1].Data
		parallelFor(L.nOut, grain, func(lo, hi int) {
			for o := lo; o < hi && !stop.stopped(); o++ {
				L.forEachWindow(o, func(off int) {
					if off < 0 {
						ro.acc(out, o, 0, init, 0, 0, 1)
					} else {
						ro.acc(out, o, 0, in, off, 0, 1)
					}
				})
			}
		})
		return stop.err(op)
	}
	return forEachParallel(ro.body, x, L.nOut, max(1, grain/16), func(lo, hi int, c *caller) error {
		var err error
		for o := lo; o < hi && err == nil; o++ {
			if stop.stopped() {
				return stop.err(op)
			}
			for i := 0; i < n; i++ {
				c.setBytes(i, inits[i])
			}
			L.forEachWindow(o, func(off int) {
				if err != nil {
					return
				}
				for i := 0; i < n; i++ {
					if off < 0 {
						c.setBytes(n+i, inits[i])
					} else {
						c.set(n+i, ins[i].Data, off, ins[i].DType)
					}
				}
				if err = c.call(op); err != nil {
					return
				}
				for i := 0; i < n; i++ {
					c.setBytes(i, c.res(i))
				}
			})
			for i := 0; i < n; i++ {
				es := outs[i].DType.Size()
				copy(outs[i].Data[o*es:o*es+es], c.lits[i].Data)
			}
		}
		return err
	})
}

// oom reports an out-of-memory error, returned as it is (not wrapped).
func oom(err error) bool { return errors.Is(err, pjrt.ErrOutOfMemory) }

// stopper lets the workers of a parallel loop stop once the run is
// canceled: each polls stopped between outputs.
type stopper struct {
	x    *kernel.Ctx
	done atomic.Bool
}

func newStopper(x *kernel.Ctx) *stopper { return &stopper{x: x} }

func (s *stopper) stopped() bool {
	if s.done.Load() {
		return true
	}
	if s.x.Canceled() != nil {
		s.done.Store(true)
		return true
	}
	return false
}

// err is the error of a stopped loop, or nil.
func (s *stopper) err(op *hlo.Op) error {
	if s.done.Load() {
		return canceledErr(op, kernel.ErrCanceled)
	}
	return nil
}

// canceledErr names the op a cancellation stopped, keeping err matchable
// with errors.Is.
func canceledErr(op *hlo.Op, err error) error {
	if op.Loc.Line > 0 {
		return fmt.Errorf("%s: %s: %w", op.Loc, op.Name, err)
	}
	return fmt.Errorf("%s: %w", op.Name, err)
}
