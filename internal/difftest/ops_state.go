package difftest

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// The StateRestore family: State, Restore, Release, TakeData and SetData
// inside the function. Inside a trace each of them replaces a tensor's
// contents without an op, so it is a graph break on a tensor the function
// did not make, and whenever what it puts into a tensor is not IR the
// function recorded or data the trace computed from it (a host op's
// operands): other device data (an input's contents, a constant's) would
// be frozen into its graph. The analysis predicts the breaks from
// what each tensor holds (content) and the interpreter counts a predicted
// break as a read, so the checker expects calls of that signature to run
// the function as it is.

// content is what a tensor holds, as a trace of the function sees it.
type content int

const (
	contOwn      content = iota // IR the function recorded
	contInput                   // an argument's or captured tensor's contents
	contData                    // device data the function made from Go data (FromSlice)
	contComputed                // device data the trace computed from its IR (a host op's operand, after the op)
	contUnknown                 // anything else (a host op's result; an input's IR leaf, which may predate the trace)
)

// contentOf is what register r's tensor holds before instruction k.
func (st *state) contentOf(r int) content {
	root := st.regs[r].root
	if c, ok := st.cont[root]; ok {
		return c
	}
	ri := st.regs[root]
	if ri.kind != regLocal {
		return contInput
	}
	switch o := opOf(st.p.Body[ri.instr].Op); {
	case o.name == "FromSlice" || o.name == "HostRead":
		return contData
	case o.kind == kindHostDyn || o.kind == kindHostFunc || o.kind == kindHostError:
		return contUnknown
	}
	return contOwn
}

// afterAssign is what a tensor holds after Assign of a tensor holding c:
// its IR value, a device-data leaf for device data (made inside the trace
// for the function's own constants and computed values, maybe before it
// for an input's).
func afterAssign(c content) content {
	switch c {
	case contOwn, contData, contComputed:
		return contOwn
	}
	return contUnknown
}

// addHostDyn records that host op in (instruction k) computed its operands
// holding the trace's IR (the cut before the op): they hold device data of
// the trace's own from then on. Unique flattens its operand first, which
// is the operand itself only when it has one dimension.
func (st *state) addHostDyn(in Instr, k int) {
	for _, r := range in.In {
		root := st.regs[r].root
		if st.contentOf(root) != contOwn {
			continue // device data already (a pending input's IR is computed before the trace)
		}
		synced, pending := false, false
		for v := range st.dead {
			if !st.live(v, k) {
				continue
			}
			if in.Op == "Unique" && st.regs[r].shapes[v].Rank() != 1 {
				pending = true
			} else {
				synced = true
			}
		}
		switch {
		case synced && pending:
			st.cont[root] = contUnknown
		case synced:
			st.cont[root] = contComputed
		}
	}
}

// restorable reports whether Restore of what a tensor holding c holds
// compiles, in a tensor the function made: IR the trace recorded or data
// it computed from it.
func restorable(c content) bool { return c == contOwn || c == contComputed }

// replaceable reports whether register r may be an operand of a replacing
// op: a tensor of its own (not a result that may be its operand), holding
// something whose break the analysis can tell (anything after a break).
func (st *state) replaceable(r int) bool {
	return st.regs[r].root == r && (st.broke || st.contentOf(r) != contUnknown)
}

// isInput reports whether r's tensor is an argument or captured tensor.
func (st *state) isInput(r int) bool { return st.regs[st.regs[r].root].kind != regLocal }

// replaceBreaks predicts whether replacing op in breaks a trace.
func (st *state) replaceBreaks(in Instr) bool {
	switch in.Op {
	case "RollBack": // Restore of the target's own snapshot
		return st.isInput(in.In[0]) || !restorable(st.contentOf(in.In[0]))
	case "RestoreFrom":
		return st.isInput(in.In[0]) || !restorable(st.contentOf(in.In[1]))
	case "Swap":
		return st.isInput(in.In[0]) || st.isInput(in.In[1]) ||
			!restorable(st.contentOf(in.In[0])) || !restorable(st.contentOf(in.In[1]))
	case "TakeData":
		// Only data the trace computed compiles: pending IR is computed
		// first (a read), other data would be frozen into the graph.
		return st.isInput(in.In[0]) || st.contentOf(in.In[1]) != contComputed
	}
	return true // SetData and SetConst put new device data into the tensor
}

