package linalg

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// An epilogue is a chain of elementwise ops applied to a product's result
// inside the GEMM: each op reads the value the chain has made so far and
// other operands that are cheap to index by the output's flat position,
// and writes the result in place (it keeps the product's shape and
// element type). Each op runs its own tile function (the one elementwise
// fusion runs), on one finished row segment of the product at a time.

type epiSrcKind uint8

const (
	srcChain  epiSrcKind = iota // the chain's value so far (the segment itself)
	srcFull                     // input in: the product's shape, at the same flat index
	srcRow                      // input in: a vector along the last dimension (a broadcast bias), at flat % n
	srcSplat                    // input in: rank 0, broadcast to every element (a per-task filled buffer)
	srcScalar                   // input in: rank 0, an operand of an op taking scalar operands (passed whole)
	srcFixed                    // fixed in: a value the program fixes in every element (a per-task buffer filled once)
)

type epiSrc struct {
	kind epiSrcKind
	in   int // index in the epilogue's inputs (not srcChain), or in fixed (srcFixed)
}

type epiMember struct {
	fn   kernel.TileFn
	srcs []epiSrc
}

// epilogue is a compiled chain.
type epilogue struct {
	members []epiMember
	dtype   hlo.DType // the product's element type
	n       int       // the product's last dimension
	rowLen  int       // the GEMM's output rows (the longest segment)
	inKinds []epiSrcKind
	inTypes []*hlo.TensorType
	// fixed are the elements of splatted constants (kernel.SplatElement)
	// the chain reads: no input, no step made them.
	fixed  []hlo.Literal
	states sync.Pool // *epiState
	runs   sync.Pool // *epiRun
}

// epiRun is one execution's epilogue: its inputs. Runs are reused (bind,
// release), with their task functions bound once, so that an execution
// allocates nothing for its epilogue.
type epiRun struct {
	e       *epilogue
	ins     []*hlo.Literal
	taskF32 func() (func(seg []float32, flat int), func())
	taskF64 func() (func(seg []float64, flat int), func())
}

// epiState is one task's views and splat buffers, and its apply and done
// functions (bound once; apply reads the run in r).
type epiState struct {
	r     *epiRun
	dst   hlo.Literal
	views [][]hlo.Literal
	srcs  [][]*hlo.Literal
	splat [][]byte // per input (srcSplat inputs only)
	fixed [][]byte // per fixed element, filled when the state is made

	apply    func(seg []byte, flat int)
	applyF32 func(seg []float32, flat int)
	applyF64 func(seg []float64, flat int)
	done     func()
}

