package difftest

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/xlajit/xlajit/lazy"
)

// Tensorer is the small interface an InterfaceArgs parameter may have:
// something that hands out a tensor (exported so that printed programs
// compile elsewhere).
type Tensorer interface{ Tensor() *lazy.Tensor }

// Box holds a tensor by value (a Tensorer with a value receiver).
type Box struct{ T *lazy.Tensor }

// Tensor returns the tensor the box holds.
func (b Box) Tensor() *lazy.Tensor { return b.T }

// Ref holds a tensor behind a pointer (a Tensorer with a pointer
// receiver).
type Ref struct{ T *lazy.Tensor }

// Tensor returns the tensor r holds.
func (r *Ref) Tensor() *lazy.Tensor { return r.T }

var (
	anyType      = reflect.TypeOf((*any)(nil)).Elem()
	tensorerType = reflect.TypeOf((*Tensorer)(nil)).Elem()
	refType      = reflect.TypeOf((*Ref)(nil))
	boxType      = reflect.TypeOf(Box{})
)

// name names field i of a generated struct: W<i> for a tensor, L<i> for
// a slice, S<i> for a nested struct, in lower case when hidden (so that
// structs of one layout are one Go type, whatever parameters they hold).
func (f *Field) name(i int) string {
	var n string
	switch f.Kind {
	case FieldTensor:
		n = fmt.Sprintf("W%d", i)
	case FieldSlice:
		n = fmt.Sprintf("L%d", i)
	default:
		n = fmt.Sprintf("S%d", i)
	}
	if f.Hidden {
		return strings.ToLower(n)
	}
	return n
}

// fieldOf returns field i of v as a value that can be read, an unexported
// one too, and set when v is addressable.
func fieldOf(v reflect.Value, i int) reflect.Value {
	x := v.Field(i)
	if x.CanSet() {
		return x
	}
	if !x.CanAddr() {
		// A struct held by value (in an interface): read a copy.
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		x = c.Field(i)
	}
	return reflect.NewAt(x.Type(), unsafe.Pointer(x.UnsafeAddr())).Elem()
}

// goType is the struct's Go type (reflect.StructOf returns one type for
// one field list).
func (s *Struct) goType() reflect.Type {
	fs := make([]reflect.StructField, len(s.Fields))
	for i := range s.Fields {
		f := &s.Fields[i]
		var t reflect.Type
		switch f.Kind {
		case FieldTensor:
			t = tensorType
		case FieldSlice:
			t = tensorsType
		case FieldSub:
			t = f.Sub.goType()
		default:
			t = reflect.PointerTo(f.Sub.goType())
		}
		fs[i] = reflect.StructField{Name: f.name(i), Type: t}
		if f.Hidden {
			fs[i].PkgPath = structPkgPath
		}
	}
	return reflect.StructOf(fs)
}

// structPkgPath is the package generated structs' unexported fields
// belong to.
var structPkgPath = reflect.TypeOf(Box{}).PkgPath()

// goType is the holder parameter's static Go type.
func (h *Holder) goType() reflect.Type {
	switch h.Iface {
	case IfaceAny:
		return anyType
	case IfaceTensorer:
		return tensorerType
	}
	return reflect.PointerTo(h.Struct.goType())
}

// fill sets the fields of v, a value of the struct's type, to the tensors
// of args.
func (s *Struct) fill(v reflect.Value, args []*lazy.Tensor) {
	for i, f := range s.Fields {
		switch f.Kind {
		case FieldTensor:
			fieldOf(v, i).Set(reflect.ValueOf(args[f.Params[0]]))
		case FieldSlice:
			ts := make([]*lazy.Tensor, len(f.Params))
			for j, a := range f.Params {
				ts[j] = args[a]
			}
			fieldOf(v, i).Set(reflect.ValueOf(ts))
		case FieldSub:
			f.Sub.fill(fieldOf(v, i), args)
		default:
			ptr := reflect.New(f.Sub.goType())
			f.Sub.fill(ptr.Elem(), args)
			fieldOf(v, i).Set(ptr)
		}
	}
}

