package host

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/internal/refs"
	"github.com/xlajit/xlajit/internal/slab"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Program is a compiled module: one plan per function.
type Program struct {
	mod   *hlo.Module
	entry *funcPlan

	mu    sync.Mutex
	funcs map[string]*funcPlan
	// queue holds functions named by calls but not planned yet: they are
	// planned one after the other, not from inside their caller's plan, so
	// a long chain of calls does not nest the planner that deep.
	queue []*funcPlan
	// calls lists each planned function's calls, for the cycle and depth
	// checks (calls.go).
	calls map[*funcPlan][]callEdge

	noFuse bool

	// mem is the memory account compile-time tables are checked against,
	// and Run's when its context has none.
	mem *kernel.Mem
	// entryFn is the entry function (known before its plan is done).
	entryFn *hlo.Func

	// runs holds run states: an execution takes one, recycles its dead
	// intermediates through its pool and hands it back, so the next
	// execution reuses that storage.
	runs freeList[runState]
	// kept counts the bytes the idle run states keep (retained.go).
	kept atomic.Pointer[atomic.Int64]
	// execs counts the executions started (a replicated launch once):
	// retain keeps a pool from the second on.
	execs atomic.Int64
}

// step runs one op, or a fused group of elementwise ops, on frame slots.
type step struct {
	op       *hlo.Op      // the op (a fused group's first member, a compound's anchor)
	run      kernel.RunFn // an op or compound step
	fused    *fusion      // a fused step
	compound *kernel.Compound
	in       []int32
	out      []int32
	// free lists the slots whose last use in this block is this step; the
	// first nrecycle of them hold storage that goes back to the pool.
	free     []int32
	nrecycle int
	// headers lists freed slots holding views (reshape results) whose
	// literal headers go back to the pool.
	headers []int32
	acct    stepAccount // memory accounting (account.go)
	// argFree lists entry arguments whose last use is this step and whose
	// readers cannot alias them: a fused output may take the storage of
	// one the execution donated. (Donated storage no result took goes to
	// the pool after the execution, runState.poolDonated.)
	argFree []int32
}

// blockPlan is a compiled block: its arguments, steps and result slots.
type blockPlan struct {
	args    []int32
	steps   []step
	results []int32
	// scratch is the offset in the frame of this block's operand and result
	// scratch (maxIn + maxOut slots past the value slots).
	scratch       int
	maxIn, maxOut int
	// account says the block's steps reserve and release memory
	// (account.go); blocks whose results are all small do not. adoptArgs
	// says the block counts its arguments too (a region's block).
	account, adoptArgs bool
}

// funcPlan is a compiled function: it runs on a fresh frame.
type funcPlan struct {
	fn     *hlo.Func
	nslots int // value slots plus the blocks' scratch slots
	body   *blockPlan
	// copyOut[i] says result i may share storage with an argument or a
	// constant, so Execute must copy it before handing it out.
	copyOut []bool
	// params are the parameters as checkArgs reads them (entry only).
	params []paramSpec
	frames freeList[frameBuf]
}

type frameBuf struct{ slots []kernel.Value }

// regionPlan is a compiled nested region: it runs on its parent's frame.
type regionPlan struct {
	body *blockPlan
}

// Compile verifies and plans a module for the embedded device. Its
// compile-time tables are checked against the process's default memory
// limit (XLAJIT_HOST_MEMORY_LIMIT), which Program.Run also uses when its
// context has no memory account.
func Compile(m *hlo.Module) (*Program, error) { return compile(m, true) }

// compile plans m; fuse=false runs every elementwise op as its own step
// through its table entry (the reference the fused plan is tested against).
func compile(m *hlo.Module, fuse bool) (*Program, error) {
	mem, err := defaultMem()
	if err != nil {
		return nil, err
	}
	return compileMem(m, fuse, mem)
}

// compileMem is compile with the memory account of the device (nil: no
// limit).
func compileMem(m *hlo.Module, fuse bool, mem *kernel.Mem) (*Program, error) {
	// A module as the builder finished it was verified while it was built.
	if !m.Built() {
		if err := hlo.Verify(m); err != nil {
			return nil, err
		}
	}
	entry := m.Entry()
	if entry == nil {
		return nil, fmt.Errorf("host: module %q has no entry function (no @main and not exactly one function)", m.Name)
	}
	p := &Program{mod: m, funcs: map[string]*funcPlan{}, calls: map[*funcPlan][]callEdge{}, noFuse: !fuse, mem: mem, entryFn: entry}
	fp, err := p.declareFunc(entry.Name)
	if err != nil {
		return nil, err
	}
	for len(p.queue) > 0 {
		next := p.queue[0]
		p.queue = p.queue[1:]
		if err := p.planFunc(next); err != nil {
			return nil, err
		}
	}
	if err := p.checkCalls(fp); err != nil {
		return nil, err
	}
	fp.params = paramSpecs(fp.fn)
	p.entry = fp
	return p, nil
}

