package check

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The check dialect of the StableHLO interpreter tests. A check compares a
// value with an expectation; the outcome goes to x.Checks, or, without a
// check log, a failed check is an error.
func init() {
	kernel.Register(
		kernel.Entry{Name: "check.expect_eq", Compile: compileExpectEq},
		kernel.Entry{Name: "check.expect_eq_const", Compile: compileExpectEqConst},
		kernel.Entry{Name: "check.expect_almost_eq", Compile: compileExpectAlmostEq},
		kernel.Entry{Name: "check.expect_almost_eq_const", Compile: compileExpectAlmostEqConst},
		kernel.Entry{Name: "check.expect_close", Compile: compileExpectClose},
	)
	// check.expect_serialized_eq is in probe.go, with interpreter.probe.
}

// comparer compares a value with its expectation.
type comparer func(got, want *hlo.Literal) *mismatch

// report records the outcome of one check.
func report(x *kernel.Ctx, op *hlo.Op, dims []int64, m *mismatch, shapeErr error) error {
	ok := m == nil && shapeErr == nil
	var msg string
	switch {
	case shapeErr != nil:
		msg = shapeErr.Error()
	case m != nil:
		msg = m.describe(dims)
	}
	if x.Checks != nil {
		if !ok {
			msg = (&kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: msg}).Error()
		}
		x.Checks.Record(ok, msg)
		return nil
	}
	if !ok {
		return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "check failed: " + msg}
	}
	return nil
}

// runCheck compares two values with cmp.
func runCheck(x *kernel.Ctx, op *hlo.Op, got, want kernel.Value, cmp comparer) (bool, error) {
	g, ok1 := got.(*hlo.Literal)
	w, ok2 := want.(*hlo.Literal)
	if !ok1 || !ok2 {
		return false, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("checks compare tensors, got %T and %T", got, want)}
	}
	if err := sameShape(g, w); err != nil {
		return false, report(x, op, g.Dims, nil, err)
	}
	m := cmp(g, w)
	return m == nil, report(x, op, g.Dims, m, nil)
}

func compileBinaryCheck(c *kernel.OpCtx, cmp comparer) (kernel.RunFn, error) {
	if len(c.Op.Operands) != 2 {
		return nil, c.Errorf("want 2 operands, got %d", len(c.Op.Operands))
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		_, err := runCheck(x, op, args[0], args[1], cmp)
		return err
	}, nil
}

func compileConstCheck(c *kernel.OpCtx, cmp comparer) (kernel.RunFn, error) {
	if len(c.Op.Operands) != 1 {
		return nil, c.Errorf("want 1 operand, got %d", len(c.Op.Operands))
	}
	d, ok := c.Op.Attr("value").(*hlo.DenseElementsAttr)
	if !ok {
		return nil, c.Errorf("missing dense attribute value (the expected constant)")
	}
	want, err := c.DenseLiteral(d)
	if err != nil {
		return nil, err
	}
	if t := c.InTensor(0); t != nil && (t.DType != want.DType || len(t.Dims) != len(want.Dims)) {
		return nil, c.Errorf("expected constant %s does not match the operand type %s", want.ShapeString(), t.ShapeString())
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		_, err := runCheck(x, op, args[0], want, cmp)
		return err
	}, nil
}

func tolerance(c *kernel.OpCtx) (float64, error) {
	a := c.Op.Attr("tolerance")
	if a == nil {
		return 1e-4, nil
	}
	t, ok := hlo.AttrFloat(a)
	if !ok || t < 0 {
		return 0, c.Errorf("tolerance %s is not a non-negative float", hlo.AttrString(a))
	}
	return t, nil
}

func compileExpectEq(c *kernel.OpCtx) (kernel.RunFn, error) {
	return compileBinaryCheck(c, exactEqual)
}

func compileExpectEqConst(c *kernel.OpCtx) (kernel.RunFn, error) {
	return compileConstCheck(c, exactEqual)
}

func almost(tol float64) comparer {
	return func(g, w *hlo.Literal) *mismatch { return almostEqual(g, w, tol) }
}

func compileExpectAlmostEq(c *kernel.OpCtx) (kernel.RunFn, error) {
	tol, err := tolerance(c)
	if err != nil {
		return nil, err
	}
	return compileBinaryCheck(c, almost(tol))
}

func compileExpectAlmostEqConst(c *kernel.OpCtx) (kernel.RunFn, error) {
	tol, err := tolerance(c)
	if err != nil {
		return nil, err
	}
	return compileConstCheck(c, almost(tol))
}

func ulps(minULP, maxULP uint64) comparer {
	return func(g, w *hlo.Literal) *mismatch { return ulpClose(g, w, minULP, maxULP) }
}

func compileExpectClose(c *kernel.OpCtx) (kernel.RunFn, error) {
	maxULP, minULP := int64(1), int64(0)
	if v, ok := c.Int("max_ulp_difference"); ok {
		maxULP = v
	}
	if v, ok := c.Int("min_ulp_difference"); ok {
		minULP = v
	}
	if minULP < 0 || maxULP < minULP {
		return nil, c.Errorf("bad ULP bounds min %d max %d", minULP, maxULP)
	}
	if t := c.InTensor(0); t != nil && !t.DType.IsFloat() && !t.DType.IsComplex() {
		return nil, c.Errorf("compares floats or complex numbers, got %s", t)
	}
	return compileBinaryCheck(c, ulps(uint64(minULP), uint64(maxULP)))
}
