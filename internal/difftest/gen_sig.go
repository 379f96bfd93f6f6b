package difftest

import (
	"math/rand/v2"
	"slices"
)

// The generator of the signature families (sig.go). It draws from a stream
// of its own (side), after the body, the results and the calls are drawn:
// switching the families on changes how a program's tensors are packed,
// not its body or its calls (kept seeds keep testing the same programs
// when their features say the families are off), but for a write into a
// held tensor that may end the body (writeHeld) and the bindings of calls
// that pass one struct twice (twins).

// side returns the generator drawing from the signature families' stream.
func (g *gen) side() *gen {
	if g.x == nil {
		x := *g
		x.r = rand.New(rand.NewPCG(g.p.Seed, 0x2545f4914f6cdd1d))
		g.x = &x
	}
	return g.x
}

// holders packs some tensor parameters into holders (StructArgs,
// InterfaceArgs).
func (g *gen) holders() {
	p, f := g.p, &g.f
	if p.SliceArgs || p.NumParams() == 0 || !f.StructArgs && !f.InterfaceArgs {
		return
	}
	x := g.side()
	free := x.r.Perm(p.NumParams())
	take := func(n int) []int {
		out := slices.Clone(free[:n])
		free = free[n:]
		return out
	}
	if f.StructArgs && !x.chance(3) {
		for n := 1 + x.r.IntN(2); n > 0 && len(free) > 0; n-- {
			ps := take(1 + x.r.IntN(len(free)))
			s := x.structOf(ps, true)
			p.Holders = append(p.Holders, Holder{Iface: IfaceNone, Struct: s})
			if !f.AliasArgs || !f.SharedStructs || !x.chance(2) {
				continue
			}
			// A twin: a second holder of the same layout, over parameters
			// of the same shapes, which some calls pass the same pointer.
			if m, ok := x.twinParams(ps, &free); ok {
				h := Holder{Iface: IfaceNone, Struct: s.substitute(m)}
				if f.InterfaceArgs && x.chance(3) {
					h.Iface, h.Forms = IfaceAny, x.someForms(FormValue, FormSlice)
					h.Forms = append(h.Forms, FormPtr)
				}
				p.Holders = append(p.Holders, h)
			}
		}
	}
	if f.InterfaceArgs {
		for n := 1 + x.r.IntN(2); n > 0 && len(free) > 0 && !x.chance(3); n-- {
			var h Holder
			switch {
			case f.StructArgs && x.chance(3):
				h = Holder{Iface: IfaceAny, Struct: x.structOf(take(1+x.r.IntN(min(3, len(free)))), true)}
				h.Forms = x.someForms(FormPtr, FormValue, FormSlice)
			case x.chance(3):
				h = Holder{Iface: IfaceTensorer, Param: take(1)[0], Forms: x.someForms(FormRef, FormBox)}
			default:
				h = Holder{Iface: IfaceAny, Param: take(1)[0], Forms: x.someForms(FormTensor, FormRef, FormBox)}
			}
			p.Holders = append(p.Holders, h)
		}
	}
	if len(p.Holders) > 0 && f.AssignArg && x.chance(2) {
		x.writeHeld()
	}
}

// writeHeld ends the body with an optimizer-like write into a tensor a
// holder holds (w.Assign(w*a+b)), where the features allow it.
func (g *gen) writeHeld() {
	p, st := g.p, g.st
	var ps []int
	for h := range p.Holders {
		ps = append(ps, p.Holders[h].params()...)
	}
	i := ps[g.r.IntN(len(ps))]
	a, b := []float64{2, 0.5, -1}[g.r.IntN(3)], []float64{1, -0.5}[g.r.IntN(2)]
	if !isFloat(st.regs[i].shapes[0].DType) {
		a, b = []float64{2, -1}[g.r.IntN(2)], 1 // integer tensors stay integer
	}
	in := Instr{Op: "AssignUpdate", In: []int{i}, I: []int64{0}, F: []float64{a, b}}
	k := len(p.Body)
	res, errs, fatal := st.check(in, k)
	if fatal != nil || !instrAllowed(&g.f, st, in, k, res) {
		return
	}
	for v, e := range errs {
		if e != nil && st.live(v, k) {
			return
		}
	}
	for _, r := range p.Results {
		if st.regs[r].root == i && !g.f.ReturnMutated {
			return
		}
	}
	p.Body = append(p.Body, in)
	st.add(in, k, res, errs)
}