// Module returns the compiled module.
func (p *Program) Module() *hlo.Module { return p.mod }

// Entry returns the entry function.
func (p *Program) Entry() *hlo.Func { return p.entry.fn }

// declareFunc returns the plan of the function called name, queued for
// planning if it is new.
func (p *Program) declareFunc(name string) (*funcPlan, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fp, ok := p.funcs[name]; ok {
		return fp, nil
	}
	fn := p.mod.Func(name)
	if fn == nil {
		return nil, fmt.Errorf("host: call of undefined function @%s", name)
	}
	if fn.Body == nil || len(fn.Body.Blocks) == 0 {
		return nil, fmt.Errorf("host: function @%s has no body", name)
	}
	fp := &funcPlan{fn: fn}
	p.funcs[name] = fp
	p.queue = append(p.queue, fp)
	return fp, nil
}

// planFunc plans a declared function's body.
func (p *Program) planFunc(fp *funcPlan) error {
	fn := fp.fn
	nvals := fn.Number()
	c := &planner{prog: p, fp: fp, fn: fn, fresh: make([]bool, nvals), nslots: nvals, nvals: nvals, entry: fn == p.entryFn}
	body, err := c.block(fn.Body.Blocks[0], fn.Args, false)
	if err != nil {
		return err
	}
	fp.body = body
	fp.nslots = c.nslots
	fp.copyOut = make([]bool, len(body.results))
	for i, s := range body.results {
		// A fresh value returned twice is copied at its second place:
		// two buffers must not share storage (donating one would
		// overwrite the other).
		fp.copyOut[i] = !c.fresh[s] || slices.Contains(body.results[:i], s)
	}
	return nil
}

// planner compiles the blocks of one function.
type planner struct {
	prog   *Program
	fp     *funcPlan
	fn     *hlo.Func
	fresh  []bool // slot produced by a Fresh kernel (or a fused step)
	nslots int    // frame size so far: values, then block scratch areas
	// regionDepth is the nesting of the region being planned.
	regionDepth int
	// entry is set while planning the entry function, whose top block's
	// arguments an execution may donate.
	entry bool
	// nvals is the function's value count (Func.Number); tabs, when not
	// in use, are fuse's tables indexed by value ID.
	nvals int
	tabs  *fuseTables
	// kernels caches kernel.Lookup by the identity of an op name's bytes
	// (a builder's ops share their names' strings), see lookup.
	kernels [8]kernelOf
	// ctxs hands out zero op contexts for opCtx.
	ctxs slab.Slab[opCtxCell]
}

// opCtxCell is an op context and room for its operand and result types.
type opCtxCell struct {
	oc  kernel.OpCtx
	buf [4]hlo.Type
}

type kernelOf struct {
	name *byte
	n    int
	e    *kernel.Entry
}

// lookup is kernel.Lookup, cached: a function of thousands of ops has a
// handful of op names, and the registry takes a lock and hashes the name.
func (c *planner) lookup(name string) *kernel.Entry {
	p := unsafe.StringData(name)
	k := &c.kernels[(uintptr(unsafe.Pointer(p))>>3)%uintptr(len(c.kernels))]
	if k.name == p && k.n == len(name) && p != nil {
		return k.e
	}
	e := kernel.Lookup(name)
	*k = kernelOf{p, len(name), e}
	return e
}

func (c *planner) CompileRegion(r *hlo.Region) (kernel.Subplan, error) {
	if len(r.Blocks) != 1 {
		return nil, fmt.Errorf("host: regions with %d blocks are not supported", len(r.Blocks))
	}
	c.regionDepth++
	b, err := c.block(r.Blocks[0], r.Blocks[0].Args, true)
	c.regionDepth--
	if err != nil {
		return nil, err
	}
	return &regionPlan{body: b}, nil
}

// CompileFunc returns the plan of a called function; it is planned after
// the caller (a Subplan runs only once the whole program is planned).
func (c *planner) CompileFunc(name string) (kernel.Subplan, error) {
	fp, err := c.prog.declareFunc(name)
	if err != nil {
		return nil, err
	}
	c.prog.mu.Lock()
	c.prog.calls[c.fp] = append(c.prog.calls[c.fp], callEdge{fp, c.regionDepth + 1})
	c.prog.mu.Unlock()
	return fp, nil
}

