package difftest

// The signature families: tensor parameters that arrive inside a Go
// parameter other than a tensor (StructArgs, InterfaceArgs), and Go
// results other than tensors (NonTensorResults). The body still sees one
// register per tensor parameter and returns Program.Results; these types
// only say how the Go signature packs them.

// HolderIface is the static type of a holder parameter.
type HolderIface int

const (
	IfaceNone     HolderIface = iota // *H: a pointer to the holder's struct (StructArgs)
	IfaceAny                         // any (InterfaceArgs)
	IfaceTensorer                    // difftest.Tensorer (InterfaceArgs)
)

// Form is the dynamic type a holder has in a call; the function's type
// switch sets its form variable (k<h>) to the Form's number.
type Form int

const (
	FormPtr    Form = iota // *H, a pointer to the holder's struct
	FormValue              // H, the struct itself
	FormSlice              // []*lazy.Tensor: the struct's tensors in field order
	FormTensor             // *lazy.Tensor: the tensor itself
	FormRef                // *difftest.Ref
	FormBox                // difftest.Box
)

// Holder is one Go parameter holding tensor parameters: a pointer to a
// generated struct, or an interface holding a tensor, a struct (or a
// pointer to one), or a difftest.Ref or Box.
type Holder struct {
	Iface  HolderIface
	Struct *Struct `json:",omitempty"` // the struct (IfaceNone; IfaceAny with struct forms)
	Param  int     // the tensor parameter of an interface without a struct
	Forms  []Form  `json:",omitempty"` // an interface's dynamic types (its type switch's cases)
}

// Struct is a generated struct type holding tensor parameters: in tensor
// fields, in slice fields, and in structs nested one level.
type Struct struct{ Fields []Field }

// FieldKind says what a struct field holds.
type FieldKind int

const (
	FieldTensor FieldKind = iota // *lazy.Tensor: Params[0]
	FieldSlice                   // []*lazy.Tensor: Params
	FieldSub                     // a nested struct Sub (by value)
	FieldSubPtr                  // a pointer to a nested struct Sub
)

// Field is one field of a Struct.
type Field struct {
	Kind   FieldKind
	Params []int   `json:",omitempty"`
	Sub    *Struct `json:",omitempty"`
	// Hidden makes the field unexported (UnexportedFields).
	Hidden bool `json:",omitempty"`
}

// ValueKind is the kind of one Go result of the function (or of a field
// of one) when Program.Outs lays the results out.
type ValueKind int

const (
	ValTensor  ValueKind = iota // a tensor result, Program.Results[Res]
	ValInt                      // int: the sum of Terms
	ValFloat                    // float64: the sum of Terms
	ValDims                     // []int64: a copy of register Reg's dims
	ValTensors                  // []*lazy.Tensor of Elems (tensor results)
	ValStruct                   // a struct with fields F0, F1, ... of Elems
	ValPtr                      // a pointer to such a struct
	ValHolder                   // struct holder Holder itself (the call's own argument)
)

// Value is one Go result (or a field or element of one).
type Value struct {
	Kind   ValueKind
	Res    int     `json:",omitempty"`
	Reg    int     `json:",omitempty"`
	Holder int     `json:",omitempty"`
	Terms  []Term  `json:",omitempty"`
	Elems  []Value `json:",omitempty"`
}

// TermKind is the kind of one addend of a Go number result.
type TermKind int

const (
	TermConst  TermKind = iota // C
	TermStatic                 // static parameter Index
	TermDim                    // dimension Axis of register Index
	TermRank                   // the rank of register Index
	TermForm                   // the form of holder Index
)

// Term is one addend of a ValInt or ValFloat. Every term depends on the
// call's signature only (statics, shapes, dynamic types), never on tensor
// data: a replay returns the traced call's numbers.
type Term struct {
	Kind  TermKind
	Index int     `json:",omitempty"`
	Axis  int     `json:",omitempty"`
	C     float64 `json:",omitempty"`
}

// OutUpdate is a caller-side write into a non-tensor result of a call,
// after the call: element Elem of a []int64 (set to Value) or of a
// []*lazy.Tensor (set to nil), or an int or float64 field. Field is -1 for
// the result itself, else a field of the result (a struct or a pointer to
// one); Elem is -1 for the field itself.
type OutUpdate struct {
	Out   int
	Field int
	Elem  int
	Value float64
}

// params lists a struct's tensor parameters in field order (nested structs
// in place).
func (s *Struct) params() []int {
	var out []int
	for _, f := range s.Fields {
		if f.Sub != nil {
			out = append(out, f.Sub.params()...)
		} else {
			out = append(out, f.Params...)
		}
	}
	return out
}

// params lists the tensor parameters a holder holds.
func (h *Holder) params() []int {
	if h.Struct != nil {
		return h.Struct.params()
	}
	return []int{h.Param}
}

