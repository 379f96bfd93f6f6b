package jit

import (
	"fmt"
	"reflect"
	"sync"
)

// The guard key names the dynamic type of a value held in an interface.
// reflect.Type.String() is not unique: it qualifies a named type by its
// package's name, not its path, and two types declared inside functions of
// one package may share a name. typeKey is unique among the types of one
// process: the type's string, its package path for a named type, and a
// "#n" suffix for the n-th further type found with both equal (types
// local to functions). The suffix depends on the order types are first
// seen, so an ahead-of-time guard naming such a type holds only where
// that order is the same; the string and path alone are stable.
var typeKeys struct {
	sync.Mutex
	of    sync.Map // reflect.Type -> string
	taken map[string]int
}

// typeKey returns t's name in guard keys.
func typeKey(t reflect.Type) string {
	if s, ok := typeKeys.of.Load(t); ok {
		return s.(string)
	}
	typeKeys.Lock()
	defer typeKeys.Unlock()
	if s, ok := typeKeys.of.Load(t); ok {
		return s.(string)
	}
	base := t.String()
	if p := t.PkgPath(); p != "" {
		base += "@" + p
	}
	if typeKeys.taken == nil {
		typeKeys.taken = map[string]int{}
	}
	s := base
	if n := typeKeys.taken[base]; n > 0 {
		s = fmt.Sprintf("%s#%d", base, n)
	}
	typeKeys.taken[base]++
	typeKeys.of.Store(t, s)
	return s
}
