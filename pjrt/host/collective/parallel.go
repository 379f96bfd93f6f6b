package collective

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// interpreter.run_parallel(%inputs...) {programs = [[@f00, @f01], [@f10,
// @f11]], infeed = [@q0, ...]} runs a replicas x partitions grid of
// functions concurrently (the outer list is replicas, the inner one
// partitions): the inputs are dealt out in device order, each function
// taking as many as it has arguments, and the results are gathered in the
// same order. The program (x.Program) launches the grid; see
// kernel.Launcher.
func init() {
	kernel.Register(kernel.Entry{Name: "interpreter.run_parallel", Compile: compileRunParallel, NoAlloc: true})
}

func compileRunParallel(c *kernel.OpCtx) (kernel.RunFn, error) {
	rows, ok := c.Op.Attr("programs").(hlo.ArrayAttr)
	if !ok || len(rows) == 0 {
		return nil, c.Errorf("programs must be a non-empty list of lists of functions, got %s", kernel.AttrText(c.Op.Attr("programs")))
	}
	var names []string
	np := -1
	for _, r := range rows {
		row, ok := r.(hlo.ArrayAttr)
		if !ok || len(row) == 0 {
			return nil, c.Errorf("programs row %s is not a non-empty list of functions", kernel.AttrText(r))
		}
		if np >= 0 && len(row) != np {
			return nil, c.Errorf("programs rows differ in length (%d and %d partitions)", np, len(row))
		}
		np = len(row)
		for _, f := range row {
			name, ok := kernel.Symbol(f)
			if !ok {
				return nil, c.Errorf("program %s is not a function symbol", kernel.AttrText(f))
			}
			names = append(names, name)
		}
	}
	nr := len(rows)
	g := kernel.Grid{NumReplicas: nr, NumPartitions: np}
	nargs := make([]int, len(names))
	totalArgs, totalResults := 0, 0
	for i, name := range names {
		fn := c.Module.Func(name)
		if fn == nil {
			return nil, c.Errorf("program @%s is not defined", name)
		}
		sp, err := c.Compiler.CompileFunc(name)
		if err != nil {
			return nil, err
		}
		g.Funcs = append(g.Funcs, sp)
		nargs[i] = len(fn.Args)
		totalArgs += len(fn.Args)
		totalResults += len(fn.ResultTypes)
	}
	if totalArgs != len(c.Op.Operands) || totalResults != len(c.Op.Results) {
		return nil, c.Errorf("the programs take %d inputs and return %d results in all, the op has %d inputs and %d results",
			totalArgs, totalResults, len(c.Op.Operands), len(c.Op.Results))
	}
	if a := c.Op.Attr("infeed"); a != nil {
		list, ok := a.(hlo.ArrayAttr)
		if !ok || len(list) == 0 {
			return nil, c.Errorf("infeed must be a non-empty list of functions, got %s", kernel.AttrText(a))
		}
		for _, f := range list {
			name, ok := kernel.Symbol(f)
			if !ok {
				return nil, c.Errorf("infeed entry %s is not a function symbol", kernel.AttrText(f))
			}
			fn := c.Module.Func(name)
			if fn == nil {
				return nil, c.Errorf("infeed function @%s is not defined", name)
			}
			if len(fn.Args) != 0 {
				return nil, c.Errorf("infeed function @%s must take no arguments", name)
			}
			sp, err := c.Compiler.CompileFunc(name)
			if err != nil {
				return nil, err
			}
			g.Infeed = append(g.Infeed, sp)
		}
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, ok := x.Program.(kernel.Launcher)
		if !ok {
			return kernel.OpErrorf(op, "the running program (%T) cannot launch parallel devices", x.Program)
		}
		run := g
		run.Args = make([][]kernel.Value, len(names))
		k := 0
		for i, n := range nargs {
			run.Args[i] = append([]kernel.Value(nil), args[k:k+n]...)
			k += n
		}
		outs, err := l.Launch(x, &run)
		if err != nil {
			return kernel.WrapError(op, err)
		}
		k = 0
		for _, o := range outs {
			for _, v := range o {
				if k >= len(results) {
					return kernel.OpErrorf(op, "the programs returned more than the op's %d results", len(results))
				}
				results[k] = v
				k++
			}
		}
		if k != len(results) {
			return kernel.OpErrorf(op, "the programs returned %d values for %d results", k, len(results))
		}
		return nil
	}, nil
}
