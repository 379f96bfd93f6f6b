package movement

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// selectScatterOp is a compiled stablehlo.select_and_scatter: for every
// source element, select picks one operand element of its window (keeping
// the current choice while select(current, candidate) is true), and scatter
// folds the source value into the result at the chosen position.
type selectScatterOp struct {
	op      *hlo.Op
	attrs   *windowAttrs
	sel     *region
	sca     *region
	dt      hlo.DType
	static  *windowLayout
	selFast elemCmp
	acc     accFn
	// pool is set for a pooling window (pool.go); typed says it runs as
	// typed loops: a float FLOAT comparison selDir (GE, GT, LE, LT), or
	// PyTorch's pooling rule (selDir MAXNAN or MINNAN: region.poolSel),
	// and an add.
	pool   *poolShape
	typed  bool
	selDir string
}

func compileSelectAndScatter(c *kernel.OpCtx) (kernel.RunFn, error) {
	so, err := newSelectScatter(c)
	if err != nil {
		return nil, err
	}
	return so.run, nil
}

// newSelectScatter compiles a select_and_scatter op.
func newSelectScatter(c *kernel.OpCtx) (*selectScatterOp, error) {
	if len(c.In) != 3 || len(c.Out) != 1 {
		return nil, c.Errorf("takes operand, source and init_value and returns one result, has %d operands and %d results", len(c.In), len(c.Out))
	}
	opT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	srcT, err := tensorIn(c, 1)
	if err != nil {
		return nil, err
	}
	initT, err := tensorIn(c, 2)
	if err != nil {
		return nil, err
	}
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if initT.Rank() != 0 || initT.DType != srcT.DType || outT.DType != srcT.DType || !sameShape(outT, opT) {
		return nil, c.Errorf("operand %s, source %s, init_value %s and result %s: the result must have the operand's shape and the source's element type, with a 0-d init_value",
			opT.ShapeString(), srcT.ShapeString(), initT.ShapeString(), outT.ShapeString())
	}
	so := &selectScatterOp{op: c.Op, dt: srcT.DType}
	if so.attrs, err = readWindowAttrs(c, opT.Rank(), false); err != nil {
		return nil, err
	}
	if so.sel, err = compileRegion(c, 0, "select", 2, 1); err != nil {
		return nil, err
	}
	if so.sca, err = compileRegion(c, 1, "scatter", 2, 1); err != nil {
		return nil, err
	}
	if so.sel.args[0] != opT.DType || so.sel.args[1] != opT.DType || so.sel.res[0] != hlo.Bool {
		return nil, c.Errorf("select region has type %v -> %v, want (%s, %s) -> i1", so.sel.args, so.sel.res, opT.DType, opT.DType)
	}
	if so.sca.args[0] != so.dt || so.sca.args[1] != so.dt || so.sca.res[0] != so.dt {
		return nil, c.Errorf("scatter region has type %v -> %v, want (%s, %s) -> %s", so.sca.args, so.sca.res, so.dt, so.dt, so.dt)
	}
	if allStatic(opT, srcT) {
		L, err := newWindowLayout(opT.Dims, so.attrs, tableFits(c.CheckAlloc))
		if oom(err) {
			return nil, err
		}
		if err != nil {
			return nil, c.Errorf("%v (operand %s)", err, opT.ShapeString())
		}
		if err := matchDims(srcT, L.outDims); err != nil {
			return nil, c.Errorf("source %s does not match the windows of operand %s: %v", srcT.ShapeString(), opT.ShapeString(), err)
		}
		so.static = L
	}
	var selTyp string
	if cb := so.sel.cmp; cb != nil && cb.lhs == 0 && cb.rhs == 1 {
		so.selFast = compareFn(cb.dir, cb.typ, cb.dtypes)
		switch cb.dir {
		case "GE", "GT", "LE", "LT":
			so.selDir, selTyp = cb.dir, cb.typ
		}
	} else if ps := so.sel.poolSel; ps != "" {
		so.selFast = poolSelFn(ps, opT.DType)
		so.selDir = ps
	}
	so.acc, _, _ = binKernels(so.sca.kind, so.dt)
	if so.static != nil && so.selFast != nil && so.acc != nil {
		so.pool = planPool(opT.Dims, so.attrs, so.static.outDims)
		so.typed = so.selDir != "" && (selTyp == "" || selTyp == "FLOAT") && so.sca.kind == binAdd &&
			(so.dt == hlo.F32 || so.dt == hlo.F64) && opT.DType == so.dt
	}
	return so, nil
}

