package difftest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

var dimsType = reflect.TypeOf([]int64(nil))

// goType is the Go type of result value v.
func (v *Value) goType(p *Program) reflect.Type {
	switch v.Kind {
	case ValInt:
		return intType
	case ValFloat:
		return floatType
	case ValDims:
		return dimsType
	case ValTensors:
		return tensorsType
	case ValStruct:
		return v.structType(p)
	case ValPtr:
		return reflect.PointerTo(v.structType(p))
	case ValHolder:
		return p.Holders[v.Holder].goType()
	}
	return tensorType
}

// structType is the struct of a ValStruct or ValPtr: fields F0, F1, ...
func (v *Value) structType(p *Program) reflect.Type {
	fs := make([]reflect.StructField, len(v.Elems))
	for i := range v.Elems {
		fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: v.Elems[i].goType(p)}
	}
	return reflect.StructOf(fs)
}

// eval sums the terms of a number result in the body's end state.
func (e *env) eval(terms []Term) float64 {
	s := 0.0
	for _, t := range terms {
		switch t.Kind {
		case TermConst:
			s += t.C
		case TermStatic:
			s += e.statics[t.Index]
		case TermDim:
			s += float64(e.regs[t.Index].Dims()[t.Axis])
		case TermRank:
			s += float64(e.regs[t.Index].Rank())
		case TermForm:
			s += float64(e.forms[t.Index])
		}
	}
	return s
}

// build makes result value v at the end of the body (outs are the tensor
// results), as the printed return statement does.
func (v *Value) build(p *Program, e *env, outs []*lazy.Tensor) reflect.Value {
	switch v.Kind {
	case ValTensor:
		return reflect.ValueOf(outs[v.Res])
	case ValInt:
		return reflect.ValueOf(int(e.eval(v.Terms)))
	case ValFloat:
		return reflect.ValueOf(e.eval(v.Terms))
	case ValDims:
		return reflect.ValueOf(append([]int64(nil), e.regs[v.Reg].Dims()...))
	case ValTensors:
		ts := make([]*lazy.Tensor, len(v.Elems))
		for i, x := range v.Elems {
			ts[i] = outs[x.Res]
		}
		return reflect.ValueOf(ts)
	case ValStruct, ValPtr:
		s := reflect.New(v.structType(p))
		for i := range v.Elems {
			s.Elem().Field(i).Set(v.Elems[i].build(p, e, outs))
		}
		if v.Kind == ValPtr {
			return s
		}
		return s.Elem()
	}
	return e.holders[v.Holder]
}

// collect puts the tensors of x, a Go result laid out as v, into ts (ok
// false when x does not fit the layout).
func (v *Value) collect(x reflect.Value, ts []*lazy.Tensor) bool {
	switch v.Kind {
	case ValTensor:
		ts[v.Res], _ = x.Interface().(*lazy.Tensor)
	case ValTensors:
		if x.Len() != len(v.Elems) {
			return false
		}
		for i := range v.Elems {
			if !v.Elems[i].collect(x.Index(i), ts) {
				return false
			}
		}
	case ValPtr:
		if x.IsNil() {
			return false
		}
		return (&Value{Kind: ValStruct, Elems: v.Elems}).collect(x.Elem(), ts)
	case ValStruct:
		for i := range v.Elems {
			if !v.Elems[i].collect(x.Field(i), ts) {
				return false
			}
		}
	}
	return true
}

// outRenderer writes the non-tensor parts of results as text, so that two
// modes' results compare as strings: numbers exactly, slices' lengths and
// elements (tensors as T, their values and identities are compared as
// results), nils, and which pointers and slice arrays are the same (each
// numbered in the order first seen; a holder the call passed is "arg").
type outRenderer struct{ ids map[uintptr]int }

func (r *outRenderer) id(ptr uintptr) string {
	if r.ids == nil {
		r.ids = map[uintptr]int{}
	}
	n, ok := r.ids[ptr]
	if !ok {
		n = len(r.ids)
		r.ids[ptr] = n
	}
	return "#" + strconv.Itoa(n)
}

// render writes call results vars (laid out by p.Outs) given the holder
// values hv the call passed.
func (r *outRenderer) render(p *Program, vars, hv []reflect.Value) string {
	var b strings.Builder
	for j := range p.Outs {
		if j > 0 {
			b.WriteString(", ")
		}
		r.value(&b, &p.Outs[j], vars[j], hv)
	}
	return b.String()
}

func (r *outRenderer) value(b *strings.Builder, v *Value, x reflect.Value, hv []reflect.Value) {
	switch v.Kind {
	case ValTensor:
		if x.IsNil() {
			b.WriteString("nil")
		} else {
			b.WriteString("T")
		}
	case ValInt:
		b.WriteString(strconv.FormatInt(x.Int(), 10))
	case ValFloat:
		b.WriteString(strconv.FormatFloat(x.Float(), 'g', -1, 64))
	case ValDims, ValTensors:
		if x.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("[")
		for i := 0; i < x.Len(); i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			if v.Kind == ValDims {
				b.WriteString(strconv.FormatInt(x.Index(i).Int(), 10))
			} else if x.Index(i).IsNil() {
				b.WriteString("nil")
			} else {
				b.WriteString("T")
			}
		}
		b.WriteString("]")
		if x.Len() > 0 {
			b.WriteString(r.id(x.Pointer()))
		}
	case ValStruct, ValPtr:
		if v.Kind == ValPtr {
			if x.IsNil() {
				b.WriteString("nil")
				return
			}
			b.WriteString("&" + r.id(x.Pointer()))
			x = x.Elem()
		}
		b.WriteString("{")
		for i := range v.Elems {
			if i > 0 {
				b.WriteString(" ")
			}
			r.value(b, &v.Elems[i], x.Field(i), hv)
		}
		b.WriteString("}")
	case ValHolder:
		switch {
		case x.IsNil():
			b.WriteString("nil")
		case v.Holder < len(hv) && hv[v.Holder].Pointer() == x.Pointer():
			b.WriteString("arg")
		default:
			b.WriteString("&" + r.id(x.Pointer()))
		}
	}
}

// mutateOut applies a caller-side write to vars, a call's results (as
// settable variables); ok false when it does not fit them.
func (p *Program) mutateOut(vars []reflect.Value, u OutUpdate) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	x, v := vars[u.Out], &p.Outs[u.Out]
	if u.Field >= 0 {
		if v.Kind == ValPtr {
			x = x.Elem()
		}
		x, v = x.Field(u.Field), &v.Elems[u.Field]
	}
	if u.Elem >= 0 {
		x = x.Index(u.Elem)
	}
	switch {
	case v.Kind == ValTensors:
		x.Set(reflect.Zero(tensorType))
	case v.Kind == ValFloat:
		x.SetFloat(u.Value)
	default:
		x.SetInt(int64(u.Value))
	}
	return true
}
