package control

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The structural ops pass values through (a branch or callee may return its
// argument), so none of them is Fresh: their results may share storage.
// They allocate nothing themselves (NoAlloc): their regions and callees do.
func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.while", Compile: compileWhile, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.if", Compile: compileIf, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.case", Compile: compileCase, NoAlloc: true},
		kernel.Entry{Name: "func.call", Compile: compileCall, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.composite", Compile: compileComposite, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.optimization_barrier", Compile: compilePassThrough, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.tuple", Compile: compileTuple, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.get_tuple_element", Compile: compileGetTupleElement, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.after_all", Compile: compileToken, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.create_token", Compile: compileToken, NoAlloc: true},
	)
}

// setResults copies a subplan's results into the op's result slots.
func setResults(c *kernel.OpCtx, results, vals []kernel.Value) error {
	if len(vals) != len(results) {
		return &kernel.OpError{Op: c.Op.Name, Loc: c.Op.Loc, Msg: fmt.Sprintf("region returned %d values, the op has %d results", len(vals), len(results))}
	}
	copy(results, vals)
	return nil
}

func compileWhile(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.Op.Regions) != 2 {
		return nil, c.Errorf("want 2 regions (cond, body), got %d", len(c.Op.Regions))
	}
	if len(c.Op.Results) != len(c.Op.Operands) {
		return nil, c.Errorf("%d operands but %d results", len(c.Op.Operands), len(c.Op.Results))
	}
	cond, err := c.Compiler.CompileRegion(c.Op.Regions[0])
	if err != nil {
		return nil, err
	}
	body, err := c.Compiler.CompileRegion(c.Op.Regions[1])
	if err != nil {
		return nil, err
	}
	if cond.NumResults() != 1 {
		return nil, c.Errorf("cond region returns %d values, want one tensor<i1>", cond.NumResults())
	}
	if body.NumResults() != len(c.Op.Operands) {
		return nil, c.Errorf("body region returns %d values for %d loop-carried values", body.NumResults(), len(c.Op.Operands))
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		vals := append([]kernel.Value(nil), args...)
		for {
			if err := x.Canceled(); err != nil {
				return kernel.WrapError(op, err)
			}
			p, err := cond.Run(x, vals)
			if err != nil {
				return err
			}
			pl, ok := p[0].(*hlo.Literal)
			if !ok {
				return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("cond returned a %T, want tensor<i1>", p[0])}
			}
			if !kernel.Predicate(pl) {
				break
			}
			next, err := body.Run(x, vals)
			if err != nil {
				return err
			}
			vals = next
		}
		return setResults(c, results, vals)
	}, nil
}

func compileIf(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.Op.Regions) != 2 || len(c.Op.Operands) != 1 {
		return nil, c.Errorf("want a predicate and 2 regions, got %d operands and %d regions", len(c.Op.Operands), len(c.Op.Regions))
	}
	branches, err := compileBranches(c)
	if err != nil {
		return nil, err
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		p, err := kernel.TensorArg(op, args, 0)
		if err != nil {
			return err
		}
		b := branches[1]
		if kernel.Predicate(p) {
			b = branches[0]
		}
		vals, err := b.Run(x, nil)
		if err != nil {
			return err
		}
		return setResults(c, results, vals)
	}, nil
}

func compileCase(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.Op.Regions) == 0 || len(c.Op.Operands) != 1 {
		return nil, c.Errorf("want an index and at least one branch, got %d operands and %d regions", len(c.Op.Operands), len(c.Op.Regions))
	}
	branches, err := compileBranches(c)
	if err != nil {
		return nil, err
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		ix, err := kernel.TensorArg(op, args, 0)
		if err != nil {
			return err
		}
		// An out-of-range index selects the last branch (spec: case).
		i := ix.Int(0)
		if i < 0 || i >= int64(len(branches)) {
			i = int64(len(branches) - 1)
		}
		vals, err := branches[i].Run(x, nil)
		if err != nil {
			return err
		}
		return setResults(c, results, vals)
	}, nil
}

