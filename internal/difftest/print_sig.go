package difftest

import (
	"fmt"
	"strings"
)

// Printing the signature families (sig.go): holder h is parameter m<h>
// (a pointer to struct type H<n>, n the first holder of its layout) or
// i<h> (an interface), whose type switch sets form variable k<h>; result
// value j of call k is o<k>_<j> (struct type R<j>), the tensors in it
// r<k>_<o> as before; the caller's holder values are g<k>_<h>.

// structName names holder h's struct type.
func (p *Program) structName(h int) string { return fmt.Sprintf("H%d", p.layoutOf(h)) }

// holderParam names holder h's parameter.
func (p *Program) holderParam(h int) string {
	if p.Holders[h].Iface == IfaceNone {
		return fmt.Sprintf("m%d", h)
	}
	return fmt.Sprintf("i%d", h)
}

// holderTypeText is holder h's static type in Go.
func (p *Program) holderTypeText(h int) string {
	switch p.Holders[h].Iface {
	case IfaceAny:
		return "any"
	case IfaceTensorer:
		return "difftest.Tensorer"
	}
	return "*" + p.structName(h)
}

// typeDecls declares the holders' and the results' struct types (nested
// ones first).
func (p *Program) typeDecls(b *strings.Builder) {
	var decl func(name string, s *Struct)
	decl = func(name string, s *Struct) {
		for i, f := range s.Fields {
			if f.Sub != nil {
				decl(fmt.Sprintf("%s_%d", name, i), f.Sub)
			}
		}
		fmt.Fprintf(b, "type %s struct {\n", name)
		for i, f := range s.Fields {
			t := "*lazy.Tensor"
			switch f.Kind {
			case FieldSlice:
				t = "[]*lazy.Tensor"
			case FieldSub:
				t = fmt.Sprintf("%s_%d", name, i)
			case FieldSubPtr:
				t = fmt.Sprintf("*%s_%d", name, i)
			}
			fmt.Fprintf(b, "\t%s %s\n", f.name(i), t)
		}
		b.WriteString("}\n")
	}
	for h, hd := range p.Holders {
		if hd.Struct != nil && p.layoutOf(h) == h {
			decl(p.structName(h), hd.Struct)
		}
	}
	for j, v := range p.Outs {
		if v.Kind != ValStruct && v.Kind != ValPtr {
			continue
		}
		fmt.Fprintf(b, "type R%d struct {\n", j)
		for i := range v.Elems {
			fmt.Fprintf(b, "\tF%d %s\n", i, p.valueTypeText(j, &v.Elems[i]))
		}
		b.WriteString("}\n")
	}
}

// valueTypeText is the Go type of result value v (result j's, for a
// struct).
func (p *Program) valueTypeText(j int, v *Value) string {
	switch v.Kind {
	case ValInt:
		return "int"
	case ValFloat:
		return "float64"
	case ValDims:
		return "[]int64"
	case ValTensors:
		return "[]*lazy.Tensor"
	case ValStruct:
		return fmt.Sprintf("R%d", j)
	case ValPtr:
		return fmt.Sprintf("*R%d", j)
	case ValHolder:
		return p.holderTypeText(v.Holder)
	}
	return "*lazy.Tensor"
}

// fieldPaths maps each tensor parameter of s to its path from prefix
// (m0.S1.W2, v.L0[1]).
func fieldPaths(s *Struct, prefix string, out map[int]string) {
	for i, f := range s.Fields {
		path := prefix + "." + f.name(i)
		switch f.Kind {
		case FieldTensor:
			out[f.Params[0]] = path
		case FieldSlice:
			for j, a := range f.Params {
				out[a] = fmt.Sprintf("%s[%d]", path, j)
			}
		default:
			fieldPaths(f.Sub, path, out)
		}
	}
}

// formCase is the type switch case of form fm of holder h and the
// expression of each of its tensor parameters (from v, the case's value).
func (p *Program) formCase(h int, fm Form) (string, []string) {
	hd := &p.Holders[h]
	var exprs []string
	paths := map[int]string{}
	if hd.Struct != nil {
		fieldPaths(hd.Struct, "v", paths)
	}
	for j, i := range hd.params() {
		switch fm {
		case FormPtr, FormValue:
			exprs = append(exprs, paths[i])
		case FormSlice:
			exprs = append(exprs, fmt.Sprintf("v[%d]", j))
		case FormTensor:
			exprs = append(exprs, "v")
		default:
			exprs = append(exprs, "v.T")
		}
	}
	typ := map[Form]string{FormPtr: "*" + p.structName(h), FormValue: p.structName(h), FormSlice: "[]*lazy.Tensor",
		FormTensor: "*lazy.Tensor", FormRef: "*difftest.Ref", FormBox: "difftest.Box"}[fm]
	return typ, exprs
}