// twinParams maps each of ps to a parameter of free (taken from it) of
// the same shapes in every variant (ok false, free unchanged, when some
// has none).
func (g *gen) twinParams(ps []int, free *[]int) (map[int]int, bool) {
	m := map[int]int{}
	left := slices.Clone(*free)
	for _, a := range ps {
		i := slices.IndexFunc(left, func(b int) bool {
			for _, v := range g.p.Variants {
				if !v[a].Equal(v[b]) {
					return false
				}
			}
			return true
		})
		if i < 0 {
			return nil, false
		}
		m[a] = left[i]
		left = slices.Delete(left, i, i+1)
	}
	*free = left
	return m, true
}

// substitute returns a copy of s holding parameter m[i] where s holds i.
func (s *Struct) substitute(m map[int]int) *Struct {
	q := s.clone()
	for i := range q.Fields {
		f := &q.Fields[i]
		for j, a := range f.Params {
			f.Params[j] = m[a]
		}
		if f.Sub != nil {
			f.Sub = f.Sub.substitute(m)
		}
	}
	return q
}

// twins makes some calls pass one struct for two holders of one layout
// (both taking a pointer in the call): the later holder's tensors are
// bound to the earlier one's (Call.Twins).
func (g *gen) twins() {
	p := g.p
	if !g.f.AliasArgs || !g.f.SharedStructs {
		return
	}
	x := g.side()
	for h := range p.Holders {
		for j := 0; j < h; j++ {
			if !sameLayout(p.Holders[j].Struct, p.Holders[h].Struct) {
				continue
			}
			for k := range p.Calls {
				fs := p.formsOf(k)
				if fs[j] != FormPtr || fs[h] != FormPtr || !x.chance(2) {
					continue
				}
				c := &p.Calls[k]
				if c.Twins != nil && c.Twins[h] >= 0 {
					continue
				}
				saved, savedTwins := slices.Clone(c.Args), slices.Clone(c.Twins)
				hp := p.Holders[h].params()
				for n, a := range p.Holders[j].params() {
					lo, hi := min(a, hp[n]), max(a, hp[n])
					c.Args[hi] = Binding{Kind: BindSame, Index: lo}
				}
				if c.Twins == nil {
					c.Twins = slices.Repeat([]int{-1}, len(p.Holders))
				}
				c.Twins[h] = j
				if !conforms(p) {
					c.Args, c.Twins = saved, savedTwins
				}
			}
		}
	}
}

// someForms picks the cases of an interface's type switch, usually more
// than one.
func (g *gen) someForms(fs ...Form) []Form {
	g.r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	n := 2 + g.r.IntN(len(fs)-1)
	if g.chance(5) {
		n = 1
	}
	return fs[:n]
}

// structOf lays parameters ps out as a struct: tensor fields, slice
// fields and, when nest is set, at most one nested struct (by value or
// behind a pointer).
func (g *gen) structOf(ps []int, nest bool) *Struct {
	s := &Struct{}
	for len(ps) > 0 {
		switch {
		case nest && g.chance(5):
			n := 1 + g.r.IntN(min(2, len(ps)))
			k := FieldSub
			if g.chance(2) {
				k = FieldSubPtr
			}
			s.Fields = append(s.Fields, Field{Kind: k, Sub: g.structOf(ps[:n], false)})
			ps, nest = ps[n:], false
		case g.chance(4):
			n := 1 + g.r.IntN(min(3, len(ps)))
			s.Fields = append(s.Fields, Field{Kind: FieldSlice, Params: slices.Clone(ps[:n])})
			ps = ps[n:]
		default:
			s.Fields = append(s.Fields, Field{Kind: FieldTensor, Params: []int{ps[0]}})
			ps = ps[1:]
		}
		if g.f.UnexportedFields && g.chance(3) {
			s.Fields[len(s.Fields)-1].Hidden = true
		}
	}
	return s
}

