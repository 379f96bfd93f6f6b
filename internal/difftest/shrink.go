package difftest

import (
	"slices"

	"github.com/xlajit/xlajit/lazy"
)

// Shrink looks for a smaller program that fails with the same family as
// p: fewer calls, results, instructions, parameters, captures and input
// variants, and plainer arguments. It runs at most budget checks and
// returns the smallest failing program found with its failure.
func Shrink(p *Program, family string, budget int) (*Program, *Failure) {
	best := p
	var bestF *Failure
	for progress := true; progress && budget > 0; {
		progress = false
		for _, cand := range candidates(best) {
			if budget <= 0 {
				break
			}
			if !conforms(cand) {
				continue
			}
			budget--
			f, _ := Check(cand)
			if f != nil && f.Family == family {
				best, bestF, progress = cand, f, true
				break
			}
		}
	}
	if bestF == nil {
		bestF, _ = Check(best)
	}
	return best, bestF
}

// clone deep-copies a program.
func (p *Program) clone() *Program {
	q := *p
	q.Variants = nil
	for _, v := range p.Variants {
		q.Variants = append(q.Variants, slices.Clone(v))
	}
	q.Statics = slices.Clone(p.Statics)
	q.Captures = slices.Clone(p.Captures)
	q.CapData = slices.Clone(p.CapData)
	q.Body = nil
	for _, in := range p.Body {
		q.Body = append(q.Body, Instr{Op: in.Op, In: slices.Clone(in.In), I: slices.Clone(in.I), F: slices.Clone(in.F)})
	}
	q.Results = slices.Clone(p.Results)
	q.Holders = cloneHolders(p.Holders)
	q.Outs = cloneValues(p.Outs)
	q.Calls = nil
	for _, c := range p.Calls {
		c.Statics = slices.Clone(c.Statics)
		c.Args = slices.Clone(c.Args)
		c.UpdateCaps = slices.Clone(c.UpdateCaps)
		c.MutateResults = slices.Clone(c.MutateResults)
		c.Forms = slices.Clone(c.Forms)
		c.Twins = slices.Clone(c.Twins)
		c.MutateOuts = slices.Clone(c.MutateOuts)
		c.RollBack = slices.Clone(c.RollBack)
		q.Calls = append(q.Calls, c)
	}
	if p.Optim != nil {
		o := *p.Optim
		o.Params = slices.Clone(o.Params)
		q.Optim = &o
	}
	if p.Conc != nil {
		c := *p.Conc
		q.Conc = &c
	}
	return &q
}

// remap rewrites every register reference with f.
func (p *Program) remap(f func(r int) int) {
	for k := range p.Body {
		for i, r := range p.Body[k].In {
			p.Body[k].In[i] = f(r)
		}
	}
	for i, r := range p.Results {
		p.Results[i] = f(r)
	}
	p.outRegs(func(r *int) { *r = f(*r) })
}

// ones is plain data for an argument that replaces a binding.
func ones(n int64) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = 1
	}
	return d
}

