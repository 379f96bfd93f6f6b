package control

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// custom_call runs the check targets that JAX-exported test programs use
// (as upstream's interpreter does) and the targets of
// customcall_targets.go; any other target is a compile error naming it.
func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.custom_call", Compile: compileCustomCall})
}

func compileCustomCall(c *kernel.OpCtx) (kernel.RunFn, error) {
	a := c.Op.Attr("call_target_name")
	target, ok := symbol(a)
	if !ok {
		return nil, c.Errorf("missing call_target_name")
	}
	switch target {
	case "check.expect_eq":
		return compileCustomCheck(c, target, exactEqual)
	case "check.expect_close":
		return compileCustomCheck(c, target, ulps(0, 3))
	case "check.expect_almost_eq":
		return compileCustomCheck(c, target, almost(1e-3))
	case "check.eq":
		return compileCheckEq(c)
	case "ProductOfElementaryHouseholderReflectors":
		return compileHouseholderProduct(c)
	case "shape_assertion":
		return compileShapeAssertion(c)
	}
	return nil, c.Errorf("unsupported custom_call target %q (the embedded device runs the check.* targets, ProductOfElementaryHouseholderReflectors and shape_assertion)", target)
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