func (so *selectScatterOp) run(x *kernel.Ctx, args, results []kernel.Value) error {
	op := so.op
	var ls [3]*hlo.Literal
	if err := lits(op, args, ls[:]); err != nil {
		return err
	}
	operand, source, init := ls[0], ls[1], ls[2]
	if so.pool != nil {
		out, err := so.runSelectPool(x, so.pool, operand, source, init)
		if err != nil {
			return err
		}
		results[0] = out
		return nil
	}
	L := so.static
	if L == nil {
		var err error
		if L, err = newWindowLayout(operand.Dims, so.attrs, tableFits(func(dt hlo.DType, dims []int64) error { return x.CheckAlloc(op, dt, dims) })); err != nil {
			if oom(err) {
				return err
			}
			return runErr(op, "%v (operand %s)", err, operand.ShapeString())
		}
		if !slices.Equal(L.outDims, source.Dims) {
			return runErr(op, "source %s does not match the windows of operand %s", source.ShapeString(), operand.ShapeString())
		}
	}
	out := newOut(x, so.dt, operand.Dims)
	es := so.dt.Size()
	kernel.Fill(out.Data, init.Data[:es])
	var selC, scaC *caller
	if so.selFast == nil {
		selC = so.sel.newCaller(x)
	}
	if so.acc == nil {
		scaC = so.sca.newCaller(x)
	}
	oes := operand.DType.Size()
	var err error
	for s := 0; s < L.nOut && err == nil; s++ {
		if err = x.Canceled(); err != nil {
			return canceledErr(op, err)
		}
		chosen := -1
		L.forEachWindow(s, func(off int) {
			if off < 0 || err != nil {
				return
			}
			if chosen < 0 {
				chosen = off
				return
			}
			var keep bool
			if so.selFast != nil {
				keep = so.selFast(operand.Data, chosen, operand.Data, off)
			} else {
				selC.setBytes(0, operand.Data[chosen*oes:chosen*oes+oes])
				selC.setBytes(1, operand.Data[off*oes:off*oes+oes])
				if err = selC.call(op); err != nil {
					return
				}
				keep = selC.truth()
			}
			if !keep {
				chosen = off
			}
		})
		if err != nil || chosen < 0 {
			continue
		}
		if so.acc != nil {
			so.acc(out.Data, chosen, 0, source.Data, s, 0, 1)
			continue
		}
		scaC.setBytes(0, out.Data[chosen*es:chosen*es+es])
		scaC.setBytes(1, source.Data[s*es:s*es+es])
		if err = scaC.call(op); err != nil {
			break
		}
		copy(out.Data[chosen*es:chosen*es+es], scaC.res(0))
	}
	if err != nil {
		return err
	}
	results[0] = out
	return nil
}

// poolSelFn is the select region MAXNAN (MINNAN) over f32 or f64: keep the
// current choice unless the candidate is greater (less) or NaN.
func poolSelFn(sel string, dt hlo.DType) elemCmp {
	switch dt {
	case hlo.F32:
		return poolSelT[float32](sel)
	case hlo.F64:
		return poolSelT[float64](sel)
	}
	return nil
}

func poolSelT[T floatT](sel string) elemCmp {
	if sel == "MINNAN" {
		return func(x []byte, i int, y []byte, j int) bool {
			cur, cand := asT[T](x)[i], asT[T](y)[j]
			return !(cand < cur || cand != cand)
		}
	}
	return func(x []byte, i int, y []byte, j int) bool {
		cur, cand := asT[T](x)[i], asT[T](y)[j]
		return !(cand > cur || cand != cand)
	}
}