func isTerminator(name string) bool {
	return name == "func.return" || name == "stablehlo.return"
}

// opCtx builds the compile context of op.
func (c *planner) opCtx(op *hlo.Op) *kernel.OpCtx {
	// The context and its type lists in one cell, cut from a chunk (a
	// function of thousands of ops pays one allocation per chunk; the
	// kernels that keep their context live as long as the program).
	x := c.ctxs.Get()
	oc := &x.oc
	*oc = kernel.OpCtx{Op: op, Module: c.prog.mod, Compiler: c, Mem: c.prog.mem}
	ts := x.buf[:0]
	if n := len(op.Operands) + len(op.Results); n > len(x.buf) {
		ts = make([]hlo.Type, 0, n)
	}
	for _, v := range op.Operands {
		ts = append(ts, v.Type)
	}
	nin := len(op.Operands)
	for _, r := range op.Results {
		ts = append(ts, r.Type)
	}
	if nin > 0 {
		oc.In = ts[:nin:nin]
	}
	if len(ts) > nin {
		oc.Out = ts[nin:len(ts):len(ts)]
	}
	return oc
}

// block compiles b: it groups fusible elementwise ops (see group), compiles
// every step, and computes which slots each step frees, which of those
// hold storage that may be recycled, and the memory accounting of each
// step (region: b is the block of a region, not a function body).
func (c *planner) block(b *hlo.Block, args []*hlo.Value, region bool) (*blockPlan, error) {
	bp := &blockPlan{}
	for _, a := range args {
		bp.args = append(bp.args, int32(a.ID))
	}
	ops := b.Ops
	var term *hlo.Op
	if n := len(ops); n > 0 && isTerminator(ops[n-1].Name) {
		term = ops[n-1]
		ops = ops[:n-1]
	}
	for _, op := range ops {
		if err := c.checkSizes(op); err != nil {
			return nil, err
		}
	}
	uses := c.useInfo(ops, term, !region)
	comps, err := c.compounds(ops, uses)
	if err != nil {
		return nil, err
	}
	groups := c.group(ops, uses, comps)

	// Slots defined in this block (args and results); only these are freed here.
	local := newIDTable[bool](c.nvals, !region)
	for _, a := range args {
		local.set(a.ID, true)
	}
	resultSet := map[int]bool{}
	if term != nil {
		for _, v := range term.Operands {
			bp.results = append(bp.results, int32(v.ID))
			resultSet[v.ID] = true
		}
	}
	// Compile the steps; record per step the values it reads and writes.
	var su []stepUse
	fusions := make([]*fusion, len(groups))
	for i, g := range groups {
		if g.fused {
			f, err := c.fuse(g, uses, resultSet)
			if err != nil {
				return nil, err
			}
			fusions[i] = f
		}
	}
	for i, g := range groups {
		var s step
		var u stepUse
		if !g.fused && g.compound == nil && boundConstant(g.ops[0], uses, resultSet) {
			continue // its literal is bound into the fused steps reading it
		}
		if cp := g.compound; cp != nil {
			s = step{op: g.anchor, run: cp.Run, compound: cp}
			for _, v := range cp.Inputs {
				s.in = append(s.in, int32(v.ID))
			}
			for _, v := range cp.Outputs {
				s.out = append(s.out, int32(v.ID))
				c.fresh[v.ID] = true
			}
			for _, op := range cp.Ops {
				for _, r := range op.Results {
					local.set(r.ID, true)
				}
			}
			u = stepUse{reads: cp.Inputs, writes: cp.Outputs}
		} else if g.fused {
			f := fusions[i]
			if len(f.members) == 0 {
				continue // every member's result is dead
			}
			s = step{op: g.ops[0], fused: f}
			for k, v := range f.inVals {
				if f.consts[k] != nil {
					s.in = append(s.in, -1)
					continue
				}
				s.in = append(s.in, int32(v.ID))
				u.reads = append(u.reads, v)
			}
			for _, v := range f.outVals {
				s.out = append(s.out, int32(v.ID))
				c.fresh[v.ID] = true
			}
			u.writes = f.outVals
			for _, op := range g.ops {
				for _, r := range op.Results {
					local.set(r.ID, true)
				}
			}
		} else {
			op := g.ops[0]
			e := c.lookup(op.Name)
			if e == nil {
				return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "unsupported op on the embedded device"}
			}
			run, err := e.Compile(c.opCtx(op))
			if err != nil {
				return nil, err
			}
			s = step{op: op, run: run}
			for _, v := range op.Operands {
				s.in = append(s.in, int32(v.ID))
			}
			for _, r := range op.Results {
				s.out = append(s.out, int32(r.ID))
				c.fresh[r.ID] = e.IsFresh(op)
				local.set(r.ID, true)
			}
			u = stepUse{reads: usedValues(op), writes: op.Results}
		}
		bp.maxIn = max(bp.maxIn, len(s.in))
		bp.maxOut = max(bp.maxOut, len(s.out))
		bp.steps = append(bp.steps, s)
		su = append(su, u)
	}
	bp.steps, su = dropDeadSteps(bp.steps, su, resultSet)

	// Liveness over the steps: the last step reading each value; values
	// never read die where they are defined. A reshape is a view of its
	// operand's storage: the operand (the root of the view's group) lives
	// as long as any view of it does, so that its storage can be recycled
	// when the whole group is dead.
	lastUse := newIDTable[int](c.nvals, !region)
	for i, u := range su {
		for _, v := range u.writes {
			lastUse.set(v.ID, i)
		}
		for _, v := range u.reads {
			lastUse.set(v.ID, i)
		}
	}
	views := c.viewGroups(bp, uses, resultSet, local)
	for v, root := range views.root {
		if lastUse.get(v.ID) > lastUse.get(root.ID) {
			lastUse.set(root.ID, lastUse.get(v.ID))
		}
	}
	seen := map[int]bool{}
	for i := range bp.steps {
		s := &bp.steps[i]
		var recycle, drop []int32
		clear(seen)
		for _, list := range [][]*hlo.Value{su[i].reads, su[i].writes} {
			for _, v := range list {
				if seen[v.ID] || lastUse.get(v.ID) != i || !local.get(v.ID) || resultSet[v.ID] {
					continue
				}
				seen[v.ID] = true
				if c.recyclable(v, uses, views) {
					recycle = append(recycle, int32(v.ID))
				} else {
					drop = append(drop, int32(v.ID))
				}
			}
		}
		// A root kept alive for its views dies with the last of them.
		for v, root := range views.root {
			if lastUse.get(root.ID) == i && !seen[root.ID] && local.get(root.ID) && !resultSet[root.ID] && lastUse.get(v.ID) == i {
				seen[root.ID] = true
				if c.recyclable(root, uses, views) {
					recycle = append(recycle, int32(root.ID))
				} else {
					drop = append(drop, int32(root.ID))
				}
			}
		}
		s.free = append(recycle, drop...)
		s.nrecycle = len(recycle)
		for _, id := range drop {
			if views.header[id] {
				s.headers = append(s.headers, id)
			}
		}
		if s.fused != nil {
			s.fused.planInPlace(s, su[i].reads, c, views)
		}
		if c.entry && len(bp.steps) > 0 && b == c.fn.Body.Blocks[0] {
			for _, a := range args {
				if lastUse.get(a.ID) == i && !resultSet[a.ID] && readersCannotAlias(a, uses) && readIn(a, su[i].reads) {
					s.argFree = append(s.argFree, int32(a.ID))
				}
			}
			if s.fused != nil {
				s.fused.planArgInPlace(s)
			}
		}
	}
	c.planAccount(bp, args, region)
	bp.scratch = c.nslots
	c.nslots += bp.maxIn + bp.maxOut
	return bp, nil
}

