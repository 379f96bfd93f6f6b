package check

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The check targets of stablehlo.custom_call that JAX-exported test
// programs use (as upstream's interpreter runs them).
func init() {
	kernel.RegisterTarget("check.expect_eq", customCheck("check.expect_eq", exactEqual))
	kernel.RegisterTarget("check.expect_close", customCheck("check.expect_close", ulps(0, 3)))
	kernel.RegisterTarget("check.expect_almost_eq", customCheck("check.expect_almost_eq", almost(1e-3)))
	kernel.RegisterTarget("check.eq", compileCheckEq)
}

func customCheck(target string, cmp comparer) kernel.CompileFn {
	return func(c *kernel.OpCtx) (kernel.RunFn, error) { return compileCustomCheck(c, target, cmp) }
}

func compileCustomCheck(c *kernel.OpCtx, target string, cmp comparer) (kernel.RunFn, error) {
	if len(c.Op.Operands) != 2 || len(c.Op.Results) != 0 {
		return nil, c.Errorf("target %s takes 2 operands and has no results, got %d and %d", target, len(c.Op.Operands), len(c.Op.Results))
	}
	return compileBinaryCheck(c, cmp)
}

// compileCheckEq: @check.eq(%a, %b) -> tensor<i1> compares integers
// exactly and floats within 1e-4, returns whether they match, and counts as
// a check (a mismatch fails the test, as upstream).
func compileCheckEq(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.Op.Operands) != 2 || len(c.Op.Results) != 1 {
		return nil, c.Errorf("target check.eq takes 2 operands and returns tensor<i1>, got %d operands and %d results", len(c.Op.Operands), len(c.Op.Results))
	}
	cmp := exactEqual
	if t := c.InTensor(1); t != nil && (t.DType.IsFloat() || t.DType.IsComplex()) {
		cmp = almost(1e-4)
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		ok, err := runCheck(x, op, args[0], args[1], cmp)
		if err != nil {
			return err
		}
		r := hlo.NewLiteral(hlo.Bool)
		if ok {
			r.Data[0] = 1
		}
		results[0] = r
		return nil
	}, nil
}
