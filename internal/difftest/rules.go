package difftest

import (
	"slices"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// The feature rules, shared by the generator (which only proposes what
// they allow) and the shrinker (which keeps a smaller program only if it
// still stays within its features, so that shrinking cannot move a
// failure into a family switched off).

// isDataConst reports that register r is a tensor built from Go data
// inside the function (its contents are fixed device data).
func isDataConst(st *state, r int) bool {
	ri := st.regs[st.regs[r].root]
	if ri.kind != regLocal || ri.instr < 0 {
		return false
	}
	op := st.p.Body[ri.instr].Op
	return op == "FromSlice" || op == "FullLike"
}

// assignTargetAllowed: Assign to arguments, captures and locals each have
// their feature.
func assignTargetAllowed(f *Features, st *state, r int) bool {
	switch st.regs[r].kind {
	case regParam:
		return f.AssignArg
	case regCapture:
		return f.AssignCapture
	}
	return f.AssignLocal && (f.AssignConst || !isDataConst(st, r))
}

// assignSourceAllowed: assigning a tensor that holds fixed data (an
// argument, a capture, a constant) needs AssignInput.
func assignSourceAllowed(f *Features, st *state, r int) bool {
	return f.AssignInput || st.regs[r].kind == regLocal && !isDataConst(st, r)
}

// instrAllowed reports whether instruction in, the k-th, with result
// shapes res (checked against st, not yet added) stays within f.
func instrAllowed(f *Features, st *state, in Instr, k int, res []lazy.Shape) bool {
	o := opOf(in.Op)
	if !o.on(f) {
		return false
	}
	switch o.kind {
	case kindAssign:
		if !assignTargetAllowed(f, st, in.In[0]) || in.Op == "Assign" && !assignSourceAllowed(f, st, in.In[1]) {
			return false
		}
		if in.Op == "Assign" && !f.SharedMutations && st.regs[in.In[0]].kind != regLocal {
			target, v := st.regs[in.In[0]].root, st.value(in.In[1])
			for root, held := range st.valOf {
				if root != target && held == v && st.regs[root].kind != regLocal {
					return false
				}
			}
		}
	case kindHostDyn:
		for _, r := range in.In {
			if st.regs[r].hostFn && !f.HostChain || st.regs[r].multi && !f.HostChainMulti {
				return false
			}
		}
	case kindHostFunc:
		if hostFns[in.I[0]].fails && !f.HostError {
			return false
		}
	case kindReplace:
		if !replaceAllowed(f, st, in, k, res) {
			return false
		}
	case kindOptim:
		if !optimAllowed(f, st, in) {
			return false
		}
	}
	if !f.RuntimeChecks && in.Op == "Rem" && st.anyLive(k) && isInt(st.firstLiveShape(in.In[0], k).DType) {
		return false
	}
	if !f.ScalarToOne && scalarToOne(st, in, k, res) {
		return false
	}
	if !f.RepeatedOperand {
		for i, a := range in.In {
			for _, b := range in.In[:i] {
				if st.value(a) == st.value(b) {
					return false
				}
			}
		}
	}
	return true
}

// scalarToOne reports an op with a 0-d operand whose result has rank >= 1
// and one element, or a size known only at run time, in some live variant.
func scalarToOne(st *state, in Instr, k int, res []lazy.Shape) bool {
	for v := range st.dead {
		if !st.live(v, k) || res[v].Rank() == 0 || numel(res[v].Dims) != 1 && !anyDyn(res[v].Dims) {
			continue
		}
		for _, r := range in.In {
			if st.regs[r].shapes[v].Rank() == 0 {
				return true
			}
		}
	}
	return false
}

// resultAllowed reports whether register r may be returned under f.
func resultAllowed(f *Features, st *state, r int) bool {
	ri := st.regs[r]
	switch {
	case ri.void:
		return false
	case ri.kind == regLocal:
		return (f.ReturnConst || !isDataConst(st, r)) && (f.ReturnAssignedLocal || !st.assigned[ri.root])
	case st.assigned[ri.root]:
		return f.ReturnMutated
	}
	return f.PassThrough
}

// liveValues follows values rather than registers (an Assign gives a
// register a new value): it returns the instructions whose result value
// reaches a result, the final value of an argument or capture, or a read.
func liveValues(p *Program, st *state) map[int]bool {
	cur := map[int]int{} // root -> value (instruction index, or -1-root: the initial value)
	valueOf := func(r int) int {
		root := st.regs[r].root
		if v, ok := cur[root]; ok {
			return v
		}
		if k := st.regs[root].instr; k >= 0 {
			return k
		}
		return -1 - root
	}
	deps := map[int][]int{}
	var sinks []int
	for k, in := range p.Body {
		reads := make([]int, len(in.In))
		for i, r := range in.In {
			reads[i] = valueOf(r)
		}
		o := opOf(in.Op)
		switch {
		case in.Op == "AssignUpdate":
			deps[k] = reads
			cur[st.regs[in.In[0]].root] = k
		case in.Op == "Swap":
			cur[st.regs[in.In[0]].root], cur[st.regs[in.In[1]].root] = reads[1], reads[0]
		case in.Op == "SetConst":
			cur[st.regs[in.In[0]].root] = k
		case o.kind == kindAssign || o.kind == kindReplace && o.void:
			cur[st.regs[in.In[0]].root] = reads[1]
		case o.kind == kindOptim:
			// Each parameter takes a new value from its gradients and itself.
			for i, c := range st.p.Optim.Params {
				if in.I[i] < 0 {
					continue // never a gradient: the parameter stays
				}
				root, id := st.p.CapReg(c), optimValue(k, i)
				deps[id] = append(slices.Clone(reads), valueOf(root))
				cur[root] = id
			}
		case o.kind == kindRead:
			deps[k] = reads
			sinks = append(sinks, k)
		case o.shapeOnly:
		default:
			deps[k] = reads
		}
	}
	for _, r := range p.Results {
		sinks = append(sinks, valueOf(r))
	}
	for root, v := range cur {
		if st.regs[root].kind != regLocal {
			sinks = append(sinks, v)
		}
	}
	live := map[int]bool{}
	var mark func(v int)
	mark = func(v int) {
		if live[v] {
			return
		}
		live[v] = true
		for _, d := range deps[v] {
			mark(d)
		}
	}
	for _, v := range sinks {
		mark(v)
	}
	return live
}

// deadHostErrors lists the failing host functions whose results nothing
// needs.
func deadHostErrors(p *Program, st *state) []int {
	live := liveValues(p, st)
	var out []int
	for k, in := range p.Body {
		if in.Op == "HostFunc" && hostFns[in.I[0]].fails && !live[k] {
			out = append(out, k)
		}
	}
	return out
}

// keepHostErrors makes every failing host function whose result nothing
// needs a non-failing one of the same shapes, unless HostErrorUnused is on.
func keepHostErrors(p *Program, st *state) {
	if p.Features.HostErrorUnused {
		return
	}
	for _, k := range deadHostErrors(p, st) {
		p.Body[k].I[0] = hostFnIndex("affine")
	}
}

func hostFnIndex(name string) int64 {
	for i, h := range hostFns {
		if h.name == name {
			return int64(i)
		}
	}
	panic("difftest: no host function " + name)
}

// objKey identifies a tensor object across the calls, as far as plain Go
// semantics tell: a capture, a fresh argument, or a new result.
type objKey struct {
	kind byte // 'c' capture, 'a' fresh argument, 'r' new result
	a, b int
}

// objOf is the object bound to parameter i of call k.
func objOf(st *state, k, i int) objKey {
	switch b := st.p.Calls[k].Args[i]; b.Kind {
	case BindSame:
		return objOf(st, k, b.Index)
	case BindKeep:
		return objOf(st, k-1, i)
	case BindCapture:
		return objKey{'c', b.Index, 0}
	case BindPrevOut:
		return resultObj(st, k-1, b.Index)
	}
	return objKey{'a', k, i}
}

// resultObj is the object result o of call k is.
func resultObj(st *state, k, o int) objKey {
	ri := st.regs[st.p.Results[o]]
	switch ri.kind {
	case regParam:
		return objOf(st, k, ri.root)
	case regCapture:
		return objKey{'c', ri.root - st.p.NumParams(), 0}
	}
	return objKey{'r', k, ri.root}
}

// bindingAllowed reports whether binding b for parameter i of call k (the
// earlier ones bound) stays within f.
func bindingAllowed(f *Features, st *state, k, i int, b Binding) bool {
	switch b.Kind {
	case BindPending:
		if !f.PendingArgs {
			return false
		}
	case BindKeep:
		if !f.KeepArgs {
			return false
		}
	case BindPrevOut:
		if !f.FeedOutputs {
			return false
		}
	}
	c := &st.p.Calls[k]
	saved := c.Args
	c.Args = append(append([]Binding{}, c.Args[:i]...), b)
	defer func() { c.Args = saved }()
	o := objOf(st, k, i)
	if o.kind == 'c' && !f.CaptureAsArg {
		return false
	}
	if !f.AliasArgs {
		for j := 0; j < i; j++ {
			if objOf(st, k, j) == o {
				return false
			}
		}
	}
	return true
}

// conforms reports whether a whole program stays within its features (the
// shrinker's test for a candidate).
func conforms(p *Program) bool {
	f := &p.Features
	st, err := analyze(p)
	if err != nil {
		return false
	}
	if p.Optim != nil && !f.OptimSteps || p.Conc != nil && (!f.Concurrent || !concSafe(p)) {
		return false
	}
	if len(p.Variants) > 1 && !f.ShapeChange || len(p.Statics) > 0 && !f.Statics ||
		p.SliceArgs && !f.SliceArgs || p.SliceRes && !f.SliceArgs || p.ErrResult && !f.ErrResult || !sigAllowed(p) {
		return false
	}
	// Replay the body through a fresh analysis, checking each step.
	rs := newState(p)
	for k, in := range p.Body {
		res, errs, fatal := rs.check(in, k)
		if fatal != nil || !instrAllowed(f, rs, in, k, res) {
			return false
		}
		for v, e := range errs {
			if e != nil && rs.live(v, k) && (!f.Errors || opOf(in.Op).kind == kindReplace) {
				return false
			}
		}
		rs.add(in, k, res, errs)
	}
	seen := map[int]bool{}
	for _, r := range p.Results {
		if !resultAllowed(f, st, r) || seen[r] && !f.DupOutputs {
			return false
		}
		seen[r] = true
	}
	if !f.SharedResults && sharedResults(st, p.Results) {
		return false
	}
	if !f.SharedMutations && resultsShareMutation(st, p.Results) {
		return false
	}
	if !f.HostErrorUnused && len(deadHostErrors(p, st)) > 0 {
		return false
	}
	for k, c := range p.Calls {
		if len(c.UpdateCaps) > 0 && !f.UpdateCaps || len(c.MutateResults) > 0 && !f.MutateResults || len(c.RollBack) > 0 && !f.StateRestore {
			return false
		}
		for _, u := range c.UpdateCaps {
			if u.Pending && !f.PendingArgs {
				return false
			}
		}
		for i, b := range c.Args {
			if !bindingAllowed(f, st, k, i, b) {
				return false
			}
		}
	}
	return true
}

// sigAllowed reports whether p's holders, result layout and result writes
// stay within its features: a holder with a struct needs StructArgs, an
// interface InterfaceArgs, an unexported field UnexportedFields, one
// struct passed for two holders SharedStructs, a result layout and writes into it NonTensorResults, a
// holder among the results ArgResults.
func sigAllowed(p *Program) bool {
	f := &p.Features
	for _, h := range p.Holders {
		if h.Struct != nil && !f.StructArgs || h.Iface != IfaceNone && !f.InterfaceArgs {
			return false
		}
		if !f.UnexportedFields && h.Struct.hasHidden() {
			return false
		}
	}
	if len(p.Outs) > 0 && !f.NonTensorResults {
		return false
	}
	argRes := false
	walkValues(p.Outs, func(v *Value) { argRes = argRes || v.Kind == ValHolder })
	if argRes && !f.ArgResults {
		return false
	}
	for _, c := range p.Calls {
		if len(c.MutateOuts) > 0 && !f.NonTensorResults || !f.SharedStructs && slices.ContainsFunc(c.Twins, func(j int) bool { return j >= 0 }) {
			return false
		}
	}
	return true
}

// sharedResults reports two results that are different objects holding
// one value.
func sharedResults(st *state, results []int) bool {
	for i, a := range results {
		for _, b := range results[:i] {
			if st.regs[a].root != st.regs[b].root && st.value(a) == st.value(b) {
				return true
			}
		}
	}
	return false
}

// Uses reports whether program p needs feature name: it stays within its
// features but not with name switched off. JitEager, a mode rather than
// something a program contains, is used whenever it is on.
func (p *Program) Uses(name string) bool {
	if !p.Features.Get(name) {
		return false
	}
	if strings.EqualFold(name, "JitEager") {
		return true
	}
	if strings.EqualFold(name, "Sharding") {
		return p.Shardings != nil
	}
	q := *p
	if err := q.Features.Set(name, false); err != nil {
		return false
	}
	return conforms(p) && !conforms(&q)
}

// resultsShareMutation reports a result that is another object than an
// argument or capture the body assigned, but holds the value assigned to
// it (after the call both hold one buffer).
func resultsShareMutation(st *state, results []int) bool {
	for _, r := range results {
		v := st.value(r)
		for root, held := range st.valOf {
			if held == v && root != st.regs[r].root && st.regs[root].kind != regLocal {
				return true
			}
		}
	}
	return false
}
