package difftest

import (
	"errors"
	"fmt"
	"slices"
)

// shapeKnown reports that register r's shape is the analysis' in every
// variant where a call gets as far as defining r: r is a tensor register
// defined before every variant's failing instruction.
func (st *state) shapeKnown(r int) bool {
	if r < 0 || r >= len(st.regs) || st.regs[r].void {
		return false
	}
	for v := range st.dead {
		if st.regs[r].instr >= st.dead[v] {
			return false
		}
	}
	return true
}

// knownAxes lists the axes of register r whose size is known (not
// data-dependent) and exists in every variant.
func (st *state) knownAxes(r int) []int {
	if !st.shapeKnown(r) {
		return nil
	}
	var out []int
	for a := 0; ; a++ {
		known := true
		for _, s := range st.regs[r].shapes {
			if a >= s.Rank() {
				return out
			}
			known = known && !isDyn(s.Dims[a])
		}
		if known {
			out = append(out, a)
		}
	}
}

// dimsKnown reports that register r's dims are known in every variant
// (none data-dependent).
func (st *state) dimsKnown(r int) bool {
	if !st.shapeKnown(r) {
		return false
	}
	for _, s := range st.regs[r].shapes {
		if anyDyn(s.Dims) {
			return false
		}
	}
	return true
}

// checkSig checks the holders, the result layout and the calls' forms and
// result writes of st's program.
func (st *state) checkSig() error {
	p := st.p
	if len(p.Holders) > 0 && p.SliceArgs || len(p.Outs) > 0 && p.SliceRes {
		return errors.New("holders or a result layout with a slice signature")
	}
	held := map[int]bool{}
	for h := range p.Holders {
		if err := st.checkHolder(&p.Holders[h], held); err != nil {
			return fmt.Errorf("holder %d: %w", h, err)
		}
	}
	for k, c := range p.Calls {
		if len(c.Forms) != 0 && len(c.Forms) != len(p.Holders) || len(c.Twins) != 0 && len(c.Twins) != len(p.Holders) {
			return fmt.Errorf("call %d: %d forms, %d twins for %d holders", k, len(c.Forms), len(c.Twins), len(p.Holders))
		}
		for h, j := range c.Twins {
			if j != -1 && !p.twinFits(k, h, j) {
				return fmt.Errorf("call %d: holder %d cannot be holder %d", k, h, j)
			}
		}
		for h, fm := range p.formsOf(k) {
			if hd := p.Holders[h]; hd.Iface == IfaceNone && fm != FormPtr || hd.Iface != IfaceNone && !slices.Contains(hd.Forms, fm) {
				return fmt.Errorf("call %d: holder %d in form %d", k, h, fm)
			}
		}
	}
	next := 0
	for j := range p.Outs {
		if err := st.checkValue(&p.Outs[j], &next, true); err != nil {
			return fmt.Errorf("result value %d: %w", j, err)
		}
	}
	if len(p.Outs) > 0 && next != len(p.Results) {
		return fmt.Errorf("the result layout holds %d of %d tensors", next, len(p.Results))
	}
	for k, c := range p.Calls {
		for _, u := range c.MutateOuts {
			if !st.outUpdateFits(k, u) {
				return fmt.Errorf("call %d: bad result write %+v", k, u)
			}
		}
	}
	return nil
}

func (st *state) checkHolder(h *Holder, held map[int]bool) error {
	var ok []Form
	switch {
	case h.Iface == IfaceNone && h.Struct != nil:
	case h.Iface == IfaceAny && h.Struct != nil:
		ok = []Form{FormPtr, FormValue, FormSlice}
	case h.Iface == IfaceAny:
		ok = []Form{FormTensor, FormRef, FormBox}
	case h.Iface == IfaceTensorer && h.Struct == nil:
		ok = []Form{FormRef, FormBox}
	default:
		return errors.New("malformed")
	}
	if h.Iface != IfaceNone && len(h.Forms) == 0 {
		return errors.New("no forms")
	}
	for _, fm := range h.Forms {
		if !slices.Contains(ok, fm) {
			return fmt.Errorf("form %d", fm)
		}
	}
	if h.Struct != nil {
		if err := checkStruct(h.Struct); err != nil {
			return err
		}
	}
	for _, i := range h.params() {
		if i < 0 || i >= st.p.NumParams() || held[i] {
			return fmt.Errorf("parameter %d", i)
		}
		held[i] = true
	}
	return nil
}