// forms chooses each interface holder's dynamic type in every call (often
// the previous call's).
func (g *gen) forms() {
	p := g.p
	if len(p.Holders) == 0 {
		return
	}
	x := g.side()
	for k := range p.Calls {
		fs := make([]Form, len(p.Holders))
		for h, hd := range p.Holders {
			switch {
			case hd.Iface == IfaceNone:
				fs[h] = FormPtr
			case k > 0 && x.chance(2):
				fs[h] = p.Calls[k-1].Forms[h]
			default:
				fs[h] = hd.Forms[x.r.IntN(len(hd.Forms))]
			}
		}
		p.Calls[k].Forms = fs
	}
}

// outs lays the results out as Go results with values that are not
// tensors (NonTensorResults).
func (g *gen) outs() {
	p := g.p
	if !g.f.NonTensorResults || p.SliceRes {
		return
	}
	x := g.side()
	if x.chance(3) {
		return
	}
	next := 0
	var outs []Value
	for next < len(p.Results) && len(outs) < 6 {
		switch c := x.r.IntN(20); {
		case c < 7:
			outs = append(outs, x.tensorValue(&next))
		case c < 10:
			outs = append(outs, x.tensorsValue(&next))
		case c < 17:
			outs = append(outs, x.structValue(&next))
		default:
			outs = append(outs, x.nonTensor())
		}
	}
	for next < len(p.Results) {
		outs = append(outs, x.tensorValue(&next))
	}
	if len(p.Results) == 0 || x.chance(3) || !slices.ContainsFunc(outs, func(v Value) bool { return v.Kind != ValTensor }) {
		v := x.nonTensor()
		if x.chance(3) {
			v = x.structValue(&next)
		}
		outs = slices.Insert(outs, x.r.IntN(len(outs)+1), v)
	}
	p.Outs = outs
}

// tensorValue is the next tensor result.
func (g *gen) tensorValue(next *int) Value {
	v := Value{Kind: ValTensor, Res: *next}
	*next++
	return v
}

// tensorsValue is a []*lazy.Tensor of the next one to three results.
func (g *gen) tensorsValue(next *int) Value {
	v := Value{Kind: ValTensors}
	for n := 1 + g.r.IntN(min(3, len(g.p.Results)-*next)); n > 0; n-- {
		v.Elems = append(v.Elems, g.tensorValue(next))
	}
	return v
}

// structValue is a struct (or a pointer to one) of one to four fields:
// tensor results, slices of them and values that are not tensors.
func (g *gen) structValue(next *int) Value {
	v := Value{Kind: ValStruct}
	if g.chance(2) {
		v.Kind = ValPtr
	}
	for n := 1 + g.r.IntN(4); n > 0; n-- {
		left := len(g.p.Results) - *next
		switch c := g.r.IntN(10); {
		case c < 4 && left > 0:
			v.Elems = append(v.Elems, g.tensorValue(next))
		case c < 5 && left > 0:
			v.Elems = append(v.Elems, g.tensorsValue(next))
		default:
			v.Elems = append(v.Elems, g.nonTensor())
		}
	}
	return v
}

// nonTensor is a result value that holds no tensor: an int or a float64
// of the signature, a copy of a register's dims, or a struct argument
// (ArgResults).
func (g *gen) nonTensor() Value {
	for tries := 0; tries < 4; tries++ {
		switch c := g.r.IntN(10); {
		case c < 4:
			return Value{Kind: ValInt, Terms: g.terms(false)}
		case c < 6:
			return Value{Kind: ValFloat, Terms: g.terms(true)}
		case c < 8:
			if r, ok := g.pickWhere(func(r int) bool { return g.st.dimsKnown(r) }); ok {
				return Value{Kind: ValDims, Reg: r}
			}
		default:
			var hs []int
			for h, hd := range g.p.Holders {
				if hd.Iface == IfaceNone && g.f.ArgResults {
					hs = append(hs, h)
				}
			}
			if len(hs) > 0 {
				return Value{Kind: ValHolder, Holder: hs[g.r.IntN(len(hs))]}
			}
		}
	}
	return Value{Kind: ValInt, Terms: g.terms(false)}
}