// read sets args from the fields of v, a value of the struct's type.
func (s *Struct) read(v reflect.Value, args []*lazy.Tensor) {
	for i, f := range s.Fields {
		x := fieldOf(v, i)
		switch f.Kind {
		case FieldTensor:
			args[f.Params[0]] = x.Interface().(*lazy.Tensor)
		case FieldSlice:
			for j, a := range f.Params {
				args[a] = x.Index(j).Interface().(*lazy.Tensor)
			}
		case FieldSub:
			f.Sub.read(x, args)
		default:
			f.Sub.read(x.Elem(), args)
		}
	}
}

// asType returns v (a holder value, possibly in an interface) as a value
// of type t.
func asType(v reflect.Value, t reflect.Type) reflect.Value {
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	out := reflect.New(t).Elem()
	out.Set(v)
	return out
}

// value builds the Go value the caller passes for holder h in form fm
// from the call's argument tensors (a value of the holder's static type).
func (h *Holder) value(fm Form, args []*lazy.Tensor) reflect.Value {
	var v reflect.Value
	switch fm {
	case FormPtr:
		v = reflect.New(h.Struct.goType())
		h.Struct.fill(v.Elem(), args)
	case FormValue:
		v = reflect.New(h.Struct.goType()).Elem()
		h.Struct.fill(v, args)
	case FormSlice:
		var ts []*lazy.Tensor
		for _, i := range h.Struct.params() {
			ts = append(ts, args[i])
		}
		v = reflect.ValueOf(ts)
	case FormTensor:
		v = reflect.ValueOf(args[h.Param])
	case FormRef:
		v = reflect.ValueOf(&Ref{T: args[h.Param]})
	case FormBox:
		v = reflect.ValueOf(Box{T: args[h.Param]})
	}
	out := reflect.New(h.goType()).Elem()
	out.Set(v)
	return out
}

// formOf is the form of x, a holder's dynamic value, among the forms of
// its type switch (ok false for another type).
func (h *Holder) formOf(x reflect.Value) (Form, bool) {
	if h.Iface == IfaceNone {
		return FormPtr, true
	}
	if x.IsNil() {
		return 0, false
	}
	t := x.Elem().Type()
	for _, fm := range h.Forms {
		var want reflect.Type
		switch fm {
		case FormPtr:
			want = reflect.PointerTo(h.Struct.goType())
		case FormValue:
			want = h.Struct.goType()
		case FormSlice:
			want = tensorsType
		case FormTensor:
			want = tensorType
		case FormRef:
			want = refType
		case FormBox:
			want = boxType
		}
		if t == want {
			return fm, true
		}
	}
	return 0, false
}

// extract is the function's side of a holder: it reads the tensors of x,
// the holder parameter, into args, as the printed type switch does, and
// returns the form.
func (h *Holder) extract(x reflect.Value, args []*lazy.Tensor) Form {
	fm, ok := h.formOf(x)
	if !ok {
		panic(&harnessError{fmt.Sprintf("holder of type %s holds a %s", x.Type(), x.Elem().Type())})
	}
	switch h.Iface {
	case IfaceNone:
		h.Struct.read(x.Elem(), args)
		return fm
	case IfaceTensorer:
		args[h.Param] = x.Interface().(Tensorer).Tensor()
		return fm
	}
	e := x.Elem()
	switch fm {
	case FormPtr:
		h.Struct.read(e.Elem(), args)
	case FormValue:
		h.Struct.read(e, args)
	case FormSlice:
		for j, i := range h.Struct.params() {
			args[i] = e.Index(j).Interface().(*lazy.Tensor)
		}
	case FormTensor:
		args[h.Param] = e.Interface().(*lazy.Tensor)
	case FormRef:
		args[h.Param] = e.Interface().(*Ref).T
	case FormBox:
		args[h.Param] = e.Interface().(Box).T
	}
	return fm
}
