package difftest

import (
	"fmt"
	"math"

	"github.com/xlajit/xlajit/lazy"
)

type regKind int

const (
	regParam regKind = iota
	regCapture
	regLocal
)

// regInfo is what the analysis knows of one register.
type regInfo struct {
	shapes []lazy.Shape // per variant (meaningful while the variant is live)
	void   bool         // defined by a statement (Assign, ManualSeed)
	root   int          // the register whose tensor this one may be (itself if none)
	kind   regKind      // of the root
	instr  int          // defining instruction (-1: parameter or capture)
	hostFn bool         // depends on a lazy.HostFunc result
	multi  bool         // depends on a result of a HostFunc with several results
}

// state is the analysis of a program prefix: register shapes in every
// input variant, where each variant fails, what the body does.
type state struct {
	p    *Program
	regs []regInfo
	// dead[v] is the instruction at which variant v fails with a shape
	// error (math.MaxInt: none).
	dead     []int
	assigned map[int]bool // roots written by Assign
	// valOf maps a root written by Assign to the value it holds now (the
	// root of the assigned register, or the value that one holds).
	valOf map[int]int
	// Body properties.
	reads, hostDyn, hostFunc, random, hostErr bool
	// cont is what the roots written so far hold (contentOf); breaks are
	// the replacing instructions predicted to break a trace; broke is set
	// once an instruction so far breaks it (a read or a replacing op).
	cont   map[int]content
	breaks map[int]bool
	broke  bool
}

func newState(p *Program) *state {
	st := &state{p: p, assigned: map[int]bool{}, valOf: map[int]int{}, cont: map[int]content{}, breaks: map[int]bool{}}
	nv := len(p.Variants)
	st.dead = make([]int, nv)
	for v := range st.dead {
		st.dead[v] = math.MaxInt
	}
	for i := 0; i < p.NumParams(); i++ {
		s := make([]lazy.Shape, nv)
		for v := range s {
			s[v] = p.Variants[v][i]
		}
		st.regs = append(st.regs, regInfo{shapes: s, root: i, kind: regParam, instr: -1})
	}
	for _, cs := range p.Captures {
		s := make([]lazy.Shape, nv)
		for v := range s {
			s[v] = cs
		}
		st.regs = append(st.regs, regInfo{shapes: s, root: len(st.regs), kind: regCapture, instr: -1})
	}
	return st
}

func (st *state) live(v, k int) bool { return st.dead[v] > k }

// anyLive reports whether some variant is still live before instruction k.
func (st *state) anyLive(k int) bool {
	for v := range st.dead {
		if st.live(v, k) {
			return true
		}
	}
	return false
}

// check infers instruction in (to be instruction k) in every live
// variant: its result shapes and per-variant errors. A fatal error means the
// instruction is malformed (a bad register), not a shape error.
func (st *state) check(in Instr, k int) (res []lazy.Shape, errs []error, fatal error) {
	o := opByNm[in.Op]
	if o == nil {
		return nil, nil, fmt.Errorf("unknown op %q", in.Op)
	}
	for _, r := range in.In {
		if r < 0 || r >= len(st.regs) || st.regs[r].void {
			return nil, nil, fmt.Errorf("%s reads bad register %d", in.Op, r)
		}
	}
	if in.Op == "HostFunc" && (len(in.I) < 2 || in.I[0] < 0 || int(in.I[0]) >= len(hostFns) ||
		in.I[1] < 0 || int(in.I[1]) >= 2) {
		return nil, nil, fmt.Errorf("bad HostFunc parameters %v", in.I)
	}
	if o.kind == kindOptim && !optimWellFormed(st.p, in) {
		return nil, nil, fmt.Errorf("bad optimizer step %v %v", in.In, in.I)
	}
	res = make([]lazy.Shape, len(st.dead))
	errs = make([]error, len(st.dead))
	for v := range st.dead {
		if !st.live(v, k) {
			continue
		}
		s := make([]lazy.Shape, len(in.In))
		for i, r := range in.In {
			s[i] = st.regs[r].shapes[v]
		}
		res[v], errs[v] = safeInfer(o, in, s, k)
	}
	return res, errs, nil
}