// addReplace records replacing instruction in (instruction k) in st.
func (st *state) addReplace(in Instr, k int) {
	br := st.replaceBreaks(in)
	st.breaks[k] = br
	t := st.regs[in.In[0]].root
	st.assigned[t] = true
	switch in.Op {
	case "RollBack":
		// The target holds what it held: its value and content stay.
	case "Swap":
		b := st.regs[in.In[1]].root
		va, vb := st.value(t), st.value(b)
		ca, cb := st.contentOf(t), st.contentOf(b)
		st.assigned[b] = true
		st.valOf[t], st.valOf[b] = vb, va
		st.cont[t], st.cont[b] = cb, ca
	case "RestoreFrom":
		st.valOf[t] = st.value(in.In[1])
		st.cont[t] = st.contentOf(in.In[1])
	case "SetConst":
		st.valOf[t] = len(st.regs) // a new value
		st.cont[t] = contUnknown
	default: // TakeData, SetData: the source is computed first (a cut)
		src := st.regs[in.In[1]].root
		st.valOf[t] = st.value(src)
		st.cont[t] = contUnknown
		switch c := st.contentOf(src); {
		case c == contComputed && in.Op == "TakeData":
			st.cont[t] = contComputed // the same data
		case c != contData && c != contComputed:
			st.cont[src] = contUnknown
		}
	}
	st.broke = st.broke || br
}

// replaceAllowed reports whether replacing instruction in stays within f:
// its targets and sources as Assign's, and no variant fails, nor failed
// before (Restore does not check shapes, and a variant the analysis
// believes failed may not have: an op leaving a shape as torch does).
func replaceAllowed(f *Features, st *state, in Instr, k int, res []lazy.Shape) bool {
	for v := range st.dead {
		if !st.live(v, k) {
			return false
		}
	}
	for _, r := range in.In {
		if !st.replaceable(r) {
			return false
		}
	}
	targets := in.In[:1]
	if in.Op == "Swap" {
		targets = in.In
	}
	for _, t := range targets {
		if !assignTargetAllowed(f, st, t) {
			return false
		}
	}
	for _, s := range in.In[1:] {
		if !assignSourceAllowed(f, st, s) || in.Op == "Swap" && !assignSourceAllowed(f, st, in.In[0]) {
			return false
		}
	}
	if in.Op == "RollBack" || in.Op == "SetConst" || f.SharedMutations {
		return true
	}
	// Without SharedMutations no argument or capture is given what another
	// one holds (as for Assign; a swap's two tensors give theirs up).
	for i, t := range targets {
		if !st.isInput(t) {
			continue
		}
		v := st.value(in.In[1-i])
		for root, held := range st.valOf {
			if held == v && st.regs[root].kind != regLocal && !hasRoot(st, targets, root) {
				return false
			}
		}
	}
	return true
}

// hasRoot reports whether root is the root of one of rs.
func hasRoot(st *state, rs []int, root int) bool {
	for _, r := range rs {
		if st.regs[r].root == root {
			return true
		}
	}
	return false
}

// Materialized returns x after computing it if it is pending (a cut; it
// panics with the cut's error): TakeData and SetData need device data.
func Materialized(x *lazy.Tensor) *lazy.Tensor {
	if x.IsPending() {
		if err := lazy.Sync(x); err != nil {
			panic(err)
		}
	}
	return x
}

// Copied returns a new tensor holding x's values, computed: its buffer is
// its own. SetData takes the buffer it is given over (no other tensor may
// hold it, lazy's contract: a buffer two tensors hold without sharing
// their data is deleted under one when the other's is donated), so the
// programs hand it a copy.
func Copied(x *lazy.Tensor) *lazy.Tensor { return Materialized(negNeg(x)) }

// pickSecond completes in, whose target is In[0], with a second operand of
// the target's shape (false: none fits).
func pickSecond(g *gen, in Instr) (Instr, bool) {
	t := in.In[0]
	v, ok := g.pickWhere(func(r int) bool { return r != t && g.st.replaceable(r) && g.sameEverywhere(r, t) })
	in.In = append(in.In, v)
	return in, ok && g.validEverywhere(in)
}

// snapName names the snapshot a replacing op takes, after its register d.
func snapName(d, suffix string) string { return "s" + strings.TrimPrefix(d, "t") + suffix }

