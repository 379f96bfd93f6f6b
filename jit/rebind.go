package jit

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// A traced function that replaces a tensor its caller can see (m.W =
// m.W.Sub(g) on a model passed by pointer) instead of writing into it
// (m.W.Assign(...)) changes Go memory, which a replay does not repeat: the
// plain function leaves m.W holding the new value after every call. The
// trace notices by comparing the tensors reachable from the arguments
// before and after the call, puts them back, and makes the call a graph
// break (an error under FullGraph): calls with that signature run the
// function as it is.

// tensorSlot is a place holding a tensor: its path and the settable value.
type tensorSlot struct {
	path string
	v    reflect.Value
}

// tensorSlots lists the places in args holding tensors.
func tensorSlots(args []reflect.Value) []tensorSlot {
	var out []tensorSlot
	for i, a := range args {
		walkSlots(argPath(i), a, 0, &out)
	}
	return out
}

func walkSlots(path string, v reflect.Value, depth int, out *[]tensorSlot) {
	if depth > maxArgDepth {
		return
	}
	t := v.Type()
	if t == tensorPtrType {
		*out = append(*out, tensorSlot{path, v})
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkSlots(IndexPath(path, i), v.Index(i), depth+1, out)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkSlots(path, v.Elem(), depth+1, out)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			walkSlots(FieldPath(path, t.Field(i)), v.Field(i), depth+1, out)
		}
	}
}

// binding is what a slot held before a call.
type binding struct {
	slot tensorSlot
	was  *lazy.Tensor
}

// bindingsOf records what every slot of args holds.
func bindingsOf(args []reflect.Value) []binding {
	slots := tensorSlots(args)
	out := make([]binding, len(slots))
	for i, s := range slots {
		var t *lazy.Tensor
		if !s.v.IsNil() {
			t = (*lazy.Tensor)(s.v.UnsafePointer())
		}
		out[i] = binding{s, t}
	}
	return out
}

// rebound returns the bindings whose slot holds another tensor now.
func rebound(bs []binding) []binding {
	var out []binding
	for _, b := range bs {
		var now *lazy.Tensor
		if !b.slot.v.IsNil() {
			now = (*lazy.Tensor)(b.slot.v.UnsafePointer())
		}
		if now != b.was {
			out = append(out, b)
		}
	}
	return out
}

// restore puts the old tensors back, unexported fields included (the
// trace's stand-ins go there too). A place that is not addressable (in a
// struct passed by value) is the call's own copy.
func restore(bs []binding) {
	for _, b := range bs {
		if b.slot.v.CanAddr() {
			settable(b.slot.v).Set(reflect.ValueOf(b.was))
		}
	}
}

// reboundMessage explains a replaced tensor and the fix.
func reboundMessage(bs []binding) string {
	paths := make([]string, len(bs))
	for i, b := range bs {
		paths[i] = b.slot.path
	}
	p := strings.Join(paths, ", ")
	return fmt.Sprintf("the function replaced the tensor at %s with another one (a Go assignment such as m.W = m.W.Sub(g)); "+
		"a replay repeats tensor operations, not Go assignments, so calls with this signature run the function as it is: write into the tensor instead (%s.Assign(...))", p, paths[0])
}