// checkSizes fails for an op with an operand or result that alone does
// not fit the memory limit: no run of it can succeed, and kernels size
// compile-time tables by these types.
func (c *planner) checkSizes(op *hlo.Op) error {
	mem := c.prog.mem
	if mem == nil {
		return nil
	}
	limit := mem.Limit()
	if limit == 0 {
		return nil
	}
	for _, v := range op.Operands {
		// An op's result is checked with that op, which comes first (in
		// this block, or in an enclosing one, whose ops are checked
		// before its regions are planned).
		if v.Def == nil {
			if err := checkSize(mem, limit, op, v); err != nil {
				return err
			}
		}
	}
	for _, v := range op.Results {
		if err := checkSize(mem, limit, op, v); err != nil {
			return err
		}
	}
	return nil
}

// checkSize is checkSizes for one value of op.
func checkSize(mem *kernel.Mem, limit int64, op *hlo.Op, v *hlo.Value) error {
	n, ok := hlo.TypeByteSize(v.Type)
	if ok && n <= limit {
		return nil
	}
	if !ok && !hlo.IsStaticType(v.Type) {
		return nil // dynamic: checked when it is made
	}
	shape := v.Type.String()
	if t := v.TensorType(); t != nil {
		shape = t.ShapeString()
	}
	return mem.OutOfMemory(op, "", shape, n)
}