func compileBranches(c *kernel.OpCtx) ([]kernel.Subplan, error) {
	var out []kernel.Subplan
	for i, r := range c.Op.Regions {
		sp, err := c.Compiler.CompileRegion(r)
		if err != nil {
			return nil, err
		}
		if sp.NumResults() != len(c.Op.Results) {
			return nil, c.Errorf("branch %d returns %d values, the op has %d results", i, sp.NumResults(), len(c.Op.Results))
		}
		out = append(out, sp)
	}
	return out, nil
}

// compileCallee compiles the function named by attribute attr and checks
// its arity against the op.
func compileCallee(c *kernel.OpCtx, attr string) (kernel.Subplan, error) {
	a := c.Op.Attr(attr)
	if a == nil {
		return nil, c.Errorf("missing attribute %s", attr)
	}
	name, ok := kernel.Symbol(a)
	if !ok {
		return nil, c.Errorf("attribute %s is %s, want a function symbol", attr, hlo.AttrString(a))
	}
	fn := c.Module.Func(name)
	if fn == nil {
		return nil, c.Errorf("%s refers to undefined function @%s", attr, name)
	}
	if len(fn.Args) != len(c.Op.Operands) || len(fn.ResultTypes) != len(c.Op.Results) {
		return nil, c.Errorf("@%s takes %d arguments and returns %d results, the op has %d operands and %d results",
			name, len(fn.Args), len(fn.ResultTypes), len(c.Op.Operands), len(c.Op.Results))
	}
	return c.Compiler.CompileFunc(name)
}

func runCallee(c *kernel.OpCtx, f kernel.Subplan) kernel.RunFn {
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		vals, err := f.Run(x, append([]kernel.Value(nil), args...))
		if err != nil {
			return err
		}
		return setResults(c, results, vals)
	}
}

func compileCall(c *kernel.OpCtx) (kernel.RunFn, error) {
	f, err := compileCallee(c, "callee")
	if err != nil {
		return nil, err
	}
	return runCallee(c, f), nil
}

// compileComposite runs the composite's decomposition function: the
// composite's name and attributes only describe it to other compilers.
func compileComposite(c *kernel.OpCtx) (kernel.RunFn, error) {
	f, err := compileCallee(c, "decomposition")
	if err != nil {
		return nil, err
	}
	return runCallee(c, f), nil
}

func compilePassThrough(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.Op.Operands) != len(c.Op.Results) {
		return nil, c.Errorf("%d operands but %d results", len(c.Op.Operands), len(c.Op.Results))
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		copy(results, args)
		return nil
	}, nil
}

func compileTuple(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.Op.Results) != 1 {
		return nil, c.Errorf("want one result, got %d", len(c.Op.Results))
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		results[0] = append(kernel.Tuple(nil), args...)
		return nil
	}, nil
}

func compileGetTupleElement(c *kernel.OpCtx) (kernel.RunFn, error) {
	idx, ok := c.Int("index")
	if !ok {
		return nil, c.Errorf("missing integer attribute index")
	}
	if tt, ok := c.In[0].(*hlo.TupleType); ok && (idx < 0 || idx >= int64(len(tt.Elems))) {
		return nil, c.Errorf("index %d out of range for %s", idx, tt)
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		t, ok := args[0].(kernel.Tuple)
		if !ok {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("operand is a %T, want a tuple", args[0])}
		}
		if idx < 0 || idx >= int64(len(t)) {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("index %d out of range for a tuple of %d", idx, len(t))}
		}
		results[0] = t[idx]
		return nil
	}, nil
}

// compileToken: after_all and create_token only order side effects, which
// the planner's program order already does.
func compileToken(c *kernel.OpCtx) (kernel.RunFn, error) {
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		for i := range results {
			results[i] = kernel.Token{}
		}
		return nil
	}, nil
}
