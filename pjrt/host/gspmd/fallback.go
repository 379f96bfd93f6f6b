package gspmd

import (
	"github.com/xlajit/xlajit/hlo"
)

// cloneRegions copies op's regions into the builder (their ops may only
// use their own block arguments and values defined inside them, or the
// replicated values given in outer).
func (p *pass) cloneRegions(op *hlo.Op, outer map[*hlo.Value]*hlo.Value) []*hlo.Region {
	var out []*hlo.Region
	for _, r := range op.Regions {
		out = append(out, p.cloneRegion(p.f.Scope, r, outer))
	}
	return out
}

func (p *pass) cloneRegion(s *hlo.Scope, r *hlo.Region, outer map[*hlo.Value]*hlo.Value) *hlo.Region {
	if len(r.Blocks) != 1 {
		p.fail("region with %d blocks", len(r.Blocks))
	}
	blk := r.Blocks[0]
	argTypes := make([]hlo.Type, len(blk.Args))
	for i, a := range blk.Args {
		argTypes[i] = a.Type
	}
	return s.NewRegion(argTypes, func(sub *hlo.Scope, args []*hlo.Value) []*hlo.Value {
		m := make(map[*hlo.Value]*hlo.Value, len(outer)+len(args))
		for k, v := range outer {
			m[k] = v
		}
		for i, a := range blk.Args {
			m[a] = args[i]
		}
		for _, op := range blk.Ops {
			ins := make([]*hlo.Value, len(op.Operands))
			for i, v := range op.Operands {
				x, ok := m[v]
				if !ok {
					p.fail("region op %s reads a value from outside the region", op.Name)
				}
				ins[i] = x
			}
			if op.Name == "stablehlo.return" {
				return ins
			}
			var regs []*hlo.Region
			for _, rr := range op.Regions {
				regs = append(regs, p.cloneRegion(sub, rr, m))
			}
			types := make([]hlo.Type, len(op.Results))
			for i, rv := range op.Results {
				types[i] = rv.Type
			}
			outs := sub.OpWithRegions(op.Name, ins, op.Attrs, regs, types...)
			for i, rv := range op.Results {
				if i < len(outs) {
					m[rv] = outs[i]
				}
			}
		}
		p.fail("region without stablehlo.return")
		return nil
	})
}

// fallback runs op on whole tensors: every operand (and every value its
// regions capture) is replicated, the result is replicated. Operands cut
// into tiles are gathered, which is counted as a reshard.
func (p *pass) fallback(op *hlo.Op) {
	ins := make([]*hlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		if v.TensorType() == nil {
			p.fail("operand %d of type %s: the partitioner handles tensors only", i, v.Type)
		}
		ins[i] = p.get(v, replicatedLayout(v.TensorType().Rank(), p.n), true)
	}
	outer := map[*hlo.Value]*hlo.Value{}
	for _, v := range op.CapturedValues() {
		if _, ok := p.vals[v]; !ok {
			continue // defined in an enclosing region of the op itself
		}
		outer[v] = p.get(v, replicatedLayout(v.TensorType().Rank(), p.n), true)
	}
	types := make([]hlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	outs := p.emit(op.Name, ins, op.Attrs, p.cloneRegions(op, outer), types...)
	for i, r := range op.Results {
		p.set(r, outs[i], replicatedLayout(r.TensorType().Rank(), p.n))
	}
}