// safeInfer turns an index panic of a malformed instruction (a shrunk
// program whose operands changed rank) into an error.
func safeInfer(o *opSpec, in Instr, s []lazy.Shape, k int) (res lazy.Shape, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", in.Op, r)
		}
	}()
	return o.infer(in, s, k)
}

// add records instruction in (instruction k) with its checked shapes.
func (st *state) add(in Instr, k int, res []lazy.Shape, errs []error) {
	o := opOf(in.Op)
	ri := regInfo{shapes: res, void: o.void, instr: k}
	ri.root = len(st.regs)
	ri.kind = regLocal
	for v, e := range errs {
		if e != nil && st.live(v, k) {
			st.dead[v] = k
		}
	}
	if o.alias != nil {
		for v := range st.dead {
			if !st.live(v, k) {
				continue
			}
			s := make([]lazy.Shape, len(in.In))
			for i, r := range in.In {
				s[i] = st.regs[r].shapes[v]
			}
			if o.alias(in, s) {
				src := st.regs[in.In[0]]
				ri.root, ri.kind = src.root, src.kind
				break
			}
		}
	}
	for _, r := range in.In {
		ri.hostFn = ri.hostFn || st.regs[r].hostFn
		ri.multi = ri.multi || st.regs[r].multi
	}
	switch o.kind {
	case kindAssign:
		st.assigned[st.regs[in.In[0]].root] = true
		if in.Op == "AssignUpdate" {
			st.valOf[st.regs[in.In[0]].root] = len(st.regs) // a new value
			st.cont[st.regs[in.In[0]].root] = contOwn
		} else {
			st.valOf[st.regs[in.In[0]].root] = st.value(in.In[1])
			st.cont[st.regs[in.In[0]].root] = afterAssign(st.contentOf(in.In[1]))
		}
	case kindReplace:
		st.addReplace(in, k)
	case kindOptim:
		st.addOptim(in, k)
	case kindHostDyn:
		st.hostDyn = true
		st.addHostDyn(in, k)
	case kindHostFunc:
		st.hostFunc = true
		ri.hostFn = true
		ri.multi = ri.multi || hostFns[in.I[0]].nOut > 1
		if hostFns[in.I[0]].fails {
			st.hostErr = true
		}
	case kindRead:
		st.reads = true
		st.broke = true
	case kindRandom:
		st.random = true
	}
	st.regs = append(st.regs, ri)
}

// analyze checks a whole program: every instruction reads defined
// registers, results are defined, calls bind arguments of the right
// shapes. Shape errors in some variants are allowed (they are expected
// failures); malformed programs are not.
func analyze(p *Program) (*state, error) {
	if len(p.Variants) == 0 {
		return nil, fmt.Errorf("no variants")
	}
	for _, v := range p.Variants {
		if len(v) != p.NumParams() {
			return nil, fmt.Errorf("variants of different arity")
		}
	}
	st := newState(p)
	if err := st.checkOptim(); err != nil {
		return nil, err
	}
	for k, in := range p.Body {
		res, errs, fatal := st.check(in, k)
		if fatal != nil {
			return nil, fmt.Errorf("instruction %d: %w", k, fatal)
		}
		st.add(in, k, res, errs)
	}
	for _, r := range p.Results {
		if r < 0 || r >= len(st.regs) || st.regs[r].void {
			return nil, fmt.Errorf("result reads bad register %d", r)
		}
	}
	if len(p.Calls) == 0 {
		return nil, fmt.Errorf("no calls")
	}
	for k, c := range p.Calls {
		if err := st.checkCall(k, c); err != nil {
			return nil, fmt.Errorf("call %d: %w", k, err)
		}
	}
	if err := st.checkSig(); err != nil {
		return nil, err
	}
	return st, nil
}