func checkStruct(s *Struct) error {
	if len(s.Fields) == 0 {
		return errors.New("a struct without fields")
	}
	for _, f := range s.Fields {
		switch {
		case f.Kind == FieldTensor && len(f.Params) == 1 && f.Sub == nil:
		case f.Kind == FieldSlice && len(f.Params) > 0 && f.Sub == nil:
		case (f.Kind == FieldSub || f.Kind == FieldSubPtr) && f.Sub != nil && len(f.Params) == 0:
			if err := checkStruct(f.Sub); err != nil {
				return err
			}
		default:
			return errors.New("a malformed field")
		}
	}
	return nil
}

// checkValue checks a result value; next is the tensor result the layout
// reaches next.
func (st *state) checkValue(v *Value, next *int, top bool) error {
	p := st.p
	switch v.Kind {
	case ValTensor:
		if v.Res != *next {
			return fmt.Errorf("tensor result %d where %d comes", v.Res, *next)
		}
		*next++
		return nil
	case ValInt, ValFloat:
		for _, t := range v.Terms {
			if err := st.checkTerm(t, v.Kind == ValFloat); err != nil {
				return err
			}
		}
		return nil
	case ValDims:
		if !st.dimsKnown(v.Reg) {
			return fmt.Errorf("dims of register %d", v.Reg)
		}
		return nil
	case ValHolder:
		if v.Holder < 0 || v.Holder >= len(p.Holders) || p.Holders[v.Holder].Iface != IfaceNone {
			return fmt.Errorf("holder %d", v.Holder)
		}
		return nil
	case ValTensors:
		if len(v.Elems) == 0 {
			return errors.New("an empty tensor slice")
		}
		for i := range v.Elems {
			if v.Elems[i].Kind != ValTensor {
				return errors.New("a tensor slice of other values")
			}
			if err := st.checkValue(&v.Elems[i], next, false); err != nil {
				return err
			}
		}
		return nil
	case ValStruct, ValPtr:
		if !top || len(v.Elems) == 0 {
			return errors.New("a nested or empty struct")
		}
		for i := range v.Elems {
			if err := st.checkValue(&v.Elems[i], next, false); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("kind %d", v.Kind)
}

func (st *state) checkTerm(t Term, float bool) error {
	p := st.p
	switch t.Kind {
	case TermConst:
		if !float && t.C != float64(int64(t.C)) {
			return fmt.Errorf("an int result adds %v", t.C)
		}
	case TermStatic:
		if t.Index < 0 || t.Index >= len(p.Statics) || !float && !p.Statics[t.Index] {
			return fmt.Errorf("static %d", t.Index)
		}
	case TermDim:
		if !slices.Contains(st.knownAxes(t.Index), t.Axis) {
			return fmt.Errorf("axis %d of register %d", t.Axis, t.Index)
		}
	case TermRank:
		if !st.shapeKnown(t.Index) {
			return fmt.Errorf("rank of register %d", t.Index)
		}
	case TermForm:
		if t.Index < 0 || t.Index >= len(p.Holders) || p.Holders[t.Index].Iface == IfaceNone {
			return fmt.Errorf("form of holder %d", t.Index)
		}
	default:
		return fmt.Errorf("term kind %d", t.Kind)
	}
	return nil
}

// outUpdateFits reports whether caller-side write u fits call k's results.
func (st *state) outUpdateFits(k int, u OutUpdate) bool {
	p := st.p
	if u.Out < 0 || u.Out >= len(p.Outs) {
		return false
	}
	v := &p.Outs[u.Out]
	if u.Field >= 0 {
		if v.Kind != ValStruct && v.Kind != ValPtr || u.Field >= len(v.Elems) {
			return false
		}
		v = &v.Elems[u.Field]
	}
	switch v.Kind {
	case ValInt, ValFloat:
		return u.Field >= 0 && u.Elem == -1
	case ValDims:
		return u.Elem >= 0 && u.Elem < st.regs[v.Reg].shapes[p.Calls[k].Variant].Rank()
	case ValTensors:
		return u.Elem >= 0 && u.Elem < len(v.Elems)
	}
	return false
}
