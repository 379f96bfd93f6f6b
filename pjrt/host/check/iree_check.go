package check

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// IREE's check dialect (the parser names its ops iree_check.*; hlo's
// parse_iree.go), with the semantics of IREE's check module:
//
//   - expect_true / expect_false: a scalar integer (a rank-0 tensor once the
//     scalar is lowered) is nonzero / zero.
//   - expect_all_true: every element of an integer tensor is nonzero.
//   - expect_eq(_const): same element type, same shape and the same bytes
//     (bitwise: -0 differs from 0, a NaN equals the same NaN).
//   - expect_almost_eq(_const): float tensors, element-wise NumPy isclose
//     lhs == rhs || (isfinite(rhs) && |lhs - rhs| <= atol + rtol·|rhs|),
//     and both NaN also passes; atol and rtol are f32 (defaults 1e-4 and 0),
//     and the arithmetic is f32 for types up to 32 bits, f64 for f64.
//
// Outcomes go to the check log as for StableHLO's checks (check.go).
func init() {
	kernel.Register(
		kernel.Entry{Name: "iree_check.expect_true", Compile: compileIreeTruth(true)},
		kernel.Entry{Name: "iree_check.expect_false", Compile: compileIreeTruth(false)},
		kernel.Entry{Name: "iree_check.expect_all_true", Compile: compileIreeAllTrue},
		kernel.Entry{Name: "iree_check.expect_eq", Compile: compileIreeEq},
		kernel.Entry{Name: "iree_check.expect_eq_const", Compile: compileIreeEqConst},
		kernel.Entry{Name: "iree_check.expect_almost_eq", Compile: compileIreeAlmostEq},
		kernel.Entry{Name: "iree_check.expect_almost_eq_const", Compile: compileIreeAlmostEqConst},
	)
}

// IREE's default tolerances (CheckOps.td: atol 1e-4f, rtol 0).
const (
	ireeDefaultAtol = 1e-4
	ireeDefaultRtol = 0
)

func ireeOperands(c *kernel.OpCtx, n int) error {
	if len(c.Op.Operands) != n || len(c.Op.Results) != 0 {
		return c.Errorf("takes %d operands and has no results, got %d and %d", n, len(c.Op.Operands), len(c.Op.Results))
	}
	return nil
}

// ireeIntTensor requires operand i to be an integer tensor (rank 0 when
// scalar is set).
func ireeIntTensor(c *kernel.OpCtx, i int, scalar bool) error {
	t := c.InTensor(i)
	switch {
	case t == nil:
		return c.Errorf("operand %d has type %s; want an integer tensor (scalars are rank-0 tensors)", i, c.In[i])
	case t.Quant != nil || !(t.DType.IsInt() || t.DType.IsBool()):
		return c.Errorf("operand %d has type %s; want integer elements", i, t)
	case scalar && t.Rank() != 0:
		return c.Errorf("operand %d has type %s; want a scalar integer", i, t)
	}
	return nil
}

func ireeLiteral(op *hlo.Op, v kernel.Value) (*hlo.Literal, error) {
	l, ok := v.(*hlo.Literal)
	if !ok {
		return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("checks read tensors, got %T", v)}
	}
	return l, nil
}

func compileIreeTruth(want bool) kernel.CompileFn {
	return func(c *kernel.OpCtx) (kernel.RunFn, error) {
		if err := ireeOperands(c, 1); err != nil {
			return nil, err
		}
		if err := ireeIntTensor(c, 0, true); err != nil {
			return nil, err
		}
		op := c.Op
		return func(x *kernel.Ctx, args, results []kernel.Value) error {
			l, err := ireeLiteral(op, args[0])
			if err != nil {
				return err
			}
			v := l.Int(0)
			if (v != 0) == want {
				return report(x, op, l.Dims, nil, nil)
			}
			what := "nonzero"
			if !want {
				what = "zero"
			}
			return report(x, op, l.Dims, nil, fmt.Errorf("expected %d to be %s", v, what))
		}, nil
	}
}