// candidates lists one-step simplifications of p, biggest first.
func candidates(p *Program) []*Program {
	var out []*Program
	add := func(q *Program) { out = append(out, q) }
	// Fewer calls.
	for n := 1; n < len(p.Calls); n++ {
		q := p.clone()
		q.Calls = q.Calls[:n]
		add(q)
	}
	for k := 1; k < len(p.Calls); k++ {
		q := p.clone()
		q.Calls = slices.Delete(q.Calls, k, k+1)
		add(q)
	}
	// Fewer instructions: drop an unused one, or replace its uses by an
	// operand (the analysis rejects shape mismatches).
	used := p.usedRegs()
	for k := len(p.Body) - 1; k >= 0; k-- {
		reg := p.InstrReg(k)
		subs := []int{-1}
		if used[reg] {
			subs = slices.Clone(p.Body[k].In)
		}
		for _, s := range subs {
			q := p.clone()
			q.Body = slices.Delete(q.Body, k, k+1)
			q.remap(func(r int) int {
				switch {
				case r == reg:
					return s
				case r > reg:
					return r - 1
				}
				return r
			})
			add(q)
		}
	}
	// Fewer results.
	for o := range p.Results {
		q := p.clone()
		q.Results = slices.Delete(q.Results, o, o+1)
		q.dropResultFromOuts(o)
		for k := range q.Calls {
			for i, b := range q.Calls[k].Args {
				if b.Kind == BindPrevOut && b.Index > o {
					q.Calls[k].Args[i].Index--
				}
			}
			var mr []ResultUpdate
			for _, u := range q.Calls[k].MutateResults {
				if u.Result != o {
					if u.Result > o {
						u.Result--
					}
					mr = append(mr, u)
				}
			}
			q.Calls[k].MutateResults = mr
		}
		add(q)
	}
	// One input variant.
	if len(p.Variants) > 1 {
		for v := range p.Variants {
			q := p.clone()
			q.Variants = [][]lazy.Shape{q.Variants[v]}
			for k := range q.Calls {
				q.Calls[k].Variant = 0
			}
			add(q)
		}
	}
	// Plainer arguments and fewer caller-side updates.
	for k := range p.Calls {
		if len(p.Calls[k].MutateResults) > 0 {
			q := p.clone()
			q.Calls[k].MutateResults = nil
			add(q)
		}
		if len(p.Calls[k].UpdateCaps) > 0 {
			q := p.clone()
			q.Calls[k].UpdateCaps = nil
			add(q)
		}
		if len(p.Calls[k].RollBack) > 0 || p.Calls[k].SetLR != 0 {
			q := p.clone()
			q.Calls[k].RollBack, q.Calls[k].SetLR = nil, 0
			add(q)
		}
		for i, b := range p.Calls[k].Args {
			if b.Kind == BindFresh {
				continue
			}
			q := p.clone()
			s := p.Variants[p.Calls[k].Variant][i]
			nb := Binding{Kind: BindFresh, Data: b.Data}
			if b.Kind != BindPending {
				nb.Data = ones(numel(s.Dims))
			}
			q.Calls[k].Args[i] = nb
			add(q)
		}
	}
	// No optimizer, no concurrent mode, no partner.
	if p.Optim != nil {
		q := p.clone()
		q.Optim = nil
		for k := range q.Calls {
			q.Calls[k].SetLR = 0
		}
		add(q)
	}
	if p.optimArg() {
		q := p.clone()
		q.Optim.Arg = 0
		add(q)
	}
	if p.Conc != nil && p.Conc.Partner != nil {
		q := p.clone()
		q.Conc.Partner = nil
		add(q)
	}
	// Unused parameters and captures.
	for i := p.NumParams() - 1; i >= 0; i-- {
		if !used[i] {
			add(p.withoutParam(i))
		}
	}
	for c := len(p.Captures) - 1; c >= 0; c-- {
		if !used[p.CapReg(c)] {
			add(p.withoutCapture(c))
		}
	}
	// Plainer signature and reading.
	out = append(out, sigCandidates(p)...)
	if p.SliceArgs || p.SliceRes || p.ErrResult {
		q := p.clone()
		q.SliceArgs, q.SliceRes, q.ErrResult = false, false, false
		add(q)
	}
	if !p.ReadEachCall {
		q := p.clone()
		q.ReadEachCall = true
		add(q)
	}
	return out
}

func (p *Program) withoutParam(i int) *Program {
	q := p.clone()
	for v := range q.Variants {
		q.Variants[v] = slices.Delete(q.Variants[v], i, i+1)
	}
	for k := range q.Calls {
		args := q.Calls[k].Args
		for j := range args {
			if args[j].Kind == BindSame && args[j].Index == i {
				args[j] = Binding{Kind: BindFresh, Data: ones(numel(p.Variants[q.Calls[k].Variant][j].Dims))}
			}
			if args[j].Kind == BindSame && args[j].Index > i {
				args[j].Index--
			}
		}
		q.Calls[k].Args = slices.Delete(args, i, i+1)
	}
	q.dropParamFromHolders(i)
	q.remap(func(r int) int {
		if r > i {
			return r - 1
		}
		return r
	})
	return q
}

func (p *Program) withoutCapture(c int) *Program {
	q := p.clone()
	reg := p.CapReg(c)
	q.Captures = slices.Delete(q.Captures, c, c+1)
	q.CapData = slices.Delete(q.CapData, c, c+1)
	for k := range q.Calls {
		for j, b := range q.Calls[k].Args {
			if b.Kind == BindCapture && b.Index == c {
				q.Calls[k].Args[j] = Binding{Kind: BindFresh, Data: ones(numel(p.Captures[c].Dims))}
			} else if b.Kind == BindCapture && b.Index > c {
				q.Calls[k].Args[j].Index--
			}
		}
		var ups []CapUpdate
		for _, u := range q.Calls[k].UpdateCaps {
			if u.Cap != c {
				if u.Cap > c {
					u.Cap--
				}
				ups = append(ups, u)
			}
		}
		q.Calls[k].UpdateCaps = ups
		var rb []int
		for _, ci := range q.Calls[k].RollBack {
			if ci != c {
				rb = append(rb, ci-btoi(ci > c))
			}
		}
		q.Calls[k].RollBack = rb
	}
	if o := q.Optim; o != nil {
		var ps []int
		for _, ci := range o.Params {
			if ci != c {
				ps = append(ps, ci-btoi(ci > c))
			}
		}
		o.Params = ps
		if len(ps) == 0 {
			q.Optim = nil
			for k := range q.Calls {
				q.Calls[k].SetLR = 0
			}
		}
	}
	q.remap(func(r int) int {
		if r > reg {
			return r - 1
		}
		return r
	})
	return q
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