// terms are one or two addends of a number result (float: a float64,
// which may add float statics).
func (g *gen) terms(float bool) []Term {
	st, p := g.st, g.p
	var ts []Term
	for n, tries := 1+g.r.IntN(2), 0; len(ts) < n && tries < 20; tries++ {
		switch c := g.r.IntN(10); {
		case c < 1:
			t := Term{Kind: TermConst, C: float64(g.r.IntN(7) - 3)}
			if float {
				t.C = []float64{0.5, -1.5, 2.25}[g.r.IntN(3)]
			}
			ts = append(ts, t)
		case c < 3:
			var ss []int
			for i, isInt := range p.Statics {
				if isInt || float {
					ss = append(ss, i)
				}
			}
			if len(ss) > 0 {
				ts = append(ts, Term{Kind: TermStatic, Index: ss[g.r.IntN(len(ss))]})
			}
		case c < 6:
			r, ok := g.pickWhere(func(r int) bool { return len(st.knownAxes(r)) > 0 })
			if ok {
				axes := st.knownAxes(r)
				ts = append(ts, Term{Kind: TermDim, Index: r, Axis: axes[g.r.IntN(len(axes))]})
			}
		case c < 7:
			if r, ok := g.pickWhere(func(r int) bool { return st.shapeKnown(r) }); ok {
				ts = append(ts, Term{Kind: TermRank, Index: r})
			}
		default:
			var hs []int
			for h, hd := range p.Holders {
				if hd.Iface != IfaceNone {
					hs = append(hs, h)
				}
			}
			if len(hs) > 0 {
				ts = append(ts, Term{Kind: TermForm, Index: hs[g.r.IntN(len(hs))]})
			}
		}
	}
	if len(ts) == 0 {
		ts = append(ts, Term{Kind: TermConst, C: 1})
	}
	return ts
}

// outUpdates makes the caller write into some calls' non-tensor results.
func (g *gen) outUpdates() {
	p := g.p
	if len(p.Outs) == 0 {
		return
	}
	x := g.side()
	for k := range p.Calls {
		if !x.chance(2) {
			continue
		}
		var cands []OutUpdate
		for j := range p.Outs {
			add := func(field int, v *Value) {
				switch v.Kind {
				case ValInt:
					if field >= 0 {
						cands = append(cands, OutUpdate{Out: j, Field: field, Elem: -1, Value: float64(100 + x.r.IntN(50))})
					}
				case ValFloat:
					if field >= 0 {
						cands = append(cands, OutUpdate{Out: j, Field: field, Elem: -1, Value: 1000.5})
					}
				case ValDims:
					if n := g.st.regs[v.Reg].shapes[p.Calls[k].Variant].Rank(); n > 0 {
						cands = append(cands, OutUpdate{Out: j, Field: field, Elem: x.r.IntN(n), Value: float64(100 + x.r.IntN(50))})
					}
				case ValTensors:
					cands = append(cands, OutUpdate{Out: j, Field: field, Elem: x.r.IntN(len(v.Elems))})
				}
			}
			v := &p.Outs[j]
			add(-1, v)
			if v.Kind == ValStruct || v.Kind == ValPtr {
				for i := range v.Elems {
					add(i, &v.Elems[i])
				}
			}
		}
		for n := 1 + x.r.IntN(2); n > 0 && len(cands) > 0; n-- {
			i := x.r.IntN(len(cands))
			p.Calls[k].MutateOuts = append(p.Calls[k].MutateOuts, cands[i])
			cands = slices.Delete(cands, i, i+1)
		}
	}
}