// boundConstant reports a constant op that needs no step: only fused
// steps read it, and they bind its literal when compiled.
func boundConstant(op *hlo.Op, uses *useInfo, returned map[int]bool) bool {
	if op.Name != "stablehlo.constant" || len(op.Results) != 1 || returned[op.Results[0].ID] || uses.compoundInput[op.Results[0]] {
		return false
	}
	for _, u := range uses.usersOf(op.Results[0]) {
		if !uses.isFused(u) {
			return false
		}
	}
	return true
}

// readersCannotAlias reports whether every op reading v is a fused member
// or a Fresh kernel (none can hand v's storage on in a result).
func readersCannotAlias(v *hlo.Value, uses *useInfo) bool {
	if v.TensorType() == nil {
		return false
	}
	for _, op := range uses.usersOf(v) {
		if uses.isFused(op) || uses.compoundMember[op] {
			continue
		}
		if e := kernel.Lookup(op.Name); e == nil || !e.Fresh {
			return false
		}
	}
	return true
}

func readIn(v *hlo.Value, reads []*hlo.Value) bool {
	for _, r := range reads {
		if r == v {
			return true
		}
	}
	return false
}

// recyclable reports whether v's storage is owned by the plan once v is
// dead: a tensor made by a Fresh kernel (or a fused step) and read only by
// steps that cannot keep it alive inside their results (Fresh kernels,
// fused steps, and reshapes whose views are read only by such steps).
// Arguments, constants and anything that passed through another aliasing
// op (tuple, while, call, ...) never qualify.
func (c *planner) recyclable(v *hlo.Value, uses *useInfo, views *viewInfo) bool {
	if v.Def == nil || !c.fresh[v.ID] || v.TensorType() == nil || views.root[v] != nil {
		return false
	}
	return views.private[v]
}

// viewInfo describes the reshapes of a block: the root each view's storage
// belongs to, the roots (and views) read only by steps that keep no
// reference to them, and the views whose literal headers may be reused
// once dead.
type viewInfo struct {
	root    map[*hlo.Value]*hlo.Value
	private map[*hlo.Value]bool
	header  map[int32]bool
}

// viewGroups finds the reshape steps of bp (views of their operand's
// storage) and which values no reader can keep alive: every reader is a
// fused step, a Fresh kernel, or a reshape whose view is itself private.
func (c *planner) viewGroups(bp *blockPlan, uses *useInfo, returned map[int]bool, local *idTableOf[bool]) *viewInfo {
	vi := &viewInfo{root: map[*hlo.Value]*hlo.Value{}, private: map[*hlo.Value]bool{}, header: map[int32]bool{}}
	isView := func(op *hlo.Op) bool {
		return op.Name == "stablehlo.reshape" && len(op.Results) == 1 && op.Results[0].TensorType() != nil
	}
	for i := range bp.steps {
		s := &bp.steps[i]
		if s.fused != nil || s.compound != nil || !isView(s.op) {
			continue
		}
		in, out := s.op.Operands[0], s.op.Results[0]
		r := in
		if rr := vi.root[in]; rr != nil {
			r = rr
		}
		vi.root[out] = r
	}
	// private is decided from the last value back: a view's readers come
	// after it.
	var private func(v *hlo.Value) bool
	memo := map[*hlo.Value]int8{}
	private = func(v *hlo.Value) bool {
		if m := memo[v]; m != 0 {
			return m > 0
		}
		ok := !returned[v.ID] && local.get(v.ID)
		for _, op := range uses.usersOf(v) {
			if !ok {
				break
			}
			switch {
			case uses.isFused(op) || uses.compoundMember[op]:
			case isView(op):
				ok = private(op.Results[0])
			default:
				e := c.lookup(op.Name)
				ok = e != nil && e.IsFresh(op)
			}
		}
		if ok {
			memo[v] = 1
		} else {
			memo[v] = -1
		}
		return ok
	}
	for i := range bp.steps {
		s := &bp.steps[i]
		for _, id := range s.out {
			if v := c.valueOf(s, id); v != nil {
				vi.private[v] = private(v)
			}
		}
	}
	for v := range vi.root {
		if vi.private[v] {
			vi.header[int32(v.ID)] = true
		}
	}
	return vi
}

// valueOf returns the result of step s in slot id.
func (c *planner) valueOf(s *step, id int32) *hlo.Value {
	if s.compound != nil {
		for _, v := range s.compound.Outputs {
			if int32(v.ID) == id {
				return v
			}
		}
		return nil
	}
	if s.fused != nil {
		for _, v := range s.fused.outVals {
			if int32(v.ID) == id {
				return v
			}
		}
		return nil
	}
	for _, r := range s.op.Results {
		if int32(r.ID) == id {
			return r
		}
	}
	return nil
}

