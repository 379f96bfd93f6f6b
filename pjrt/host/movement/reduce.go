package movement

import (
	"fmt"
	"slices"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// rgroup is a run of adjacent operand dimensions that are all kept or all
// reduced, merged into one (the operand is dense row-major, so any such run
// is a single strided dimension).
type rgroup struct {
	n, inS int
}

// reduceLayout is the loop structure of a reduction over one operand shape.
type reduceLayout struct {
	outDims []int64
	nOut    int
	nRed    int
	kept    []rgroup // output order; the output is row-major over them
	red     []rgroup // lexicographic reduction order
	// lastKept says the operand's innermost (contiguous) dimension is kept.
	lastKept bool
}

func newReduceLayout(in, dims []int64) (*reduceLayout, error) {
	r := len(in)
	reduced := make([]bool, r)
	for _, d := range dims {
		if d < 0 || int(d) >= r || reduced[d] {
			return nil, fmt.Errorf("dimensions %v must be unique and in [0, %d)", dims, r)
		}
		reduced[d] = true
	}
	L := &reduceLayout{nOut: 1, nRed: 1}
	inS := stridesInt(in)
	prev := -1 // role of the last group: 0 kept, 1 reduced
	for d := 0; d < r; d++ {
		n := int(in[d])
		if reduced[d] {
			L.nRed *= n
		} else {
			L.outDims = append(L.outDims, in[d])
			L.nOut *= n
		}
		if n == 1 {
			continue
		}
		role := 0
		gs := &L.kept
		if reduced[d] {
			role, gs = 1, &L.red
		}
		if role == prev {
			g := &(*gs)[len(*gs)-1]
			g.n *= n
			g.inS = inS[d]
		} else {
			*gs = append(*gs, rgroup{n: n, inS: inS[d]})
		}
		prev = role
	}
	L.lastKept = prev == 0
	if L.outDims == nil {
		L.outDims = []int64{}
	}
	return L, nil
}

// keptBase returns the operand offset of output element o.
func (L *reduceLayout) keptBase(o int) int {
	base := 0
	for k := len(L.kept) - 1; k >= 0; k-- {
		g := L.kept[k]
		base += (o % g.n) * g.inS
		o /= g.n
	}
	return base
}

// forEachRow calls fn with the offset (relative to an output's base) of
// every run of the innermost reduced group, in lexicographic order; the
// run has length L.red[last].n and stride L.red[last].inS.
func forEachRow(red []rgroup, fn func(off int)) {
	outer := red[:len(red)-1]
	var idxBuf [maxStackRank]int
	var idx []int
	if len(outer) <= maxStackRank {
		idx = idxBuf[:len(outer)]
	} else {
		idx = make([]int, len(outer))
	}
	off := 0
	for {
		fn(off)
		k := len(outer) - 1
		for ; k >= 0; k-- {
			idx[k]++
			off += outer[k].inS
			if idx[k] < outer[k].n {
				break
			}
			off -= idx[k] * outer[k].inS
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// reduceOp is a compiled stablehlo.reduce.
type reduceOp struct {
	op      *hlo.Op
	n       int // number of inputs
	dims    []int64
	body    *region
	inDT    []hlo.DType
	outT    []*hlo.TensorType
	static  *reduceLayout
	acc     accFn // fast path (n == 1, body a single binary op)
	fold    foldFn
	rows    rowsFn
	sum     *sumKernels // float and complex add (sum.go)
	initBuf [][]byte    // scratch for converted init values (fast path)
	// widen is the body's type when an f16 or bf16 input is summed in a
	// wider float body: the input is converted first and reduced with
	// that type's kernels.
	widen hlo.DType
}

func compileReduce(c *kernel.OpCtx) (kernel.RunFn, error) {
	n := len(c.Out)
	if n == 0 || len(c.In) != 2*n {
		return nil, c.Errorf("has %d operands and %d results, want N inputs, N init values and N results", len(c.In), len(c.Out))
	}
	dims, err := reqInts(c, "dimensions")
	if err != nil {
		return nil, err
	}
	ro := &reduceOp{op: c.Op, n: n, dims: dims}
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
		if it.Rank() != 0 || it.DType != t.DType {
			return nil, c.Errorf("init value %d has type %s, want a 0-d %s", i, it.ShapeString(), t.DType)
		}
		if i > 0 && !sameShape(t, ins[0]) {
			return nil, c.Errorf("input %d %s and input 0 %s differ in shape", i, t.ShapeString(), ins[0].ShapeString())
		}
		ot, err := tensorOut(c, i)
		if err != nil {
			return nil, err
		}
		ins = append(ins, t)
		ro.inDT = append(ro.inDT, t.DType)
		ro.outT = append(ro.outT, ot)
	}
	if ro.body, err = compileRegion(c, 0, "body", 2*n, n); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if ro.body.args[i] != ro.body.args[n+i] || ro.body.res[i] != ro.body.args[i] || ro.outT[i].DType != ro.body.res[i] {
			return nil, c.Errorf("body types %v -> %v do not match input %s and result %s", ro.body.args, ro.body.res, ins[i].ShapeString(), ro.outT[i].ShapeString())
		}
		if !promotable(ro.inDT[i], ro.body.args[i]) {
			return nil, c.Errorf("input %s cannot be promoted to the body's element type %s", ins[i].ShapeString(), ro.body.args[i])
		}
	}
	if ins[0].IsStatic() {
		L, err := newReduceLayout(ins[0].Dims, dims)
		if err != nil {
			return nil, c.Errorf("%v (input %s)", err, ins[0].ShapeString())
		}
		for i := range ro.outT {
			if err := matchDims(ro.outT[i], L.outDims); err != nil {
				return nil, c.Errorf("dimensions %v: %v (input %s)", dims, err, ins[0].ShapeString())
			}
		}
		ro.static = L
	}
	if n == 1 && ro.inDT[0] != ro.body.args[0] && ro.body.kind == binAdd &&
		(ro.inDT[0] == hlo.F16 || ro.inDT[0] == hlo.BF16) && (ro.body.args[0] == hlo.F32 || ro.body.args[0] == hlo.F64) {
		ro.widen = ro.body.args[0]
	}
	if n == 1 && (ro.inDT[0] == ro.body.args[0] || ro.widen != 0) {
		et := ro.body.args[0]
		ro.acc, ro.fold, _ = binKernels(ro.body.kind, et)
		ro.rows = rowsKernel(ro.body.kind, et)
		if ro.body.kind == binAdd {
			switch et {
			case hlo.F32:
				ro.sum = sumKernelsOf[float32]()
			case hlo.F64:
				ro.sum = sumKernelsOf[float64]()
			case hlo.C64:
				ro.sum = sumKernelsOf[complex64]()
			case hlo.C128:
				ro.sum = sumKernelsOf[complex128]()
			}
		}
	}
	return ro.run, nil
}

func sameShape(a, b *hlo.TensorType) bool {
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] >= 0 && b.Dims[i] >= 0 && a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

// promotable reports whether from may be promoted to to (same kind, no
// narrower), as the spec allows between inputs and body arguments.
func promotable(from, to hlo.DType) bool {
	if from == to {
		return true
	}
	switch {
	case from.IsBool() || to.IsBool():
		return false
	case from.IsSigned() && to.IsSigned(), from.IsUnsigned() && to.IsUnsigned(),
		from.IsFloat() && to.IsFloat(), from.IsComplex() && to.IsComplex():
		return to.Bits() >= from.Bits()
	}
	return false
}

func (ro *reduceOp) run(x *kernel.Ctx, args, results []kernel.Value) error {
	if ro.acc != nil {
		return ro.runOne(x, args, results)
	}
	op := ro.op
	ins := make([]*hlo.Literal, 2*ro.n)
	if err := lits(op, args, ins); err != nil {
		return err
	}
	L, err := ro.layout(ins[0])
	if err != nil {
		return err
	}
	for i := 1; i < ro.n; i++ {
		if !slices.Equal(ins[i].Dims, ins[0].Dims) {
			return runErr(op, "input %d %s and input 0 %s differ in shape", i, ins[i].ShapeString(), ins[0].ShapeString())
		}
	}
	outs := make([]*hlo.Literal, ro.n)
	for i := range outs {
		dt := ro.outT[i].DType
		outs[i] = newOut(x, dt, L.outDims)
		init := ins[ro.n+i].Data
		if dt != ro.inDT[i] {
			b := make([]byte, dt.Size())
			convertElem(dt, b, ro.inDT[i], init)
			init = b
		}
		kernel.Fill(outs[i].Data, init[:dt.Size()])
		results[i] = outs[i]
	}
	if L.nOut == 0 || L.nRed == 0 {
		return nil
	}
	return ro.runBody(x, L, outs, ins)
}

// runOne is run for a single input with a typed body.
func (ro *reduceOp) runOne(x *kernel.Ctx, args, results []kernel.Value) error {
	in, err := lit(ro.op, args, 0)
	if err != nil {
		return err
	}
	init, err := lit(ro.op, args, 1)
	if err != nil {
		return err
	}
	L, err := ro.layout(in)
	if err != nil {
		return err
	}
	dt := ro.outT[0].DType
	out := newOut(x, dt, L.outDims)
	if ro.widen != 0 {
		// The spec promotes the input to the body's type: convert it once
		// (and the init value), then reduce with the wider type's kernels.
		wide := x.NewLiteralUninit(ro.widen, in.Dims)
		if x != nil {
			defer x.Pool.Put(wide)
		}
		widenFloats(wide, in)
		w := hlo.NewLiteral(ro.widen)
		convertElem(ro.widen, w.Data, init.DType, init.Data)
		in, init = wide, w
	}
	kernel.Fill(out.Data, init.Data[:dt.Size()])
	results[0] = out
	if L.nOut > 0 && L.nRed > 0 {
		ro.runFast(L, out.Data, in.Data, init.Data)
	}
	return nil
}

// widenFloats converts the f16 or bf16 literal src into the f32 or f64
// literal dst of the same shape.
func widenFloats(dst, src *hlo.Literal) {
	n := src.NumElements()
	parallelFor(n, reduceGrain, func(lo, hi int) {
		if dst.DType == hlo.F32 {
			d := dst.F32()
			for i := lo; i < hi; i++ {
				d[i] = float32(src.Float(i))
			}
			return
		}
		d := dst.F64()
		for i := lo; i < hi; i++ {
			d[i] = src.Float(i)
		}
	})
}

func (ro *reduceOp) layout(in *hlo.Literal) (*reduceLayout, error) {
	if ro.static != nil {
		return ro.static, nil
	}
	L, err := newReduceLayout(in.Dims, ro.dims)
	if err != nil {
		return nil, runErr(ro.op, "%v (input %s)", err, in.ShapeString())
	}
	return L, nil
}

// reduceGrain is the number of operand elements below which one task of a
// parallel reduction is not worth its scheduling.
const reduceGrain = 1 << 15

// runFast reduces with the typed kernels of a single-op body.
func (ro *reduceOp) runFast(L *reduceLayout, out, in, init []byte) {
	es := ro.body.args[0].Size()
	if len(L.red) == 0 {
		// Nothing to reduce but size-1 dimensions: out = op(init, in).
		ro.acc(out, 0, 1, in, 0, 1, L.nOut)
		return
	}
	if L.lastKept {
		ro.runColumns(L, out, in)
		return
	}
	last := L.red[len(L.red)-1]
	if L.nOut < kernel.Workers() && len(L.red) == 1 && last.inS == 1 && L.nRed >= 4*reduceGrain {
		ro.runSplit(L, out, in, init[:es])
		return
	}
	if L.nOut*L.nRed < 2*reduceGrain {
		ro.runRows(L, out, in, 0, L.nOut)
		return
	}
	j := reduceJobs.Get().(*reduceJob)
	j.ro, j.L, j.out, j.in = ro, L, out, in
	parallelFor(L.nOut, max(1, reduceGrain/L.nRed), j.fn)
	j.put()
}

// runRows reduces outputs [lo, hi) when the operand's innermost dimension
// is reduced: one fold per run of it (a cascade over the runs for long
// float sums).
func (ro *reduceOp) runRows(L *reduceLayout, out, in []byte, lo, hi int) {
	if ro.sum != nil && len(L.red) > 1 && L.nRed > sumSequential {
		ro.sum.rows(L, out, in, lo, hi)
		return
	}
	last := L.red[len(L.red)-1]
	for o := lo; o < hi; o++ {
		base := L.keptBase(o)
		forEachRow(L.red, func(off int) {
			if last.inS == 1 {
				ro.fold(out, o, in, base+off, last.n)
			} else {
				ro.acc(out, o, 0, in, base+off, last.inS, last.n)
			}
		})
	}
}

// runSplit reduces few outputs over a long contiguous run: each worker
// folds one contiguous chunk (starting from its first element, so the init
// value enters once), and the partial results combine in order.
func (ro *reduceOp) runSplit(L *reduceLayout, out, in, init []byte) {
	es := len(init)
	n := L.nRed
	chunks := min(kernel.Workers()*4, n/reduceGrain)
	step := (n + chunks - 1) / chunks
	chunks = (n + step - 1) / step
	j := reduceJobs.Get().(*reduceJob)
	defer j.put()
	if len(j.partBuf) < chunks*es {
		j.partBuf = hlo.AlignedBytes(chunks * es)
	}
	part := j.partBuf[:chunks*es]
	j.ro, j.L, j.in, j.part, j.step, j.es, j.split = ro, L, in, part, step, es, true
	for o := 0; o < L.nOut; o++ {
		j.base = L.keptBase(o)
		parallelFor(chunks, 1, j.fn)
		if ro.sum != nil {
			ro.sum.combine(out, o, part, chunks)
		} else {
			ro.acc(out, o, 0, part, 0, 1, chunks)
		}
	}
}

// runColumns reduces when the operand's innermost dimension is kept: each
// task owns a block of output columns and accumulates operand rows into it
// in lexicographic order of the reduced index.
func (ro *reduceOp) runColumns(L *reduceLayout, out, in []byte) {
	lastK := L.kept[len(L.kept)-1]
	nc := lastK.n
	rows := L.nOut / nc
	const block = 2048
	nb := (nc + block - 1) / block
	colsPer := (nc + nb - 1) / nb
	grain := max(1, reduceGrain/(L.nRed*colsPer))
	j := reduceJobs.Get().(*reduceJob)
	j.ro, j.L, j.out, j.in, j.nb, j.colsPer, j.columns = ro, L, out, in, nb, colsPer, true
	j.outer = reduceLayout{kept: L.kept[:len(L.kept)-1]}
	if L.nOut*L.nRed < 2*reduceGrain {
		j.run(0, rows*nb)
	} else {
		parallelFor(rows*nb, grain, j.fn)
	}
	j.put()
}

// reduceJob is one reduction's parallel loop over output rows or column
// blocks, pooled with its loop function bound once, so that a reduction
// allocates no closure (nor its outer layout) per execution.
type reduceJob struct {
	ro          *reduceOp
	L           *reduceLayout
	outer       reduceLayout // columns: the layout of the rows of blocks
	out, in     []byte
	nb, colsPer int
	columns     bool // runColumnBlocks, else runRows
	// split: runSplit's chunks of step elements of in from base, each
	// folded into its element of part (es bytes each).
	split          bool
	part           []byte
	base, step, es int
	partBuf        []byte // part's storage, kept with the job
	fn             func(lo, hi int)
}

var reduceJobs = sync.Pool{New: func() any {
	j := new(reduceJob)
	j.fn = j.run
	return j
}}

func (j *reduceJob) run(lo, hi int) {
	if j.split {
		n, es := j.L.nRed, j.es
		for k := lo; k < hi; k++ {
			s := k * j.step
			e := min(s+j.step, n)
			copy(j.part[k*es:k*es+es], j.in[(j.base+s)*es:(j.base+s+1)*es])
			j.ro.fold(j.part, k, j.in, j.base+s+1, e-s-1)
		}
		return
	}
	if j.columns {
		j.ro.runColumnBlocks(j.L, &j.outer, j.out, j.in, j.nb, j.colsPer, lo, hi)
		return
	}
	j.ro.runRows(j.L, j.out, j.in, lo, hi)
}

// put drops the job's references and pools it.
func (j *reduceJob) put() {
	fn, buf := j.fn, j.partBuf
	*j = reduceJob{fn: fn, partBuf: buf}
	reduceJobs.Put(j)
}

// runColumnBlocks reduces column blocks [lo, hi) (block t is output row
// t/nb, columns of block t%nb).
func (ro *reduceOp) runColumnBlocks(L, outer *reduceLayout, out, in []byte, nb, colsPer, lo, hi int) {
	if ro.sum != nil && L.nRed > sumSequential {
		ro.sum.cols(L, outer, out, in, nb, colsPer, lo, hi)
		return
	}
	nc := L.kept[len(L.kept)-1].n
	{
		for t := lo; t < hi; t++ {
			row, b := t/nb, t%nb
			c0 := b * colsPer
			c1 := min(c0+colsPer, nc)
			base := outer.keptBase(row) + c0
			o := row*nc + c0
			if ro.rows != nil {
				last := L.red[len(L.red)-1]
				forEachRow(L.red, func(off int) {
					ro.rows(out, o, in, base+off, last.inS, last.n, c1-c0)
				})
				continue
			}
			forEachOffset(L.red, func(off int) {
				ro.acc(out, o, 1, in, base+off, 1, c1-c0)
			})
		}
	}
}

// forEachOffset calls fn with the offset of every element of the groups,
// in lexicographic order.
func forEachOffset(gs []rgroup, fn func(off int)) {
	last := gs[len(gs)-1]
	forEachRow(gs, func(off int) {
		for j := 0; j < last.n; j++ {
			fn(off + j*last.inS)
		}
	})
}

// runBody reduces by calling the body region per element: acc = init;
// acc = body(acc..., x...) in lexicographic order of the reduced index.
func (ro *reduceOp) runBody(x *kernel.Ctx, L *reduceLayout, outs, ins []*hlo.Literal) error {
	n := ro.n
	op := ro.op
	grain := max(1, 256/max(1, L.nRed))
	red := L.red
	if len(red) == 0 {
		red = []rgroup{{n: 1, inS: 1}}
	}
	return forEachParallel(ro.body, x, L.nOut, grain, func(lo, hi int, c *caller) error {
		var err error
		for o := lo; o < hi && err == nil; o++ {
			base := L.keptBase(o)
			for i := 0; i < n; i++ {
				c.set(i, outs[i].Data, o, outs[i].DType)
			}
			forEachOffset(red, func(off int) {
				if err != nil {
					return
				}
				for i := 0; i < n; i++ {
					c.set(n+i, ins[i].Data, base+off, ins[i].DType)
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
