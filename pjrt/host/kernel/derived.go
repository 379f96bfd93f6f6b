package kernel

import (
	"runtime"
	"sync"
	"unsafe"
	"weak"

	"github.com/xlajit/xlajit/hlo"
)

// Derived data: a kernel may keep what it computed from an operand (a
// packed copy of a weight matrix for the GEMM) for later executions, as
// long as that operand cannot change. Only entry arguments the caller
// marked stable qualify (Ctx.StableArgs: device buffers, which are
// immutable, that the execution does not donate). A donated argument's
// storage may be overwritten in place by the results of the execution it
// is donated to, so the planner drops its derived data first
// (ForgetDerived); a literal that Go collects takes its derived data with
// it. Entries are found by the literal's identity (a weak pointer, which
// never matches a later literal at the same address) and a kernel's own
// key for what it derived.
//
// The data lives outside the device's memory account, so its total is
// bounded (DerivedBudget); past it, the least recently used entries go.

// DerivedBudget is the most bytes of derived data kept at once.
var DerivedBudget int64 = 256 << 20

type derivedKey struct {
	lit  weak.Pointer[hlo.Literal]
	kind any
}

type derivedEntry struct {
	val   any
	bytes int64
	used  uint64 // the clock at the last use
}

var derived = struct {
	sync.Mutex
	m       map[derivedKey]*derivedEntry
	kinds   map[weak.Pointer[hlo.Literal]][]any // the kinds kept per literal
	watched map[weak.Pointer[hlo.Literal]]bool  // literals with a cleanup registered
	// addrs counts the literals with entries by address, so that
	// ForgetDerived tells a literal without any from its address alone (a
	// weak pointer to a literal that has none allocates); a collected
	// literal's address may linger until its cleanup, making a lookup.
	addrs  map[uintptr]int
	addrOf map[weak.Pointer[hlo.Literal]]uintptr
	bytes  int64
	clock  uint64
}{m: map[derivedKey]*derivedEntry{}, kinds: map[weak.Pointer[hlo.Literal]][]any{}, watched: map[weak.Pointer[hlo.Literal]]bool{},
	addrs: map[uintptr]int{}, addrOf: map[weak.Pointer[hlo.Literal]]uintptr{}}

// IsStable reports whether l is an entry argument of this execution that
// cannot change while it lives (see Ctx.StableArgs).
func (x *Ctx) IsStable(l *hlo.Literal) bool {
	if x == nil {
		return false
	}
	for _, s := range x.StableArgs {
		if s == l {
			return true
		}
	}
	return false
}

// Derived returns the data kept for l under kind, if any. Only stable
// literals have any.
func Derived(x *Ctx, l *hlo.Literal, kind any) (any, bool) {
	if !x.IsStable(l) {
		return nil, false
	}
	k := derivedKey{weak.Make(l), kind}
	derived.Lock()
	defer derived.Unlock()
	e := derived.m[k]
	if e == nil {
		return nil, false
	}
	derived.clock++
	e.used = derived.clock
	return e.val, true
}

// KeepDerived keeps v (bytes large) as l's data under kind when l is
// stable and v fits the budget, evicting the least recently used entries
// as needed. v must never be modified afterwards.
func KeepDerived(x *Ctx, l *hlo.Literal, kind any, v any, bytes int64) {
	if !x.IsStable(l) || bytes > DerivedBudget {
		return
	}
	w := weak.Make(l)
	k := derivedKey{w, kind}
	derived.Lock()
	defer derived.Unlock()
	if old := derived.m[k]; old != nil {
		derived.bytes -= old.bytes
	} else {
		if !derived.watched[w] {
			// Drop l's entries when Go collects it.
			derived.watched[w] = true
			runtime.AddCleanup(l, collected, w)
		}
		if len(derived.kinds[w]) == 0 {
			a := uintptr(unsafe.Pointer(l))
			derived.addrs[a]++
			derived.addrOf[w] = a
		}
		derived.kinds[w] = append(derived.kinds[w], kind)
	}
	for derived.bytes+bytes > DerivedBudget {
		evictOldest()
	}
	derived.clock++
	derived.m[k] = &derivedEntry{val: v, bytes: bytes, used: derived.clock}
	derived.bytes += bytes
}

// evictOldest drops the least recently used entry (derived is locked).
func evictOldest() {
	var oldest derivedKey
	var e *derivedEntry
	for k, v := range derived.m {
		if e == nil || v.used < e.used {
			oldest, e = k, v
		}
	}
	if e == nil {
		return
	}
	dropEntry(oldest)
}

// dropEntry removes one entry (derived is locked).
func dropEntry(k derivedKey) {
	e := derived.m[k]
	if e == nil {
		return
	}
	delete(derived.m, k)
	derived.bytes -= e.bytes
	kinds := derived.kinds[k.lit]
	for i, kd := range kinds {
		if kd == k.kind {
			kinds = append(kinds[:i], kinds[i+1:]...)
			break
		}
	}
	if len(kinds) == 0 {
		delete(derived.kinds, k.lit)
		a := derived.addrOf[k.lit]
		delete(derived.addrOf, k.lit)
		if derived.addrs[a]--; derived.addrs[a] <= 0 {
			delete(derived.addrs, a)
		}
	} else {
		derived.kinds[k.lit] = kinds
	}
}

// ForgetDerived drops every entry kept for l (its storage is about to be
// reused).
func ForgetDerived(l *hlo.Literal) {
	derived.Lock()
	none := derived.addrs[uintptr(unsafe.Pointer(l))] == 0
	derived.Unlock()
	if none {
		return // nothing kept for l: no weak pointer to make (it allocates)
	}
	forgetWeak(weak.Make(l))
}

// collected runs when Go collects a literal that had derived data.
func collected(w weak.Pointer[hlo.Literal]) {
	forgetWeak(w)
	derived.Lock()
	delete(derived.watched, w)
	derived.Unlock()
}

func forgetWeak(w weak.Pointer[hlo.Literal]) {
	derived.Lock()
	defer derived.Unlock()
	for _, kind := range append([]any(nil), derived.kinds[w]...) {
		dropEntry(derivedKey{w, kind})
	}
}

// DerivedBytes is the total size of the data kept now.
func DerivedBytes() int64 {
	derived.Lock()
	defer derived.Unlock()
	return derived.bytes
}

// DerivedCount is the number of entries kept for l.
func DerivedCount(l *hlo.Literal) int {
	derived.Lock()
	defer derived.Unlock()
	return len(derived.kinds[weak.Make(l)])
}