// useInfo records, for the values read in one block, the ops of the block
// reading them (directly or from inside their regions) and whether the
// terminator returns them.
type useInfo struct {
	// users (in a region's block) or byID (in a function body, indexed by
	// value ID) list the readers of each value: see usersOf.
	users    map[*hlo.Value][]*hlo.Op
	byID     [][]*hlo.Op
	returned map[*hlo.Value]bool
	// fused marks the ops that ended up inside fused steps, by result ID
	// (a fused op has one result). See isFused.
	fused *idTableOf[bool]
	// compoundMember marks the ops inside compound steps (whose outputs,
	// like a fused step's, are fresh); compoundInput the values compound
	// steps read (a compound may read a value none of its ops has as an
	// operand, such as the scalar a splat broadcasts).
	compoundMember map[*hlo.Op]bool
	compoundInput  map[*hlo.Value]bool
}

func (c *planner) useInfo(ops []*hlo.Op, term *hlo.Op, top bool) *useInfo {
	u := &useInfo{returned: map[*hlo.Value]bool{}, compoundMember: map[*hlo.Op]bool{}, compoundInput: map[*hlo.Value]bool{}}
	u.fused = newIDTable[bool](c.nvals, top)
	if top {
		u.byID = usersByID(ops, c.nvals)
	} else {
		u.users = make(map[*hlo.Value][]*hlo.Op, 2*len(ops))
		for _, op := range ops {
			for _, v := range usedValues(op) {
				if l := u.users[v]; len(l) == 0 || l[len(l)-1] != op {
					u.users[v] = append(l, op)
				}
			}
		}
	}
	if term != nil {
		for _, v := range term.Operands {
			u.returned[v] = true
		}
	}
	return u
}

// usersByID lists the readers of each value of a function (by its dense
// ID, n of them) among ops, the function body's ops: one array holds every
// list, so a body of many ops costs a few allocations, not one per value.
func usersByID(ops []*hlo.Op, n int) [][]*hlo.Op {
	count := make([]int32, n)
	last := make([]int32, n) // index + 1 of the last op counted
	var used map[int][]*hlo.Value
	total := 0
	for i, op := range ops {
		vals := usedValues(op)
		if len(op.Regions) > 0 {
			if used == nil {
				used = map[int][]*hlo.Value{}
			}
			used[i] = vals
		}
		for _, v := range vals {
			if last[v.ID] != int32(i+1) {
				last[v.ID] = int32(i + 1)
				count[v.ID]++
				total++
			}
		}
	}
	flat := make([]*hlo.Op, total)
	byID := make([][]*hlo.Op, n)
	off := 0
	for id, k := range count {
		if k > 0 {
			byID[id] = flat[off : off : off+int(k)]
			off += int(k)
		}
	}
	for i, op := range ops {
		vals := op.Operands
		if len(op.Regions) > 0 {
			vals = used[i]
		}
		for _, v := range vals {
			if l := byID[v.ID]; len(l) == 0 || l[len(l)-1] != op {
				byID[v.ID] = append(l, op)
			}
		}
	}
	return byID
}

// setFused marks op, a fusion member, as fused.
func (u *useInfo) setFused(op *hlo.Op) { u.fused.set(op.Results[0].ID, true) }

// isFused reports whether op is a member of a fused step.
func (u *useInfo) isFused(op *hlo.Op) bool {
	return len(op.Results) == 1 && u.fused.get(op.Results[0].ID)
}

// usersOf returns the ops of the block reading v.
func (u *useInfo) usersOf(v *hlo.Value) []*hlo.Op {
	if u.byID != nil {
		if v.ID >= 0 && v.ID < len(u.byID) {
			return u.byID[v.ID]
		}
		return nil
	}
	return u.users[v]
}

// usedValues lists the values op reads, including those read inside its
// regions from enclosing scopes (op.Operands itself for an op without
// regions: callers do not modify it).
func usedValues(op *hlo.Op) []*hlo.Value {
	if len(op.Regions) == 0 {
		return op.Operands
	}
	return append(append([]*hlo.Value(nil), op.Operands...), op.CapturedValues()...)
}