func compileIreeAllTrue(c *kernel.OpCtx) (kernel.RunFn, error) {
	if err := ireeOperands(c, 1); err != nil {
		return nil, err
	}
	if err := ireeIntTensor(c, 0, false); err != nil {
		return nil, err
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, err := ireeLiteral(op, args[0])
		if err != nil {
			return err
		}
		n := l.NumElements()
		for i := 0; i < n; i++ {
			if l.Bits(i) == 0 {
				return report(x, op, l.Dims, &mismatch{index: i, got: l.ElemString(i), want: "nonzero"}, nil)
			}
		}
		return report(x, op, l.Dims, nil, nil)
	}, nil
}

// ireeCompare compares two values of one type and shape.
type ireeCompare func(got, want *hlo.Literal) *mismatch

// ireeSameType is IREE's precondition for every comparison: equal element
// types and shapes.
func ireeSameType(got, want *hlo.Literal) error {
	if got.DType != want.DType {
		return fmt.Errorf("element types differ: got %s, want %s", got.ShapeString(), want.ShapeString())
	}
	if len(got.Dims) != len(want.Dims) {
		return fmt.Errorf("shapes differ: got %s, want %s", got.ShapeString(), want.ShapeString())
	}
	for i := range got.Dims {
		if got.Dims[i] != want.Dims[i] {
			return fmt.Errorf("shapes differ: got %s, want %s", got.ShapeString(), want.ShapeString())
		}
	}
	return nil
}

func runIreeCompare(x *kernel.Ctx, op *hlo.Op, a, b kernel.Value, cmp ireeCompare) error {
	got, err := ireeLiteral(op, a)
	if err != nil {
		return err
	}
	want, err := ireeLiteral(op, b)
	if err != nil {
		return err
	}
	if err := ireeSameType(got, want); err != nil {
		return report(x, op, got.Dims, nil, err)
	}
	return report(x, op, got.Dims, cmp(got, want), nil)
}

// compileIree builds a binary check, or with a value attribute a check
// against that constant, whose operand type must be the constant's.
func compileIree(c *kernel.OpCtx, withConst bool, cmp ireeCompare) (kernel.RunFn, error) {
	n := 2
	if withConst {
		n = 1
	}
	if err := ireeOperands(c, n); err != nil {
		return nil, err
	}
	op := c.Op
	if !withConst {
		if a, b := c.InTensor(0), c.InTensor(1); a == nil || b == nil || !hlo.TypesCompatible(a, b) {
			return nil, c.Errorf("compares two tensors of one type, got %s and %s", c.In[0], c.In[1])
		}
		return func(x *kernel.Ctx, args, results []kernel.Value) error {
			return runIreeCompare(x, op, args[0], args[1], cmp)
		}, nil
	}
	d, ok := c.Op.Attr("value").(*hlo.DenseElementsAttr)
	if !ok {
		return nil, c.Errorf("missing dense attribute value (the expected constant)")
	}
	want, err := c.DenseLiteral(d)
	if err != nil {
		return nil, err
	}
	if t := c.InTensor(0); t == nil || !hlo.TypesCompatible(t, want.Type()) {
		return nil, c.Errorf("expected constant %s does not match the operand type %s", want.ShapeString(), c.In[0])
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		return runIreeCompare(x, op, args[0], want, cmp)
	}, nil
}

func compileIreeEq(c *kernel.OpCtx) (kernel.RunFn, error) {
	return compileIree(c, false, bytesEqual)
}

func compileIreeEqConst(c *kernel.OpCtx) (kernel.RunFn, error) {
	return compileIree(c, true, bytesEqual)
}

func compileIreeAlmostEq(c *kernel.OpCtx) (kernel.RunFn, error) {
	cmp, err := ireeTolerances(c)
	if err != nil {
		return nil, err
	}
	return compileIree(c, false, cmp)
}

