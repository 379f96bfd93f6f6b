package difftest

import "slices"

// Shrinking the signature families (sig.go): copies, register and
// parameter renumbering, and the candidates that unpack tensors from
// holders and result values.

func (s *Struct) clone() *Struct {
	if s == nil {
		return nil
	}
	q := &Struct{}
	for _, f := range s.Fields {
		q.Fields = append(q.Fields, Field{Kind: f.Kind, Params: slices.Clone(f.Params), Sub: f.Sub.clone(), Hidden: f.Hidden})
	}
	return q
}

func cloneHolders(hs []Holder) []Holder {
	var out []Holder
	for _, h := range hs {
		h.Struct = h.Struct.clone()
		h.Forms = slices.Clone(h.Forms)
		out = append(out, h)
	}
	return out
}

func cloneValues(vs []Value) []Value {
	var out []Value
	for _, v := range vs {
		v.Terms = slices.Clone(v.Terms)
		v.Elems = cloneValues(v.Elems)
		out = append(out, v)
	}
	return out
}

// outRegs calls f on every register reference of the result layout.
func (p *Program) outRegs(f func(r *int)) {
	walkValues(p.Outs, func(v *Value) {
		if v.Kind == ValDims {
			f(&v.Reg)
		}
		for i := range v.Terms {
			if t := &v.Terms[i]; t.Kind == TermDim || t.Kind == TermRank {
				f(&t.Index)
			}
		}
	})
}

// dropParam removes tensor parameter i from s and renumbers the
// later ones; it reports whether s still has fields.
func (s *Struct) dropParam(i int) bool {
	var fs []Field
	for _, f := range s.Fields {
		if f.Sub != nil {
			if f.Sub.dropParam(i) {
				fs = append(fs, f)
			}
			continue
		}
		var ps []int
		for _, a := range f.Params {
			switch {
			case a > i:
				ps = append(ps, a-1)
			case a < i:
				ps = append(ps, a)
			}
		}
		if len(ps) > 0 {
			f.Params = ps
			fs = append(fs, f)
		}
	}
	s.Fields = fs
	return len(fs) > 0
}

// dropParamFromHolders removes tensor parameter i from the holders (a
// holder left empty goes) and renumbers the later ones.
func (p *Program) dropParamFromHolders(i int) {
	for h := len(p.Holders) - 1; h >= 0; h-- {
		hd := &p.Holders[h]
		switch {
		case hd.Struct != nil:
			if !hd.Struct.dropParam(i) {
				p.dropHolder(h)
			}
		case hd.Param == i:
			p.dropHolder(h)
		case hd.Param > i:
			hd.Param--
		}
	}
}

// dropHolder removes holder h (its tensors become parameters of their
// own), the result values and terms that are it, and the caller's writes
// into results when the layout changes.
func (p *Program) dropHolder(h int) {
	p.Holders = slices.Delete(p.Holders, h, h+1)
	for k := range p.Calls {
		c := &p.Calls[k]
		if h < len(c.Forms) {
			c.Forms = slices.Delete(c.Forms, h, h+1)
		}
		if h < len(c.Twins) {
			c.Twins = slices.Delete(c.Twins, h, h+1)
			for i, j := range c.Twins {
				switch {
				case j == h:
					c.Twins[i] = -1
				case j > h:
					c.Twins[i]--
				}
			}
		}
		if len(p.Holders) == 0 {
			c.Forms, c.Twins = nil, nil
		}
	}
	p.editOuts(func(v *Value) bool {
		if v.Kind == ValHolder {
			if v.Holder == h {
				return false
			}
			if v.Holder > h {
				v.Holder--
			}
		}
		var ts []Term
		for _, t := range v.Terms {
			if t.Kind == TermForm && t.Index == h {
				continue
			}
			if t.Kind == TermForm && t.Index > h {
				t.Index--
			}
			ts = append(ts, t)
		}
		v.Terms = ts
		return true
	})
}

// dropResultFromOuts removes tensor result o from the layout and
// renumbers the later ones.
func (p *Program) dropResultFromOuts(o int) {
	p.editOuts(func(v *Value) bool {
		if v.Kind == ValTensor {
			if v.Res == o {
				return false
			}
			if v.Res > o {
				v.Res--
			}
		}
		return true
	})
}

// editOuts rewrites the layout with keep (false removes a value), drops
// slices and structs left empty and, when something went, the caller's
// writes into results.
func (p *Program) editOuts(keep func(v *Value) bool) {
	if len(p.Outs) == 0 {
		return
	}
	changed := false
	var edit func(vs []Value) []Value
	edit = func(vs []Value) []Value {
		var out []Value
		for _, v := range vs {
			if !keep(&v) {
				changed = true
				continue
			}
			if v.Kind == ValTensors || v.Kind == ValStruct || v.Kind == ValPtr {
				v.Elems = edit(v.Elems)
				if len(v.Elems) == 0 {
					changed = true
					continue
				}
			}
			out = append(out, v)
		}
		return out
	}
	p.Outs = edit(p.Outs)
	if changed {
		for k := range p.Calls {
			p.Calls[k].MutateOuts = nil
		}
	}
}

// sigCandidates lists simplifications of the signature families: no
// caller-side writes into results, no struct passed twice, a holder
// unpacked, the results unpacked, one non-tensor result fewer.
func sigCandidates(p *Program) []*Program {
	var out []*Program
	for k := range p.Calls {
		if len(p.Calls[k].MutateOuts) > 0 {
			q := p.clone()
			q.Calls[k].MutateOuts = nil
			out = append(out, q)
		}
		if len(p.Calls[k].Twins) > 0 {
			q := p.clone()
			q.Calls[k].Twins = nil
			out = append(out, q)
		}
	}
	if len(p.Holders) > 0 {
		q := p.clone()
		for h := len(q.Holders) - 1; h >= 0; h-- {
			q.dropHolder(h)
		}
		out = append(out, q)
	}
	for h := range p.Holders {
		if len(p.Holders) > 1 {
			q := p.clone()
			q.dropHolder(h)
			out = append(out, q)
		}
	}
	if len(p.Outs) > 0 {
		q := p.clone()
		q.Outs = nil
		for k := range q.Calls {
			q.Calls[k].MutateOuts = nil
		}
		out = append(out, q)
	}
	for j := range p.Outs {
		if v := p.Outs[j]; v.Kind != ValTensor && !slices.ContainsFunc(v.Elems, hasTensorValue) {
			q := p.clone()
			q.Outs = slices.Delete(q.Outs, j, j+1)
			for k := range q.Calls {
				q.Calls[k].MutateOuts = nil
			}
			out = append(out, q)
		}
	}
	return out
}

// hasTensorValue reports a value that is or holds a tensor result.
func hasTensorValue(v Value) bool {
	return v.Kind == ValTensor || slices.ContainsFunc(v.Elems, hasTensorValue)
}