// run executes the block on x.Frame and appends its results to res (nil:
// a new slice).
func (bp *blockPlan) run(x *kernel.Ctx, args, res []kernel.Value) ([]kernel.Value, error) {
	if len(args) != len(bp.args) {
		return nil, fmt.Errorf("host: block takes %d arguments, got %d", len(bp.args), len(args))
	}
	frame := x.Frame
	for i, s := range bp.args {
		frame[s] = args[i]
	}
	scratch := frame[bp.scratch : bp.scratch+bp.maxIn+bp.maxOut]
	pool := x.Pool
	var mem *kernel.Mem
	var live int64 // bytes this run counts in mem (account.go)
	if bp.account {
		mem = x.Mem
	}
	if mem != nil && bp.adoptArgs {
		for _, a := range args {
			live += valueBytes(a)
		}
		mem.Add(live)
	}
	for i := range bp.steps {
		s := &bp.steps[i]
		if mem != nil {
			if err := s.before(x, frame, mem, &live); err != nil {
				mem.Release(live)
				return nil, err
			}
		}
		if s.fused != nil {
			if err := s.fused.run(x, frame, s); err != nil {
				mem.Release(live)
				return nil, err
			}
		} else {
			in := scratch[:len(s.in)]
			for k, id := range s.in {
				in[k] = frame[id]
			}
			out := scratch[len(s.in) : len(s.in)+len(s.out)]
			if err := s.run(x, in, out); err != nil {
				clear(scratch[:len(s.in)+len(s.out)])
				mem.Release(live)
				return nil, err
			}
			for k, id := range s.out {
				frame[id] = out[k]
			}
			clear(scratch[:len(s.in)+len(s.out)])
		}
		if mem != nil {
			s.afterStep(x, frame, mem, &live)
		}
		if pool != nil {
			for _, id := range s.headers {
				if l, ok := frame[id].(*hlo.Literal); ok {
					pool.PutHeader(l)
				}
			}
		}
		for k, id := range s.free {
			if k < s.nrecycle && pool != nil {
				if l, ok := frame[id].(*hlo.Literal); ok {
					pool.Put(l)
				}
			}
			frame[id] = nil
		}
	}
	if mem != nil {
		mem.Release(live)
	}
	if res == nil {
		res = make([]kernel.Value, 0, len(bp.results))
	}
	for _, id := range bp.results {
		res = append(res, frame[id])
	}
	return res, nil
}

// Run executes the function on a fresh frame.
func (fp *funcPlan) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	return fp.runInto(x, args, nil)
}

// runInto is Run appending the results to res.
func (fp *funcPlan) runInto(x *kernel.Ctx, args, res []kernel.Value) ([]kernel.Value, error) {
	fb := fp.frames.get()
	if fb == nil {
		fb = &frameBuf{slots: make([]kernel.Value, fp.nslots)}
	}
	res, err := fp.runOn(x, fb.slots, args, res)
	fp.frames.put(fb)
	return res, err
}

// runOn runs the function on frame (nslots long), clearing it afterwards.
func (fp *funcPlan) runOn(x *kernel.Ctx, frame, args, res []kernel.Value) ([]kernel.Value, error) {
	saved := x.Frame
	x.Frame = frame
	res, err := fp.body.run(x, args, res)
	x.Frame = saved
	refs.Drop(frame)
	return res, err
}

func (fp *funcPlan) NumResults() int { return len(fp.fn.ResultTypes) }

// Run executes the region on its parent's frame.
func (rp *regionPlan) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	return rp.body.run(x, args, nil)
}

func (rp *regionPlan) NumResults() int { return len(rp.body.results) }

// Run executes the entry function with x (nil: a single-device context).
// Results that may share storage with arguments or constants are copied.
// The arguments are checked against the entry's parameter types. A
// context without a memory account runs in the program's (the process's
// default limit for Compile).
func (p *Program) Run(x *kernel.Ctx, args []kernel.Value) ([]kernel.Value, error) {
	if err := p.checkArgs(args); err != nil {
		return nil, err
	}
	if x == nil {
		x = &kernel.Ctx{NumReplicas: 1, NumPartitions: 1}
	}
	if x.Program == nil {
		x.Program = p
	}
	if x.Mem == nil {
		x.Mem = p.mem
		defer func() { x.Mem = nil }()
	}
	var r *runState
	if x.Pool == nil {
		r = p.getRun()
		x.Pool = &r.pool
	}
	if x.Comm == nil {
		// Not a device of a launch, which counted itself.
		p.execs.Add(1)
	}
	res, err := p.entry.runInto(x, args, nil)
	if r != nil {
		x.Pool = nil
		p.putRun(r)
	}
	if err != nil {
		return nil, err
	}
	if err := p.copyOut(x.Mem, res); err != nil {
		return nil, err
	}
	return res, nil
}