// formsOf returns each holder's form in call k (FormPtr for a struct
// holder, whose calls keep no forms).
func (p *Program) formsOf(k int) []Form {
	out := make([]Form, len(p.Holders))
	for h := range p.Holders {
		if h < len(p.Calls[k].Forms) {
			out[h] = p.Calls[k].Forms[h]
		}
	}
	return out
}

// holderOf maps each tensor parameter to the holder holding it (-1: a
// parameter of its own).
func (p *Program) holderOf() []int {
	out := make([]int, p.NumParams())
	for i := range out {
		out[i] = -1
	}
	for h := range p.Holders {
		for _, i := range p.Holders[h].params() {
			if i >= 0 && i < len(out) {
				out[i] = h
			}
		}
	}
	return out
}

// goParam is one parameter of the function before the statics: a tensor
// parameter of its own (holder -1) or a holder.
type goParam struct{ param, holder int }

// goParams lists the function's parameters before the statics (not with
// SliceArgs): each holder stands where its first tensor parameter would.
func (p *Program) goParams() []goParam {
	of := p.holderOf()
	done := make([]bool, len(p.Holders))
	var out []goParam
	for i, h := range of {
		switch {
		case h < 0:
			out = append(out, goParam{i, -1})
		case !done[h]:
			done[h] = true
			out = append(out, goParam{-1, h})
		}
	}
	return out
}

// walkValues calls f on every value of vs, containers before their
// elements.
func walkValues(vs []Value, f func(v *Value)) {
	for i := range vs {
		f(&vs[i])
		walkValues(vs[i].Elems, f)
	}
}

// hasHidden reports an unexported field in s or a struct nested in it.
func (s *Struct) hasHidden() bool {
	if s == nil {
		return false
	}
	for _, f := range s.Fields {
		if f.Hidden || f.Sub.hasHidden() {
			return true
		}
	}
	return false
}

// sameLayout reports two structs of one Go type (the same fields, slices
// of the same lengths, nested alike).
func sameLayout(a, b *Struct) bool {
	if a == nil || b == nil || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i, f := range a.Fields {
		g := b.Fields[i]
		if f.Kind != g.Kind || f.Hidden != g.Hidden || len(f.Params) != len(g.Params) || (f.Sub != nil) != (g.Sub != nil) ||
			f.Sub != nil && !sameLayout(f.Sub, g.Sub) {
			return false
		}
	}
	return true
}

// layoutOf is the first holder whose struct has holder h's layout (whose
// type name, H<n>, printed programs use for h's struct too).
func (p *Program) layoutOf(h int) int {
	for j := 0; j < h; j++ {
		if sameLayout(p.Holders[j].Struct, p.Holders[h].Struct) {
			return j
		}
	}
	return h
}

// bindObj identifies the tensor object bound to parameter i of call k as
// far as the bindings alone tell (a result fed back is an object of its
// binding's own): a twin's tensors must be its holder's by this measure.
func (p *Program) bindObj(k, i int) objKey {
	switch b := p.Calls[k].Args[i]; b.Kind {
	case BindSame:
		return p.bindObj(k, b.Index)
	case BindKeep:
		return p.bindObj(k-1, i)
	case BindCapture:
		return objKey{'c', b.Index, 0}
	case BindPrevOut:
		return objKey{'p', k, i}
	}
	return objKey{'a', k, i}
}

// twinOf returns the earlier holder whose Go value call k passes for
// holder h too (Call.Twins; -1: none).
func (p *Program) twinOf(k, h int) int {
	if t := p.Calls[k].Twins; h < len(t) {
		return t[h]
	}
	return -1
}

// twinFits reports whether call k may pass holder j's value for holder h:
// j comes first, both take a pointer to a struct of one layout in the
// call, and every tensor h holds is the one at the same place in j.
func (p *Program) twinFits(k, h, j int) bool {
	forms := p.formsOf(k)
	if j < 0 || j >= h || forms[h] != FormPtr || forms[j] != FormPtr || !sameLayout(p.Holders[j].Struct, p.Holders[h].Struct) {
		return false
	}
	hp := p.Holders[h].params()
	for n, i := range p.Holders[j].params() {
		if p.bindObj(k, i) != p.bindObj(k, hp[n]) {
			return false
		}
	}
	return true
}

// reusesHolder reports that holder h of call k is the Go value call k-1
// passed: every tensor it holds is kept and its form is the same (a
// model passed again).
func (p *Program) reusesHolder(k, h int) bool {
	if k == 0 || p.formsOf(k)[h] != p.formsOf(k - 1)[h] {
		return false
	}
	for _, i := range p.Holders[h].params() {
		if p.Calls[k].Args[i].Kind != BindKeep {
			return false
		}
	}
	return true
}
