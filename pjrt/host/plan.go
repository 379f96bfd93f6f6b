package host

import (
	"fmt"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Program is a compiled module: one plan per function, compiled on first use.
type Program struct {
	mod   *hlo.Module
	entry *funcPlan

	mu    sync.Mutex
	funcs map[string]*funcPlan
}

// step runs one op (or a fused group) on frame slots.
type step struct {
	op   *hlo.Op
	run  kernel.RunFn
	in   []int
	out  []int
	free []int // slots whose last use in this block is this step
}

// blockPlan is a compiled block: its arguments, steps and result slots.
type blockPlan struct {
	args    []int
	steps   []step
	results []int
	maxIn   int
	maxOut  int
}

// funcPlan is a compiled function: it runs on a fresh frame.
type funcPlan struct {
	fn     *hlo.Func
	nslots int
	body   *blockPlan
	// copyOut[i] says result i may share storage with an argument or a
	// constant, so Execute must copy it before handing it out.
	copyOut []bool
}

// regionPlan is a compiled nested region: it runs on its parent's frame.
type regionPlan struct {
	body *blockPlan
}

// Compile verifies and plans a module for the embedded device.
func Compile(m *hlo.Module) (*Program, error) {
	entry := m.Entry()
	if entry == nil {
		return nil, fmt.Errorf("host: module %q has no entry function (no @main and not exactly one function)", m.Name)
	}
	p := &Program{mod: m, funcs: map[string]*funcPlan{}}
	fp, err := p.compileFunc(entry.Name)
	if err != nil {
		return nil, err
	}
	p.entry = fp
	return p, nil
}

// Module returns the compiled module.
func (p *Program) Module() *hlo.Module { return p.mod }

// Entry returns the entry function.
func (p *Program) Entry() *hlo.Func { return p.entry.fn }

func (p *Program) compileFunc(name string) (*funcPlan, error) {
	p.mu.Lock()
	if fp, ok := p.funcs[name]; ok {
		p.mu.Unlock()
		if fp == nil {
			return nil, fmt.Errorf("host: recursive call of @%s is not supported", name)
		}
		return fp, nil
	}
	p.funcs[name] = nil // in progress
	p.mu.Unlock()

	fn := p.mod.Func(name)
	if fn == nil {
		return nil, fmt.Errorf("host: call of undefined function @%s", name)
	}
	if fn.Body == nil || len(fn.Body.Blocks) == 0 {
		return nil, fmt.Errorf("host: function @%s has no body", name)
	}
	fp := &funcPlan{fn: fn, nslots: fn.Number()}
	c := &planner{prog: p, fn: fn, fresh: make([]bool, fp.nslots)}
	body, err := c.block(fn.Body.Blocks[0], fn.Args)
	if err != nil {
		p.mu.Lock()
		delete(p.funcs, name)
		p.mu.Unlock()
		return nil, err
	}
	fp.body = body
	fp.copyOut = make([]bool, len(body.results))
	for i, s := range body.results {
		fp.copyOut[i] = !c.fresh[s]
	}
	p.mu.Lock()
	p.funcs[name] = fp
	p.mu.Unlock()
	return fp, nil
}

// planner compiles the blocks of one function.
type planner struct {
	prog  *Program
	fn    *hlo.Func
	fresh []bool // slot produced by a Fresh kernel
}

func (c *planner) CompileRegion(r *hlo.Region) (kernel.Subplan, error) {
	if len(r.Blocks) != 1 {
		return nil, fmt.Errorf("host: regions with %d blocks are not supported", len(r.Blocks))
	}
	b, err := c.block(r.Blocks[0], r.Blocks[0].Args)
	if err != nil {
		return nil, err
	}
	return &regionPlan{body: b}, nil
}

func (c *planner) CompileFunc(name string) (kernel.Subplan, error) {
	return c.prog.compileFunc(name)
}

func isTerminator(name string) bool {
	return name == "func.return" || name == "stablehlo.return"
}

func (c *planner) block(b *hlo.Block, args []*hlo.Value) (*blockPlan, error) {
	bp := &blockPlan{}
	for _, a := range args {
		bp.args = append(bp.args, a.ID)
	}
	// Slots defined in this block (args and results); only these are freed here.
	local := map[int]bool{}
	for _, a := range args {
		local[a.ID] = true
	}
	lastUse := map[int]int{}
	ops := b.Ops
	var term *hlo.Op
	if n := len(ops); n > 0 && isTerminator(ops[n-1].Name) {
		term = ops[n-1]
		ops = ops[:n-1]
	}
	for i, op := range ops {
		for _, v := range usedValues(op) {
			lastUse[v.ID] = i
		}
		for _, r := range op.Results {
			local[r.ID] = true
		}
	}
	resultSet := map[int]bool{}
	if term != nil {
		for _, v := range term.Operands {
			bp.results = append(bp.results, v.ID)
			resultSet[v.ID] = true
		}
	}
	for i, op := range ops {
		e := kernel.Lookup(op.Name)
		if e == nil {
			return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "unsupported op on the embedded device"}
		}
		oc := &kernel.OpCtx{Op: op, Module: c.prog.mod, Compiler: c}
		for _, v := range op.Operands {
			oc.In = append(oc.In, v.Type)
		}
		for _, r := range op.Results {
			oc.Out = append(oc.Out, r.Type)
		}
		run, err := e.Compile(oc)
		if err != nil {
			return nil, err
		}
		s := step{op: op, run: run}
		for _, v := range op.Operands {
			s.in = append(s.in, v.ID)
		}
		for _, r := range op.Results {
			s.out = append(s.out, r.ID)
			c.fresh[r.ID] = e.Fresh
		}
		for _, v := range usedValues(op) {
			if lastUse[v.ID] == i && local[v.ID] && !resultSet[v.ID] {
				s.free = append(s.free, v.ID)
			}
		}
		bp.maxIn = max(bp.maxIn, len(s.in))
		bp.maxOut = max(bp.maxOut, len(s.out))
		bp.steps = append(bp.steps, s)
	}
	return bp, nil
}

