package jit

import (
	"reflect"
	"sync"
)

// Non-tensor results (a shape as []int64, a pointer to a config, a map
// in an interface) are what the traced call returned. A replay does not run the
// function, so it cannot build them again; it returns a copy of them, as
// the plain function returns a value of its own on every call: a caller
// that changes one call's slice must not change the next call's. The
// entry keeps a private copy (the traced call's caller owns the original).
// Copies are deep through slices, arrays, maps, pointers, interfaces and
// exported struct fields, and keep aliasing within one result (two
// pointers to one value point to one copy); unexported fields, functions
// and channels are shared as they are. A result that is one of the call's
// own arguments (the same pointer, slice or map) is not a copy: the
// replayed call returns its own argument there (planCallArg).

// valuePlan plans a non-tensor result v of type t.
func valuePlan(t reflect.Type, v reflect.Value) *outPlan {
	p := &outPlan{kind: planValue, typ: t, val: v}
	if hasReferences(t) {
		p.copy = true
		p.val = deepCopy(v, map[copyKey]reflect.Value{})
	}
	return p
}

// hasReferences reports whether values of type t can share mutable
// memory with a copy of them (through a slice, map, pointer or interface),
// remembered per type: replays ask it for every slice they copy.
func hasReferences(t reflect.Type) bool {
	if r, ok := typeRefs.Load(t); ok {
		return r.(bool)
	}
	r := referencesBeside(t, nil, map[reflect.Type]bool{})
	typeRefs.Store(t, r)
	return r
}

var typeRefs sync.Map // reflect.Type -> bool (hasReferences)

// referencesBeside reports whether type t holds a slice, map, pointer or
// interface (directly, or in arrays and struct fields), not counting
// values of type except.
func referencesBeside(t, except reflect.Type, seen map[reflect.Type]bool) bool {
	if t == except || seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
		return true
	case reflect.Array:
		return referencesBeside(t.Elem(), except, seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if referencesBeside(t.Field(i).Type, except, seen) {
				return true
			}
		}
	}
	return false
}

// copyKey identifies memory already copied: a pointer's target or a
// slice's backing array (its first element and length), by type.
type copyKey struct {
	t   reflect.Type
	ptr uintptr
	n   int
}

// deepCopy returns a copy of v that shares no slice, map or pointer with
// it (see above); done maps what was copied to its copy.
func deepCopy(v reflect.Value, done map[copyKey]reflect.Value) reflect.Value {
	t := v.Type()
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		k := copyKey{t, v.Pointer(), v.Len()}
		if c, ok := done[k]; ok {
			return c
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		done[k] = c
		if !hasReferences(t.Elem()) {
			reflect.Copy(c, v) // plain elements: one copy
			return c
		}
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(deepCopy(v.Index(i), done))
		}
		return c
	case reflect.Array:
		c := reflect.New(t).Elem()
		if !hasReferences(t.Elem()) {
			c.Set(v)
			return c
		}
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(deepCopy(v.Index(i), done))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		k := copyKey{t, v.Pointer(), -1}
		if c, ok := done[k]; ok {
			return c
		}
		c := reflect.MakeMapWithSize(t, v.Len())
		done[k] = c
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(deepCopy(it.Key(), done), deepCopy(it.Value(), done))
		}
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		k := copyKey{t, v.Pointer(), -1}
		if c, ok := done[k]; ok {
			return c
		}
		c := reflect.New(t.Elem())
		done[k] = c
		c.Elem().Set(deepCopy(v.Elem(), done))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(t).Elem()
		c.Set(deepCopy(v.Elem(), done))
		return c
	case reflect.Struct:
		c := reflect.New(t).Elem()
		c.Set(v) // unexported fields as they are
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				c.Field(i).Set(deepCopy(v.Field(i), done))
			}
		}
		return c
	}
	return v
}