// buildEpilogue grows the chain from v (the product's value): while v's
// only reader is an elementwise op of v's shape and element type whose
// other operands the epilogue can index, that op joins. It returns the
// chain (nil if empty), its inputs, the ops it absorbs (the chain and the
// broadcasts only the chain reads), and the chain's last value.
//
// rowLen is the length of the GEMM's output rows: a vector along the last
// dimension is indexed by flat % n only when that dimension is a whole row.
func buildEpilogue(g *kernel.GroupCtx, v *hlo.Value, taken []*hlo.Op, rowLen int) (*epilogue, []*hlo.Value, []*hlo.Op, *hlo.Value, error) {
	vt := v.TensorType()
	rank := vt.Rank()
	if rank == 0 {
		return nil, nil, nil, v, nil
	}
	e := &epilogue{dtype: vt.DType, n: int(vt.Dims[rank-1]), rowLen: rowLen}
	var inputs []*hlo.Value
	var members, bcasts []*hlo.Op
	input := func(x *hlo.Value, kind epiSrcKind) int {
		for i, y := range inputs {
			if y == x && e.inKinds[i] == kind {
				return i
			}
		}
		inputs = append(inputs, x)
		e.inKinds = append(e.inKinds, kind)
		e.inTypes = append(e.inTypes, x.TensorType())
		return len(inputs) - 1
	}
	for len(members) < maxChain {
		u := soleUser(g, v)
		if u == nil || slices.Contains(taken, u) || len(u.Results) != 1 || len(u.Regions) > 0 {
			break
		}
		ent := kernel.Lookup(u.Name)
		ut := u.Results[0].TensorType()
		if ent == nil || ent.Elementwise == nil || ut == nil || ut.Quant != nil || ut.DType != vt.DType || !slices.Equal(ut.Dims, vt.Dims) {
			break
		}
		var srcs []epiSrc
		nIn, nKinds, nFixed := len(inputs), len(e.inKinds), len(e.fixed)
		ok := true
		for _, w := range u.Operands {
			wt := w.TensorType()
			fixed, isFixed := kernel.SplatElement(w)
			switch {
			case w == v:
				srcs = append(srcs, epiSrc{kind: srcChain})
			case wt == nil || wt.Quant != nil || !wt.IsStatic() || w.Def != nil && slices.Contains(taken, w.Def):
				ok = false
			case wt.Rank() == 0 && ent.Elementwise.ScalarOperands:
				srcs = append(srcs, epiSrc{srcScalar, input(w, srcScalar)})
			case !slices.Equal(wt.Dims, vt.Dims):
				ok = false
			case isFixed:
				e.fixed = append(e.fixed, fixed)
				srcs = append(srcs, epiSrc{srcFixed, len(e.fixed) - 1})
				bcasts = append(bcasts, w.Def)
			case isSplatOf(w):
				srcs = append(srcs, epiSrc{srcSplat, input(w.Def.Operands[0], srcSplat)})
				bcasts = append(bcasts, w.Def)
			case isRowBroadcast(w) && e.n == rowLen:
				srcs = append(srcs, epiSrc{srcRow, input(w.Def.Operands[0], srcRow)})
				bcasts = append(bcasts, w.Def)
			default:
				srcs = append(srcs, epiSrc{srcFull, input(w, srcFull)})
			}
			if !ok {
				break
			}
		}
		var fn kernel.TileFn
		if ok {
			var err error
			if fn, err = ent.Elementwise.Prepare(g.OpCtx(u)); err != nil {
				ok = false
			}
		}
		if !ok {
			inputs, e.inKinds, e.inTypes, e.fixed = inputs[:nIn], e.inKinds[:nKinds], e.inTypes[:nKinds], e.fixed[:nFixed]
			break
		}
		e.members = append(e.members, epiMember{fn: fn, srcs: srcs})
		members = append(members, u)
		v = u.Results[0]
	}
	if len(members) == 0 {
		return nil, nil, nil, v, nil
	}
	// A chain value read again later in the chain stays an input: it
	// must not be one of the chain's own values.
	for _, x := range inputs {
		if x.Def != nil && slices.Contains(members, x.Def) {
			return nil, nil, nil, nil, errorf("epilogue input made by the chain")
		}
	}
	absorbed := slices.Clone(members)
	for _, b := range bcasts {
		if slices.Contains(absorbed, b) || slices.Contains(taken, b) || !g.InBlock(b) || g.Returned(b.Results[0]) {
			continue
		}
		only := true
		for _, u := range g.Users(b.Results[0]) {
			only = only && slices.Contains(members, u)
		}
		if only {
			absorbed = append(absorbed, b)
		}
	}
	n := len(e.members)
	e.states.New = func() any {
		st := &epiState{views: make([][]hlo.Literal, n), srcs: make([][]*hlo.Literal, n), splat: make([][]byte, len(e.inKinds))}
		for j, m := range e.members {
			st.views[j] = make([]hlo.Literal, len(m.srcs))
			st.srcs[j] = make([]*hlo.Literal, len(m.srcs))
			for k := range m.srcs {
				st.srcs[j][k] = &st.views[j][k]
			}
		}
		for i, kind := range e.inKinds {
			if kind == srcSplat {
				st.splat[i] = hlo.AlignedBytes(e.rowLen * e.inTypes[i].DType.Size())
			}
		}
		st.fixed = make([][]byte, len(e.fixed))
		for i, f := range e.fixed {
			st.fixed[i] = hlo.AlignedBytes(e.rowLen * f.DType.Size())
			kernel.Fill(st.fixed[i], f.Data)
		}
		st.apply, st.done = st.applyBytes, st.release
		st.applyF32 = func(seg []float32, flat int) { st.apply(asBytes(seg), flat) }
		st.applyF64 = func(seg []float64, flat int) { st.apply(asBytes(seg), flat) }
		return st
	}
	e.runs.New = func() any {
		r := &epiRun{e: e, ins: make([]*hlo.Literal, len(e.inKinds))}
		r.taskF32 = func() (func(seg []float32, flat int), func()) {
			st := r.state()
			return st.applyF32, st.done
		}
		r.taskF64 = func() (func(seg []float64, flat int), func()) {
			st := r.state()
			return st.applyF64, st.done
		}
		return r
	}
	return e, inputs, absorbed, v, nil
}

// isSplatOf matches broadcast_in_dim of a rank-0 value.
func isSplatOf(w *hlo.Value) bool {
	b := w.Def
	if b == nil || b.Name != "stablehlo.broadcast_in_dim" || len(b.Operands) != 1 {
		return false
	}
	t := b.Operands[0].TensorType()
	return t != nil && t.Rank() == 0 && t.Quant == nil && t.DType == w.TensorType().DType
}

