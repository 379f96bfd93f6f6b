package host

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// compoundSet is the compound steps of a block: the compound claiming
// each op, and each compound's anchor.
type compoundSet struct {
	of     map[*hlo.Op]*kernel.Compound
	anchor map[*kernel.Compound]*hlo.Op
}

// compounds asks the groupers of a block's ops (program order) for the
// compound steps they make (see kernel.Compound) and checks each.
// Compiling without fusion makes none.
func (c *planner) compounds(ops []*hlo.Op, uses *useInfo) (compoundSet, error) {
	var cs compoundSet
	if c.prog.noFuse {
		return cs, nil
	}
	var claimed map[*hlo.Op]*kernel.Compound
	var pos map[*hlo.Op]int
	for _, op := range ops {
		e := c.lookup(op.Name)
		if e == nil || e.Group == nil || claimed[op] != nil {
			continue
		}
		if pos == nil {
			pos = make(map[*hlo.Op]int, len(ops))
			for i, o := range ops {
				pos[o] = i
			}
		}
		g := &kernel.GroupCtx{
			Op:       op,
			Users:    func(v *hlo.Value) []*hlo.Op { return uses.usersOf(v) },
			Returned: func(v *hlo.Value) bool { return uses.returned[v] },
			InBlock: func(o *hlo.Op) bool {
				_, in := pos[o]
				return in && claimed[o] == nil
			},
			OpCtx: c.opCtx,
		}
		cp, err := e.Group(g)
		if err != nil {
			return cs, err
		}
		if cp == nil {
			continue
		}
		if err := checkCompound(op, cp, pos, claimed, uses); err != nil {
			return cs, err
		}
		if claimed == nil {
			claimed = map[*hlo.Op]*kernel.Compound{}
			cs.anchor = map[*kernel.Compound]*hlo.Op{}
		}
		for _, o := range cp.Ops {
			claimed[o] = cp
			uses.compoundMember[o] = true
		}
		for _, v := range cp.Inputs {
			uses.compoundInput[v] = true
		}
		cs.anchor[cp] = op
	}
	cs.of = claimed
	return cs, nil
}

// lastOp is the op of cp that comes last in the block (where its step
// runs).
func lastOp(cp *kernel.Compound, pos map[*hlo.Op]int) *hlo.Op {
	last := cp.Ops[0]
	for _, o := range cp.Ops {
		if pos[o] > pos[last] {
			last = o
		}
	}
	return last
}

// checkCompound verifies a grouper's promise: the compound's ops are
// unclaimed ops of the block (the anchor among them), its inputs are
// defined before it runs and outside it, and of its values only the
// outputs are read outside it, after it runs.
func checkCompound(anchor *hlo.Op, cp *kernel.Compound, pos map[*hlo.Op]int, claimed map[*hlo.Op]*kernel.Compound, uses *useInfo) error {
	bad := func(format string, args ...any) error {
		return &kernel.OpError{Op: anchor.Name, Loc: anchor.Loc, Msg: "invalid compound step: " + fmt.Sprintf(format, args...)}
	}
	if len(cp.Ops) == 0 || !slices.Contains(cp.Ops, anchor) || cp.Run == nil {
		return bad("needs its anchor among its ops and a runner")
	}
	member := map[*hlo.Op]bool{}
	for _, o := range cp.Ops {
		if _, ok := pos[o]; !ok || claimed[o] != nil || member[o] {
			return bad("op %s is not an unclaimed op of the block", o.Name)
		}
		member[o] = true
	}
	at := pos[lastOp(cp, pos)]
	for _, v := range cp.Inputs {
		if v.Def != nil && member[v.Def] {
			return bad("input %s is made inside the compound", valueName(v))
		}
		if p, ok := pos[v.Def]; v.Def != nil && ok && p > at {
			return bad("input %s is made after the compound runs", valueName(v))
		}
	}
	for _, v := range cp.Outputs {
		if v.Def == nil || !member[v.Def] {
			return bad("output %s is not made by the compound", valueName(v))
		}
	}
	for _, o := range cp.Ops {
		for _, r := range o.Results {
			out := slices.Contains(cp.Outputs, r)
			if !out && uses.returned[r] {
				return bad("%s is returned but not an output", valueName(r))
			}
			for _, u := range uses.usersOf(r) {
				if member[u] {
					continue
				}
				if !out {
					return bad("%s is read by %s outside the compound but not an output", valueName(r), u.Name)
				}
				if pos[u] <= at {
					return bad("output %s is read by %s before the compound runs", valueName(r), u.Name)
				}
			}
		}
	}
	return nil
}