func compileIreeAlmostEqConst(c *kernel.OpCtx) (kernel.RunFn, error) {
	cmp, err := ireeTolerances(c)
	if err != nil {
		return nil, err
	}
	return compileIree(c, true, cmp)
}

// bytesEqual compares the stored bits of every element, as IREE compares
// the buffers' bytes.
func bytesEqual(got, want *hlo.Literal) *mismatch {
	n := got.NumElements()
	for i := 0; i < n; i++ {
		if !sameElementBits(got, want, i) {
			return newMismatch(got, want, i, "compared bitwise")
		}
	}
	return nil
}

func sameElementBits(a, b *hlo.Literal, i int) bool {
	switch a.DType {
	case hlo.C64:
		x, y := a.C64()[i], b.C64()[i]
		return math.Float32bits(real(x)) == math.Float32bits(real(y)) && math.Float32bits(imag(x)) == math.Float32bits(imag(y))
	case hlo.C128:
		x, y := a.C128()[i], b.C128()[i]
		return math.Float64bits(real(x)) == math.Float64bits(real(y)) && math.Float64bits(imag(x)) == math.Float64bits(imag(y))
	}
	return a.Bits(i) == b.Bits(i)
}

// ireeTolerances reads atol and rtol (f32 attributes) and returns the
// isclose comparison; it requires float operands.
func ireeTolerances(c *kernel.OpCtx) (ireeCompare, error) {
	if t := c.InTensor(0); t == nil || t.Quant != nil || !t.DType.IsFloat() {
		return nil, c.Errorf("compares float tensors, got %s", c.In[0])
	}
	tol := func(name string, def float64) (float32, error) {
		a := c.Op.Attr(name)
		if a == nil {
			return float32(def), nil
		}
		v, ok := hlo.AttrFloat(a)
		if !ok || math.IsNaN(v) || v < 0 {
			return 0, c.Errorf("%s %s is not a non-negative float", name, hlo.AttrString(a))
		}
		return float32(v), nil
	}
	atol, err := tol("atol", ireeDefaultAtol)
	if err != nil {
		return nil, err
	}
	rtol, err := tol("rtol", ireeDefaultRtol)
	if err != nil {
		return nil, err
	}
	detail := fmt.Sprintf("atol %g, rtol %g", atol, rtol)
	return func(got, want *hlo.Literal) *mismatch {
		n := got.NumElements()
		wide := got.DType == hlo.F64
		for i := 0; i < n; i++ {
			var ok bool
			if wide {
				ok = iscloseF64(got.Float(i), want.Float(i), atol, rtol)
			} else {
				ok = iscloseF32(float32(got.Float(i)), float32(want.Float(i)), atol, rtol)
			}
			if !ok {
				return newMismatch(got, want, i, detail)
			}
		}
		return nil
	}, nil
}

// iscloseF32 is IREE's comparison in f32 arithmetic; every intermediate is
// rounded to f32 (the conversions keep the compiler from fusing a
// multiply-add).
func iscloseF32(lhs, rhs, atol, rtol float32) bool {
	if lhs == rhs || isNaN32(lhs) && isNaN32(rhs) {
		return true
	}
	if isNaN32(rhs) || math.IsInf(float64(rhs), 0) {
		return false
	}
	diff := float32(lhs - rhs)
	if diff < 0 {
		diff = -diff
	}
	arhs := rhs
	if arhs < 0 {
		arhs = -arhs
	}
	bound := float32(atol + float32(rtol*arhs))
	return diff <= bound
}

// iscloseF64 is the same comparison in f64 (the tolerances widen).
func iscloseF64(lhs, rhs float64, atol, rtol float32) bool {
	if lhs == rhs || math.IsNaN(lhs) && math.IsNaN(rhs) {
		return true
	}
	if math.IsNaN(rhs) || math.IsInf(rhs, 0) {
		return false
	}
	bound := float64(atol) + float64(float64(rtol)*math.Abs(rhs))
	return math.Abs(lhs-rhs) <= bound
}

func isNaN32(f float32) bool { return f != f }