// usedValues lists the values op reads, including those read inside its
// regions from enclosing scopes.
func usedValues(op *hlo.Op) []*hlo.Value {
	vals := append([]*hlo.Value(nil), op.Operands...)
	if len(op.Regions) == 0 {
		return vals
	}
	defined := map[*hlo.Value]bool{}
	for _, r := range op.Regions {
		r.Walk(func(inner *hlo.Op) bool {
			for _, res := range inner.Results {
				defined[res] = true
			}
			for _, reg := range inner.Regions {
				for _, b := range reg.Blocks {
					for _, a := range b.Args {
						defined[a] = true
					}
				}
			}
			return true
		})
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				defined[a] = true
			}
		}
	}
	for _, r := range op.Regions {
		r.Walk(func(inner *hlo.Op) bool {
			for _, v := range inner.Operands {
				if !defined[v] {
					vals = append(vals, v)
				}
			}
			return true
		})
	}
	return vals
}

// run executes the block on x.Frame.
func (bp *blockPlan) run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	if len(args) != len(bp.args) {
		return nil, fmt.Errorf("host: block takes %d arguments, got %d", len(bp.args), len(args))
	}
	frame := x.Frame
	for i, s := range bp.args {
		frame[s] = args[i]
	}
	scratch := make([]kernel.Value, bp.maxIn+bp.maxOut)
	for i := range bp.steps {
		s := &bp.steps[i]
		in := scratch[:len(s.in)]
		for k, id := range s.in {
			in[k] = frame[id]
		}
		out := scratch[len(s.in) : len(s.in)+len(s.out)]
		clear(out)
		if err := s.run(x, in, out); err != nil {
			return nil, err
		}
		for k, id := range s.out {
			frame[id] = out[k]
		}
		for _, id := range s.free {
			frame[id] = nil
		}
	}
	res := make([]kernel.Value, len(bp.results))
	for i, id := range bp.results {
		res[i] = frame[id]
	}
	return res, nil
}

// Run executes the function on a fresh frame.
func (fp *funcPlan) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	saved := x.Frame
	x.Frame = make([]kernel.Value, fp.nslots)
	res, err := fp.body.run(x, args)
	x.Frame = saved
	return res, err
}

func (fp *funcPlan) NumResults() int { return len(fp.fn.ResultTypes) }

// Run executes the region on its parent's frame.
func (rp *regionPlan) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	return rp.body.run(x, args)
}

func (rp *regionPlan) NumResults() int { return len(rp.body.results) }

// Run executes the entry function with x (nil: a single-device context).
func (p *Program) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	if x == nil {
		x = &kernel.Ctx{NumReplicas: 1, NumPartitions: 1}
	}
	if x.Program == nil {
		x.Program = p
	}
	res, err := p.entry.Run(x, args)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		if p.entry.copyOut[i] {
			res[i] = cloneValue(r)
		}
	}
	return res, nil
}

func cloneValue(v kernel.Value) kernel.Value {
	switch v := v.(type) {
	case *hlo.Literal:
		return v.Clone()
	case kernel.Tuple:
		t := make(kernel.Tuple, len(v))
		for i := range v {
			t[i] = cloneValue(v[i])
		}
		return t
	}
	return v
}