// isRowBroadcast matches broadcast_in_dim of a vector along the last
// dimension (a bias).
func isRowBroadcast(w *hlo.Value) bool {
	b := w.Def
	if b == nil || b.Name != "stablehlo.broadcast_in_dim" || len(b.Operands) != 1 {
		return false
	}
	t, wt := b.Operands[0].TensorType(), w.TensorType()
	dims, ok := hlo.AttrInts(b.Attr("broadcast_dimensions"))
	r := int64(wt.Rank())
	return ok && t != nil && t.Rank() == 1 && t.Quant == nil && t.DType == wt.DType &&
		slices.Equal(dims, []int64{r - 1}) && t.Dims[0] == wt.Dims[r-1]
}

// bind checks an execution's epilogue inputs; the run goes back with
// release once the product is done.
func (e *epilogue) bind(c *kernel.OpCtx, args []kernel.Value) (*epiRun, error) {
	if len(args) != len(e.inTypes) {
		return nil, c.Errorf("epilogue has %d operands, want %d", len(args), len(e.inTypes))
	}
	for i, a := range args {
		l, ok := a.(*hlo.Literal)
		if !ok || l.DType != e.inTypes[i].DType || int64(l.NumElements()) != e.inTypes[i].NumElements() {
			return nil, c.Errorf("epilogue operand %d is %s, want %s", i, describeValue(a), e.inTypes[i].ShapeString())
		}
	}
	r := e.runs.Get().(*epiRun)
	for i, a := range args {
		r.ins[i] = a.(*hlo.Literal)
	}
	return r, nil
}

// release puts r back (nil: none).
func (r *epiRun) release() {
	if r == nil {
		return
	}
	clear(r.ins)
	r.e.runs.Put(r)
}

func describeValue(v kernel.Value) string {
	if l, ok := v.(*hlo.Literal); ok {
		return l.ShapeString()
	}
	return "not a tensor"
}

// state prepares one task's state for r.
func (r *epiRun) state() *epiState {
	e := r.e
	st := e.states.Get().(*epiState)
	st.r = r
	for i, kind := range e.inKinds {
		if kind == srcSplat {
			kernel.Fill(st.splat[i], r.ins[i].Data)
		}
	}
	st.dst.DType = e.dtype
	for j, m := range e.members {
		for k, s := range m.srcs {
			st.views[j][k].DType = e.dtype
			switch s.kind {
			case srcChain:
			case srcFixed:
				st.views[j][k].DType = e.fixed[s.in].DType
			default:
				st.views[j][k].DType = e.inTypes[s.in].DType
			}
			if s.kind == srcScalar {
				st.views[j][k].Data = r.ins[s.in].Data
			}
		}
	}
	return st
}

// applyBytes runs the chain on one segment (flat: its first element's
// index in the product).
func (st *epiState) applyBytes(seg []byte, flat int) {
	r := st.r
	e := r.e
	n := len(seg) / e.dtype.Size()
	if n == 0 {
		return
	}
	for j, m := range e.members {
		for k, s := range m.srcs {
			v := &st.views[j][k]
			switch s.kind {
			case srcChain:
				v.Data = seg
			case srcFull:
				sz := v.DType.Size()
				v.Data = r.ins[s.in].Data[flat*sz : (flat+n)*sz]
			case srcRow:
				sz := v.DType.Size()
				o := flat % e.n
				v.Data = r.ins[s.in].Data[o*sz : (o+n)*sz]
			case srcSplat:
				v.Data = st.splat[s.in][:n*v.DType.Size()]
			case srcFixed:
				v.Data = st.fixed[s.in][:n*v.DType.Size()]
			}
		}
		st.dst.Data = seg
		m.fn(&st.dst, st.srcs[j], 0, n)
	}
}

// release ends the task: its views let go of the data, the state goes
// back.
func (st *epiState) release() {
	e := st.r.e
	st.dst.Data = nil
	for j := range st.views {
		for k := range st.views[j] {
			st.views[j][k].Data = nil
		}
	}
	st.r = nil
	e.states.Put(st)
}

// asBytes views a float slice as its bytes.
func asBytes[T float32 | float64](seg []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(seg))), len(seg)*int(unsafe.Sizeof(z)))
}

func epiF32(r *epiRun) func() (func(seg []float32, flat int), func()) {
	if r == nil {
		return nil
	}
	return r.taskF32
}

func epiF64(r *epiRun) func() (func(seg []float64, flat int), func()) {
	if r == nil {
		return nil
	}
	return r.taskF64
}
