package jit

import (
	"fmt"
	"reflect"
)

// maxArgDepth bounds how deep argument values are walked: deeper values
// are either cyclic (an error naming the cycle) or too deep to guard.
const maxArgDepth = 256

// errArgTooDeep is the panic of a codec that went past maxArgDepth.
type errArgTooDeep struct{}

// findCycle returns the path at which an argument list refers back to a
// pointer it is inside of ("arg 0.Next.Next"), or "".
func findCycle(args []reflect.Value) string {
	onPath := map[uintptr]bool{}
	var walk func(path string, v reflect.Value, depth int) string
	walk = func(path string, v reflect.Value, depth int) string {
		if depth > maxArgDepth {
			return ""
		}
		t := v.Type()
		if t == tensorPtrType {
			return ""
		}
		switch t.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return ""
			}
			p := v.Pointer()
			if onPath[p] {
				return path
			}
			onPath[p] = true
			defer delete(onPath, p)
			return walk(path, v.Elem(), depth+1)
		case reflect.Interface:
			if v.IsNil() {
				return ""
			}
			return walk(path, v.Elem(), depth+1)
		case reflect.Slice, reflect.Array:
			if t.Kind() == reflect.Slice && v.Len() > 0 {
				p := v.Pointer()
				if onPath[p] {
					return path
				}
				onPath[p] = true
				defer delete(onPath, p)
			}
			for i := 0; i < v.Len(); i++ {
				if c := walk(IndexPath(path, i), v.Index(i), depth+1); c != "" {
					return c
				}
			}
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if c := walk(FieldPath(path, t.Field(i)), v.Field(i), depth+1); c != "" {
					return c
				}
			}
		}
		return ""
	}
	for i, a := range args {
		if c := walk(argPath(i), a, 0); c != "" {
			return c
		}
	}
	return ""
}

// deepArgError is the error for an argument too deep to encode.
func deepArgError(args []reflect.Value) *Error {
	if c := findCycle(args); c != "" {
		return &Error{Msg: fmt.Sprintf("argument %s points back to a value it is inside of (a cycle); jit arguments must not be cyclic", c)}
	}
	return &Error{Msg: fmt.Sprintf("arguments nest deeper than %d values", maxArgDepth)}
}
