package host

import (
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// PlanString prints the entry function's plan, one step per line, for
// debugging and tests:
//
//	%3 = stablehlo.exponential(%0)  free [%0]
//	%7 = fused[stablehlo.multiply stablehlo.add stablehlo.tanh](%0, %1, %2) tile 2048  free [%1]
//
// A fused step lists its members, its inputs (constants bound at compile
// time print as const), its tile size, and outputs written in place into a
// dying input.
func (p *Program) PlanString() string {
	var b strings.Builder
	fn := p.entry.fn
	names := map[int]string{}
	for _, a := range fn.Args {
		names[a.ID] = valueName(a)
	}
	var walk func(r *hlo.Region)
	walk = func(r *hlo.Region) {
		r.Walk(func(op *hlo.Op) bool {
			for _, v := range op.Results {
				names[v.ID] = valueName(v)
			}
			return true
		})
	}
	walk(fn.Body)
	slot := func(id int32) string {
		if n, ok := names[int(id)]; ok {
			return n
		}
		return fmt.Sprintf("%%#%d", id)
	}
	list := func(ids []int32) string {
		s := make([]string, 0, len(ids))
		for _, id := range ids {
			s = append(s, slot(id))
		}
		return strings.Join(s, ", ")
	}
	for _, s := range p.entry.body.steps {
		if len(s.out) > 0 {
			b.WriteString(list(s.out) + " = ")
		}
		if f := s.fused; f != nil {
			b.WriteString("fused[")
			for j, m := range f.members {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(m.name)
			}
			b.WriteString("](")
			for k, v := range f.inVals {
				if k > 0 {
					b.WriteString(", ")
				}
				b.WriteString(valueName(v))
				if f.consts[k] != nil {
					b.WriteString(" const")
				}
			}
			fmt.Fprintf(&b, ") tile %d", f.tile)
			for j, k := range f.inPlace {
				if k >= 0 {
					fmt.Fprintf(&b, " %s in %s", valueName(f.outVals[j]), valueName(f.inVals[k]))
				}
			}
		} else {
			fmt.Fprintf(&b, "%s(%s)", s.op.Name, list(s.in))
		}
		if len(s.free) > 0 {
			fmt.Fprintf(&b, "  free [%s]", list(s.free))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func valueName(v *hlo.Value) string {
	if v.Name != "" {
		return "%" + v.Name
	}
	return fmt.Sprintf("%%%d", v.ID)
}