// copyOut copies the results that may share storage with arguments or
// constants, each after checking that it fits in mem.
func (p *Program) copyOut(mem *kernel.Mem, res []kernel.Value) error {
	for i, r := range res {
		if p.entry.copyOut[i] {
			if n := valueBytes(r); !mem.Fits(n) {
				return mem.OutOfMemory(nil, fmt.Sprintf("copy of result %d of @%s", i, p.entry.fn.Name), describe(r), n)
			}
			res[i] = cloneValue(r)
		}
	}
	return nil
}

// runState is what one single-device execution needs besides its frame:
// its context, buffer pool and argument and result lists. Programs keep a
// few (freeList), so a warm execution allocates only the results it hands
// out, and the storage its intermediates died in is reused by the next
// execution. The storage kept in all programs' run states together is
// bounded by retainedMax (retained.go).
type runState struct {
	x       kernel.Ctx
	pool    kernel.Pool
	in, res []kernel.Value
	frame   []kernel.Value // the entry function's frame
	donated []*hlo.Literal // the arguments the caller donated
	stable  []*hlo.Literal // the arguments that cannot change (Ctx.StableArgs)
	// inDonated is the execution's list of results in donated storage.
	inDonated []*hlo.Literal
	// kept is the pool storage counted in the retained bytes while the run
	// state waits in its program's free list.
	kept int64
}

func (p *Program) getRun() *runState {
	r := p.runs.get()
	if r == nil {
		return &runState{}
	}
	p.unretain(r.kept)
	r.kept = 0
	return r
}

func (p *Program) putRun(r *runState) {
	refs.Drop(r.in)
	refs.Drop(r.res)
	refs.Drop(r.donated)
	refs.Drop(r.stable)
	refs.Drop(r.inDonated)
	r.in, r.res, r.donated, r.stable, r.inDonated = r.in[:0], r.res[:0], r.donated[:0], r.stable[:0], r.inDonated[:0]
	r.x = kernel.Ctx{}
	r.kept = p.retain(&r.pool)
	if !p.runs.put(r) {
		p.unretain(r.kept)
	}
}

// poolDonated puts the donated arguments of the execution of r whose
// storage no result took into r's pool: the caller gave them up, and the
// next execution's intermediates of their size take them back out (a
// training step whose updates went elsewhere allocates nothing for its
// gradients next time).
func (r *runState) poolDonated(results []kernel.Value) {
	for _, l := range r.donated {
		if l == nil || slices.Contains(r.inDonated, l) || slices.ContainsFunc(results, func(v kernel.Value) bool { return v == kernel.Value(l) }) {
			continue
		}
		r.pool.Put(l)
	}
}

// execute runs the entry function on one device, whose memory account is
// mem, with r's context and pool, until cancel (may be nil) is closed;
// args is r.in, filled and checked by the caller. The results (in r.res)
// are valid until putRun.
func (p *Program) execute(r *runState, mem *kernel.Mem, cancel <-chan struct{}) ([]kernel.Value, error) {
	// r.x is zero (a new run state, or putRun's reset): set field by field,
	// which costs a few stores where a composite literal copies the whole
	// context through a write-barrier-checked block move.
	p.execs.Add(1)
	x := &r.x
	x.NumReplicas, x.NumPartitions = 1, 1
	x.Program, x.Pool, x.Mem, x.Cancel = p, &r.pool, mem, cancel
	x.Donated, x.StableArgs, x.InDonated = r.donated, r.stable, r.inDonated[:0]
	if len(r.frame) != p.entry.nslots {
		r.frame = make([]kernel.Value, p.entry.nslots)
	}
	res, err := p.entry.runOn(&r.x, r.frame, r.in, r.res[:0])
	r.res, r.inDonated = res, r.x.InDonated
	if err != nil {
		return nil, err
	}
	if err := p.copyOut(mem, res); err != nil {
		return nil, err
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

// idTableOf is a block's table by value ID: a slice over the function's
// values for a function body (planned once), a map for the block of a
// region (planned once per region: a table of every value for each of
// many small regions would cost their product). Absent IDs read as zero.
type idTableOf[V any] struct {
	dense  []V
	sparse map[int]V
}

func newIDTable[V any](nvals int, dense bool) *idTableOf[V] {
	if dense {
		return &idTableOf[V]{dense: make([]V, nvals)}
	}
	return &idTableOf[V]{sparse: map[int]V{}}
}

func (t *idTableOf[V]) get(id int) V {
	if t.dense != nil && id < len(t.dense) {
		return t.dense[id]
	}
	return t.sparse[id]
}

func (t *idTableOf[V]) set(id int, v V) {
	if t.dense != nil && id < len(t.dense) {
		t.dense[id] = v
		return
	}
	if t.sparse == nil {
		t.sparse = map[int]V{}
	}
	t.sparse[id] = v
}