// holderText writes the function's first statements: the tensor
// parameters read out of their holders (through the pointer, or by a
// type switch that also sets the form variable).
func (p *Program) holderText(b *strings.Builder) {
	for h, hd := range p.Holders {
		var names []string
		for _, i := range hd.params() {
			names = append(names, fmt.Sprintf("a%d", i))
		}
		all := strings.Join(names, ", ")
		param := p.holderParam(h)
		k := fmt.Sprintf("k%d", h)
		switch hd.Iface {
		case IfaceNone:
			paths := map[int]string{}
			fieldPaths(hd.Struct, param, paths)
			var exprs []string
			for _, i := range hd.params() {
				exprs = append(exprs, paths[i])
			}
			fmt.Fprintf(b, "\t%s := %s\n", all, strings.Join(exprs, ", "))
			fmt.Fprintf(b, "\t%s = %s\n", blanks(len(names)), all)
			continue
		case IfaceTensorer:
			fmt.Fprintf(b, "\t%s := %s.Tensor()\n", all, param)
			fmt.Fprintf(b, "\tvar %s int\n\tswitch %s.(type) {\n", k, param)
			for _, fm := range hd.Forms {
				typ, _ := p.formCase(h, fm)
				fmt.Fprintf(b, "\tcase %s:\n\t\t%s = %d\n", typ, k, fm)
			}
		default:
			fmt.Fprintf(b, "\tvar %s *lazy.Tensor\n\tvar %s int\n\tswitch v := %s.(type) {\n", all, k, param)
			for _, fm := range hd.Forms {
				typ, exprs := p.formCase(h, fm)
				fmt.Fprintf(b, "\tcase %s:\n\t\t%s, %s = %s, %d\n", typ, all, k, strings.Join(exprs, ", "), fm)
			}
		}
		fmt.Fprintf(b, "\t}\n\t%s = %s, %s\n", blanks(len(names)+1), all, k)
	}
}

// blanks is "_, _, ..._" for n values.
func blanks(n int) string { return strings.TrimSuffix(strings.Repeat("_, ", n), ", ") }

// termText writes one addend of a number result.
func (p *Program) termText(t Term, float bool) string {
	var s string
	switch t.Kind {
	case TermConst:
		if float {
			return fnum(t.C)
		}
		return fmt.Sprint(int64(t.C))
	case TermStatic:
		s = staticName(int64(t.Index))
		if !float || !p.Statics[t.Index] {
			return s
		}
	case TermDim:
		s = fmt.Sprintf("%s.Dims()[%d]", p.regName(t.Index), t.Axis)
	case TermRank:
		s = fmt.Sprintf("%s.Rank()", p.regName(t.Index))
		if !float {
			return s
		}
	case TermForm:
		s = fmt.Sprintf("k%d", t.Index)
		if !float {
			return s
		}
	}
	if float {
		return "float64(" + s + ")"
	}
	return "int(" + s + ")"
}

// valueText is the expression of result value v (result j's) in the
// return statement.
func (p *Program) valueText(j int, v *Value) string {
	switch v.Kind {
	case ValTensor:
		return p.regName(p.Results[v.Res])
	case ValInt, ValFloat:
		var ts []string
		for _, t := range v.Terms {
			ts = append(ts, p.termText(t, v.Kind == ValFloat))
		}
		if len(ts) == 0 {
			return "0"
		}
		return strings.Join(ts, " + ")
	case ValDims:
		return fmt.Sprintf("append([]int64(nil), %s.Dims()...)", p.regName(v.Reg))
	case ValTensors:
		var es []string
		for i := range v.Elems {
			es = append(es, p.valueText(j, &v.Elems[i]))
		}
		return "[]*lazy.Tensor{" + strings.Join(es, ", ") + "}"
	case ValStruct, ValPtr:
		var fs []string
		for i := range v.Elems {
			fs = append(fs, fmt.Sprintf("F%d: %s", i, p.valueText(j, &v.Elems[i])))
		}
		s := fmt.Sprintf("R%d{%s}", j, strings.Join(fs, ", "))
		if v.Kind == ValPtr {
			s = "&" + s
		}
		return s
	}
	return p.holderParam(v.Holder)
}

