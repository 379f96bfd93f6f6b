package movement

import (
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// region is a compiled body region whose arguments and results are 0-d
// tensors (reduce, scatter, sort, map, ... bodies).
type region struct {
	sub  kernel.Subplan
	args []hlo.DType // block argument element types
	res  []hlo.DType // result element types (from the terminator)
	// kind is set when the body is one binary op of its two arguments.
	kind binKind
	// cmp is set when the body is one stablehlo.compare of two arguments.
	cmp *cmpBody
	// poolSel is "MAXNAN" or "MINNAN" when the body is the select region
	// of a PyTorch max (min) pool's gradient (detectPoolSel), else "".
	poolSel string
	// prog is the body as a scalar program, when it can be one.
	prog *sprog
}

// cmpBody is a comparator region `return compare(dir, argL, argR, type)`.
type cmpBody struct {
	dir    string // EQ, NE, LT, LE, GT, GE
	typ    string // FLOAT, TOTALORDER, SIGNED, UNSIGNED or ""
	lhs    int    // argument index of the left operand
	rhs    int
	dtypes hlo.DType
}

// compileRegion compiles op region idx, which must take nargs 0-d tensors
// and return nres 0-d tensors.
func compileRegion(c *kernel.OpCtx, idx int, name string, nargs, nres int) (*region, error) {
	if idx >= len(c.Op.Regions) {
		return nil, c.Errorf("missing region %s", name)
	}
	r := c.Op.Regions[idx]
	if len(r.Blocks) != 1 {
		return nil, c.Errorf("region %s has %d blocks, want 1", name, len(r.Blocks))
	}
	blk := r.Blocks[0]
	if len(blk.Args) != nargs {
		return nil, c.Errorf("region %s takes %d arguments, want %d", name, len(blk.Args), nargs)
	}
	g := &region{}
	for i, a := range blk.Args {
		t := a.TensorType()
		if t == nil || t.Rank() != 0 {
			return nil, c.Errorf("region %s argument %d has type %s, want a 0-d tensor", name, i, shapeOf(a.Type))
		}
		g.args = append(g.args, t.DType)
	}
	if n := len(blk.Ops); n > 0 {
		term := blk.Ops[n-1]
		if term.Name == "stablehlo.return" || term.Name == "func.return" {
			if len(term.Operands) != nres {
				return nil, c.Errorf("region %s returns %d values, want %d", name, len(term.Operands), nres)
			}
			for i, v := range term.Operands {
				t := v.TensorType()
				if t == nil || t.Rank() != 0 {
					return nil, c.Errorf("region %s result %d has type %s, want a 0-d tensor", name, i, shapeOf(v.Type))
				}
				g.res = append(g.res, t.DType)
			}
		}
	}
	if len(g.res) != nres {
		return nil, c.Errorf("region %s has no stablehlo.return terminator", name)
	}
	sub, err := c.Compiler.CompileRegion(r)
	if err != nil {
		return nil, err
	}
	g.sub = sub
	if nargs == 2 && nres == 1 {
		g.kind = detectBin(blk)
		if g.args[0] != g.args[1] || g.res[0] != g.args[0] {
			g.kind = binNone
		}
	}
	g.cmp = detectCmp(blk)
	if nargs == 2 && nres == 1 && g.args[0] == g.args[1] && g.args[0].IsFloat() {
		g.poolSel = detectPoolSel(blk)
	}
	if useScalarPrograms {
		g.prog = compileScalar(blk)
	}
	return g, nil
}

// useScalarPrograms enables compileScalar (tests switch it off to compare
// both paths).
var useScalarPrograms = true

// detectBin recognises `return op(arg0, arg1)` for a commutative op, and
// `return argK`.
func detectBin(blk *hlo.Block) binKind {
	ops := blk.Ops
	a0, a1 := blk.Args[0], blk.Args[1]
	switch len(ops) {
	case 1:
		if len(ops[0].Operands) == 1 {
			switch ops[0].Operands[0] {
			case a0:
				return binFirst
			case a1:
				return binSecond
			}
		}
	case 2:
		op, ret := ops[0], ops[1]
		k, ok := binByOp[op.Name]
		if !ok || len(op.Operands) != 2 || len(op.Results) != 1 || len(op.Regions) != 0 ||
			len(ret.Operands) != 1 || ret.Operands[0] != op.Results[0] {
			return binNone
		}
		x, y := op.Operands[0], op.Operands[1]
		if (x == a0 && y == a1) || (x == a1 && y == a0) {
			return k
		}
	}
	return binNone
}

// detectCmp recognises `return compare(dir, argL, argR)`.
func detectCmp(blk *hlo.Block) *cmpBody {
	ops := blk.Ops
	if len(ops) != 2 || ops[0].Name != "stablehlo.compare" || len(ops[0].Operands) != 2 ||
		len(ops[1].Operands) != 1 || ops[1].Operands[0] != ops[0].Results[0] {
		return nil
	}
	op := ops[0]
	cb := &cmpBody{lhs: -1, rhs: -1}
	for i, a := range blk.Args {
		if op.Operands[0] == a {
			cb.lhs = i
		}
		if op.Operands[1] == a {
			cb.rhs = i
		}
	}
	if cb.lhs < 0 || cb.rhs < 0 {
		return nil
	}
	dir, ok := hlo.AttrEnum(op.Attr("comparison_direction"))
	if !ok {
		return nil
	}
	cb.dir = dir
	if a := op.Attr("compare_type"); a != nil {
		cb.typ, _ = hlo.AttrEnum(a)
	}
	cb.dtypes = op.Operands[0].TensorType().DType
	return cb
}

// detectPoolSel recognises the select region of a PyTorch max pool's
// gradient, `return not(or(compare(GT, cand, cur), compare(NE, cand,
// cand)))` with cur the first argument and cand the second (either order
// of the or's operands, FLOAT or no compare_type): keep the current choice
// unless the candidate is greater or NaN. It returns "MAXNAN", "MINNAN"
// for the same with LT, or "".
func detectPoolSel(blk *hlo.Block) string {
	ops := blk.Ops
	if len(ops) != 5 || len(blk.Args) != 2 {
		return ""
	}
	cur, cand := blk.Args[0], blk.Args[1]
	ret, not, or := ops[4], ops[3], ops[2]
	if len(ret.Operands) != 1 || not.Name != "stablehlo.not" || len(not.Operands) != 1 || len(not.Results) != 1 ||
		ret.Operands[0] != not.Results[0] || or.Name != "stablehlo.or" || len(or.Operands) != 2 || len(or.Results) != 1 ||
		not.Operands[0] != or.Results[0] {
		return ""
	}
	x, y := ops[0], ops[1]
	if len(x.Results) != 1 || len(y.Results) != 1 {
		return ""
	}
	if or.Operands[0] == y.Results[0] && or.Operands[1] == x.Results[0] {
		x, y = y, x
	} else if or.Operands[0] != x.Results[0] || or.Operands[1] != y.Results[0] {
		return ""
	}
	isCmp := func(op *hlo.Op, a, b *hlo.Value) (string, bool) {
		if op.Name != "stablehlo.compare" || len(op.Operands) != 2 || op.Operands[0] != a || op.Operands[1] != b {
			return "", false
		}
		if t, ok := hlo.AttrEnum(op.Attr("compare_type")); ok && t != "FLOAT" {
			return "", false
		}
		return hlo.AttrEnum(op.Attr("comparison_direction"))
	}
	// One compare is (cand, cur) GT or LT, the other (cand, cand) NE.
	if d, ok := isCmp(x, cand, cand); ok && d == "NE" {
		x, y = y, x
	}
	if d, ok := isCmp(y, cand, cand); !ok || d != "NE" {
		return ""
	}
	switch d, _ := isCmp(x, cand, cur); d {
	case "GT":
		return "MAXNAN"
	case "LT":
		return "MINNAN"
	}
	return ""
}

// caller runs a region on one goroutine with preallocated 0-d argument
// literals.
type caller struct {
	g    *region
	x    *kernel.Ctx
	lits []*hlo.Literal
	vals []kernel.Value
	tmp  []byte // staging for results, so that results aliasing arguments stay intact
	offs []int
	// Scalar-program state: registers and the argument and result bytes.
	regs       []uint64
	argB, resB [][]byte
}

func (g *region) newCaller(x *kernel.Ctx) *caller {
	c := &caller{g: g, x: x}
	n := 0
	for _, dt := range g.args {
		l := hlo.NewLiteral(dt)
		c.lits = append(c.lits, l)
		c.vals = append(c.vals, l)
	}
	for _, dt := range g.res {
		c.offs = append(c.offs, n)
		n += dt.Size()
	}
	c.tmp = make([]byte, n)
	if p := g.prog; p != nil {
		c.regs = make([]uint64, p.nregs)
		for _, l := range c.lits {
			c.argB = append(c.argB, l.Data)
		}
		for i, dt := range g.res {
			c.resB = append(c.resB, c.tmp[c.offs[i]:c.offs[i]+dt.Size()])
		}
	}
	return c
}

// set loads argument i from element e of src (of element type dt),
// converting when the body's argument type differs.
func (c *caller) set(i int, src []byte, e int, dt hlo.DType) {
	l := c.lits[i]
	es := dt.Size()
	if dt == l.DType {
		copy(l.Data, src[e*es:e*es+es])
		return
	}
	convertElem(l.DType, l.Data, dt, src[e*es:e*es+es])
}

// setBytes loads argument i from one element's bytes of the argument type.
func (c *caller) setBytes(i int, b []byte) { copy(c.lits[i].Data, b) }

// call runs the body and returns the bytes of result i in res(i); they stay
// valid until the next call.
func (c *caller) call(op *hlo.Op) error {
	if p := c.g.prog; p != nil {
		p.run(c.regs, c.argB, c.resB)
		return nil
	}
	out, err := c.g.sub.Run(c.x, c.vals)
	if err != nil {
		return err
	}
	if len(out) != len(c.g.res) {
		return runErr(op, "body returned %d values, want %d", len(out), len(c.g.res))
	}
	for i, v := range out {
		l, ok := v.(*hlo.Literal)
		es := c.g.res[i].Size()
		if !ok || l.DType != c.g.res[i] || len(l.Data) != es {
			return runErr(op, "body result %d is %v, want a 0-d %s", i, v, c.g.res[i])
		}
		copy(c.tmp[c.offs[i]:c.offs[i]+es], l.Data)
	}
	return nil
}

// res returns result i of the last call.
func (c *caller) res(i int) []byte {
	return c.tmp[c.offs[i] : c.offs[i]+c.g.res[i].Size()]
}

// truth returns result 0 of the last call as a boolean.
func (c *caller) truth() bool { return c.tmp[0] != 0 }

// convertElem converts one element between element types (the promotions
// that bodies of reduce, scatter and reduce_window may apply).
func convertElem(ddt hlo.DType, dst []byte, sdt hlo.DType, src []byte) {
	s := hlo.Literal{DType: sdt, Data: src}
	d := hlo.Literal{DType: ddt, Data: dst}
	switch {
	case ddt.IsComplex():
		d.SetComplex(0, s.Complex(0))
	case ddt.IsFloat():
		d.SetFloat(0, s.Float(0))
	case ddt.IsBool():
		if sdt.IsFloat() || sdt.IsComplex() {
			d.SetInt(0, boolToInt(s.Complex(0) != 0))
		} else {
			d.SetInt(0, boolToInt(s.Bits(0) != 0))
		}
	case sdt.IsFloat() || sdt.IsComplex():
		d.SetInt(0, int64(s.Float(0)))
	case sdt.IsUnsigned():
		d.SetInt(0, int64(s.Uint(0)))
	default:
		d.SetInt(0, s.Int(0))
	}
}

func boolToInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// forEachParallel runs body(lo, hi, caller) over [0, n) in chunks on the
// worker pool, each chunk with its own forked context and caller, and
// returns the first error.
func forEachParallel(g *region, x *kernel.Ctx, n, grain int, body func(lo, hi int, c *caller) error) error {
	if n <= grain || kernel.Workers() <= 1 {
		return body(0, n, g.newCaller(x))
	}
	var mu sync.Mutex
	var first error
	parallelFor(n, grain, func(lo, hi int) {
		if err := body(lo, hi, g.newCaller(x.Fork())); err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
	})
	return first
}