func init() {
	on := func(f *Features) bool { return f.StateRestore }
	sameShapes := func(op string) func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
		return func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !s[0].Equal(s[1]) {
				return lazy.Shape{}, fmt.Errorf("%s of %s and %s", op, s[0], s[1])
			}
			return lazy.Shape{}, nil
		}
	}
	// pickPair picks a target and a second operand of its shape.
	pickPair := func(g *gen, op string) (Instr, bool) {
		t, found := g.pickWhere(g.st.replaceable)
		if !found {
			return Instr{}, false
		}
		return pickSecond(g, Instr{Op: op, In: []int{t}})
	}

	// RollBack snapshots a tensor, writes into it, reads it and restores
	// the snapshot: s := t.State(); t.Assign(v); d := U(t); t.Restore(s).
	define(&opSpec{
		name: "RollBack", on: on, kind: kindReplace, weight: 3,
		gen: func(g *gen) (Instr, bool) {
			t, ok := g.pickWhere(func(r int) bool { return g.st.replaceable(r) && isNumeric(g.shape0(r).DType) })
			if !ok {
				return Instr{}, false
			}
			a, _ := g.branchPair(g.shape0(t).DType)
			return pickSecond(g, Instr{Op: "RollBack", In: []int{t}, I: []int64{a}})
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if !s[0].Equal(s[1]) || !branchOK(in.I[0], s[0].DType) {
				return lazy.Shape{}, fmt.Errorf("RollBack of %s with %s", s[0], s[1])
			}
			return s[0], nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			s := x[0].State()
			x[0].Assign(x[1])
			d := unaryByName(branchOps[in.I[0]]).apply(x[0])
			x[0].Restore(s)
			return d
		},
		text: func(in Instr, a []string, d string) string {
			s := snapName(d, "")
			return fmt.Sprintf("var %s *lazy.Tensor\n\t%s := %s.State()\n\t%s.Assign(%s)\n\t%s = %s.%s()\n\t%s.Restore(%s)",
				d, s, a[0], a[0], a[1], d, a[0], branchOps[in.I[0]], a[0], s)
		},
	})
	define(&opSpec{
		name: "RestoreFrom", on: on, kind: kindReplace, void: true, weight: 2,
		gen:   func(g *gen) (Instr, bool) { return pickPair(g, "RestoreFrom") },
		infer: sameShapes("RestoreFrom"),
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { x[0].Restore(x[1].State()); return nil },
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("%s.Restore(%s.State())", a[0], a[1])
		},
	})
	define(&opSpec{
		name: "Swap", on: on, kind: kindReplace, void: true, weight: 2,
		gen:   func(g *gen) (Instr, bool) { return pickPair(g, "Swap") },
		infer: sameShapes("Swap"),
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			sa, sb := x[0].Release(), x[1].Release()
			x[0].Restore(sb)
			x[1].Restore(sa)
			return nil
		},
		text: func(in Instr, a []string, d string) string {
			sa, sb := snapName(d, "a"), snapName(d, "b")
			return fmt.Sprintf("%s, %s := %s.Release(), %s.Release()\n\t%s.Restore(%s)\n\t%s.Restore(%s)",
				sa, sb, a[0], a[1], a[0], sb, a[1], sa)
		},
	})
	define(&opSpec{
		name: "TakeData", on: on, kind: kindReplace, void: true, weight: 1,
		gen:   func(g *gen) (Instr, bool) { return pickPair(g, "TakeData") },
		infer: sameShapes("TakeData"),
		run:   func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor { x[0].TakeData(Materialized(x[1])); return nil },
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("%s.TakeData(difftest.Materialized(%s))", a[0], a[1])
		},
	})
	// SetConst gives a tensor a buffer the function makes from Go data
	// (lazy.FromSlice(...).Buffer(), a buffer no other tensor keeps).
	define(&opSpec{
		name: "SetConst", on: on, kind: kindReplace, void: true, weight: 1,
		gen: func(g *gen) (Instr, bool) {
			t, ok := g.pickWhere(func(r int) bool {
				return g.st.replaceable(r) && g.invariant(r) && !anyDyn(g.shape0(r).Dims)
			})
			if !ok {
				return Instr{}, false
			}
			s := g.shape0(t)
			return Instr{Op: "SetConst", In: []int{t}, I: append([]int64{int64(s.DType)}, s.Dims...), F: g.data(s.DType, numel(s.Dims))}, true
		},
		infer: func(in Instr, s []lazy.Shape, k int) (lazy.Shape, error) {
			if c := shp(lazy.DType(in.I[0]), in.I[1:]...); !s[0].Equal(c) {
				return lazy.Shape{}, fmt.Errorf("SetConst of %s to %s", c, s[0])
			}
			return lazy.Shape{}, nil
		},
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			x[0].SetData(fromData(shp(lazy.DType(in.I[0]), in.I[1:]...), in.F).Buffer())
			return nil
		},
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("%s.SetData(%s.Buffer())", a[0], fromDataText(shp(lazy.DType(in.I[0]), in.I[1:]...), in.F))
		},
	})
	define(&opSpec{
		name: "SetData", on: on, kind: kindReplace, void: true, weight: 1,
		gen:   func(g *gen) (Instr, bool) { return pickPair(g, "SetData") },
		infer: sameShapes("SetData"),
		run: func(in Instr, x []*lazy.Tensor, e *env) *lazy.Tensor {
			x[0].SetData(Copied(x[1]).Buffer())
			return nil
		},
		text: func(in Instr, a []string, d string) string {
			return fmt.Sprintf("%s.SetData(difftest.Copied(%s).Buffer())", a[0], a[1])
		},
	})
}