// resultShape is result o's shape in variant v (ok false if unknown).
func (st *state) resultShape(o, v int) (lazy.Shape, bool) {
	if o >= len(st.p.Results) || st.dead[v] != math.MaxInt {
		return lazy.Shape{}, false
	}
	s := st.regs[st.p.Results[o]].shapes[v]
	return s, !anyDyn(s.Dims)
}

// bindShape is the shape binding b gives parameter i in call k (ok false
// when it cannot be known or is malformed).
func (st *state) bindShape(k, i int) (lazy.Shape, bool) {
	p := st.p
	c := p.Calls[k]
	b := c.Args[i]
	switch b.Kind {
	case BindFresh, BindPending:
		s := p.Variants[c.Variant][i]
		return s, int64(len(b.Data)) == numel(s.Dims)
	case BindSame:
		if b.Index < 0 || b.Index >= i {
			return lazy.Shape{}, false
		}
		return st.bindShape(k, b.Index)
	case BindKeep:
		if k == 0 {
			return lazy.Shape{}, false
		}
		return st.bindShape(k-1, i)
	case BindCapture:
		if b.Index < 0 || b.Index >= len(p.Captures) {
			return lazy.Shape{}, false
		}
		return p.Captures[b.Index], true
	case BindPrevOut:
		if k == 0 {
			return lazy.Shape{}, false
		}
		return st.resultShape(b.Index, p.Calls[k-1].Variant)
	}
	return lazy.Shape{}, false
}

func (st *state) checkCall(k int, c Call) error {
	p := st.p
	if c.Variant < 0 || c.Variant >= len(p.Variants) || len(c.Args) != p.NumParams() || len(c.Statics) != len(p.Statics) {
		return fmt.Errorf("malformed")
	}
	for i := range c.Args {
		s, ok := st.bindShape(k, i)
		if !ok || !s.Equal(p.Variants[c.Variant][i]) {
			return fmt.Errorf("argument %d does not fit %s", i, p.Variants[c.Variant][i])
		}
	}
	for _, u := range c.MutateResults {
		rs, ok := st.resultShape(u.Result, c.Variant)
		if !ok || int64(len(u.Data)) != numel(rs.Dims) {
			return fmt.Errorf("malformed result update")
		}
	}
	for _, u := range c.UpdateCaps {
		if u.Cap < 0 || u.Cap >= len(p.Captures) || int64(len(u.Data)) != numel(p.Captures[u.Cap].Dims) {
			return fmt.Errorf("malformed capture update")
		}
	}
	for _, ci := range c.RollBack {
		if ci < 0 || ci >= len(p.Captures) {
			return fmt.Errorf("malformed roll-back")
		}
	}
	if c.SetLR != 0 && p.Optim == nil {
		return fmt.Errorf("a learning rate without an optimizer")
	}
	return nil
}

// checkOptim checks the optimizer's parameters: distinct float captures.
func (st *state) checkOptim() error {
	o := st.p.Optim
	if o == nil {
		return nil
	}
	seen := map[int]bool{}
	for _, c := range o.Params {
		if c < 0 || c >= len(st.p.Captures) || seen[c] || !isFloat(st.p.Captures[c].DType) {
			return fmt.Errorf("optimizer parameters %v", o.Params)
		}
		seen[c] = true
	}
	if len(o.Params) == 0 {
		return fmt.Errorf("an optimizer without parameters")
	}
	return nil
}

// value names the value register r holds now: two registers with the same
// value hold the same IR value or device data (after an Assign).
func (st *state) value(r int) int {
	root := st.regs[r].root
	if v, ok := st.valOf[root]; ok {
		return v
	}
	return root
}

// firstLiveShape is register r's shape in the first variant live before
// instruction k.
func (st *state) firstLiveShape(r, k int) lazy.Shape {
	for v := range st.dead {
		if st.live(v, k) {
			return st.regs[r].shapes[v]
		}
	}
	return st.regs[r].shapes[0]
}