// structLit is a literal of struct s (named name) holding the tensors
// named by names.
func structLit(s *Struct, name string, names []string) string {
	var fs []string
	for i, f := range s.Fields {
		var x string
		switch f.Kind {
		case FieldTensor:
			x = names[f.Params[0]]
		case FieldSlice:
			var es []string
			for _, a := range f.Params {
				es = append(es, names[a])
			}
			x = "[]*lazy.Tensor{" + strings.Join(es, ", ") + "}"
		case FieldSub:
			x = structLit(f.Sub, fmt.Sprintf("%s_%d", name, i), names)
		default:
			x = "&" + structLit(f.Sub, fmt.Sprintf("%s_%d", name, i), names)
		}
		fs = append(fs, f.name(i)+": "+x)
	}
	return name + "{" + strings.Join(fs, ", ") + "}"
}

// holderName is the caller's variable holding holder h's value in call k.
func (p *Program) holderName(k, h int) string {
	if j := p.twinOf(k, h); j >= 0 {
		return p.holderName(k, j)
	}
	if p.reusesHolder(k, h) {
		return p.holderName(k-1, h)
	}
	return fmt.Sprintf("g%d_%d", k, h)
}

// callArgsText writes the holder values of call k (names are its tensor
// arguments' names) and returns the arguments before the statics.
func (p *Program) callArgsText(b *strings.Builder, k int, names []string) []string {
	forms := p.formsOf(k)
	for h, hd := range p.Holders {
		if p.twinOf(k, h) >= 0 || p.reusesHolder(k, h) {
			continue
		}
		var x string
		switch fm := forms[h]; fm {
		case FormPtr, FormValue:
			x = structLit(hd.Struct, p.structName(h), names)
			if fm == FormPtr {
				x = "&" + x
			}
		case FormSlice:
			var es []string
			for _, i := range hd.params() {
				es = append(es, names[i])
			}
			x = "[]*lazy.Tensor{" + strings.Join(es, ", ") + "}"
		case FormTensor:
			x = names[hd.Param]
		case FormRef:
			x = fmt.Sprintf("&difftest.Ref{T: %s}", names[hd.Param])
		case FormBox:
			x = fmt.Sprintf("difftest.Box{T: %s}", names[hd.Param])
		}
		fmt.Fprintf(b, "%s := %s\n", p.holderName(k, h), x)
	}
	var in []string
	for _, gp := range p.goParams() {
		if gp.holder >= 0 {
			in = append(in, p.holderName(k, gp.holder))
		} else {
			in = append(in, names[gp.param])
		}
	}
	return in
}

// outNames names call k's Go results (a tensor result r<k>_<o>, another
// value o<k>_<j>).
func (p *Program) outNames(k int) []string {
	var out []string
	for j, v := range p.Outs {
		if v.Kind == ValTensor {
			out = append(out, fmt.Sprintf("r%d_%d", k, v.Res))
		} else {
			out = append(out, fmt.Sprintf("o%d_%d", k, j))
		}
	}
	return out
}

// outTensorsText writes, after call k, the tensors inside its result
// values as r<k>_<o> and returns their names.
func (p *Program) outTensorsText(b *strings.Builder, k int) []string {
	var names []string
	var walk func(v *Value, path string)
	walk = func(v *Value, path string) {
		switch v.Kind {
		case ValTensor:
			name := fmt.Sprintf("r%d_%d", k, v.Res)
			fmt.Fprintf(b, "%s := %s\n", name, path)
			names = append(names, name)
		case ValTensors:
			for i := range v.Elems {
				walk(&v.Elems[i], fmt.Sprintf("%s[%d]", path, i))
			}
		case ValStruct, ValPtr:
			for i := range v.Elems {
				walk(&v.Elems[i], fmt.Sprintf("%s.F%d", path, i))
			}
		}
	}
	for j := range p.Outs {
		if v := &p.Outs[j]; v.Kind != ValTensor {
			walk(v, fmt.Sprintf("o%d_%d", k, j))
		}
	}
	return names
}

// outUpdateText is a caller-side write into a result of call k.
func (p *Program) outUpdateText(k int, u OutUpdate) string {
	lhs, v := fmt.Sprintf("o%d_%d", k, u.Out), &p.Outs[u.Out]
	if u.Field >= 0 {
		lhs, v = fmt.Sprintf("%s.F%d", lhs, u.Field), &v.Elems[u.Field]
	}
	if u.Elem >= 0 {
		lhs += fmt.Sprintf("[%d]", u.Elem)
	}
	rhs := fmt.Sprint(int64(u.Value))
	switch v.Kind {
	case ValTensors:
		rhs = "nil"
	case ValFloat:
		rhs = fnum(u.Value)
	}
	return fmt.Sprintf("%s = %s // the caller writes to a result", lhs, rhs)
}
