package jit

import (
	"log"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/xlajit/xlajit/lazy"
)

// A trace runs the function on stand-ins ("proxies") of the argument
// tensors: every place reachable from the arguments that holds a tensor
// holds, while the trace runs, a new tensor with the same contents (one per
// distinct tensor, so aliasing among the arguments stays). A read through
// the arguments then reads a proxy, a read of the same tensor through a
// closure variable reads the original, and the two are told apart: Go gives
// no other way to see that the function reaches an argument by another
// path. The places get their tensors back when the trace ends.

// Stand-ins sit in the caller's memory while a trace runs, where another
// goroutine may read them: a call of any compiled function walks such
// arguments under the read lock of callerMem, which a trace holds for
// writing while its stand-ins are in (fnState.reachesCaller), so neither a
// call nor another trace takes a stand-in for an argument tensor (another
// trace would record it as the place's tensor and put it back after the
// first had restored the place). A trace of a function
// that captures a tensor through a closure variable may still capture a
// stand-in: proxies maps every stand-in to its tensor while any trace that
// may have seen it runs, and a trace's captures are mapped back
// (originals) before its entry keeps them.

// callerMem is held for writing by a trace whose stand-ins are in the
// caller's memory, and for reading by a call walking arguments that reach
// it. A nested compiled call inside a trace is inlined and takes no lock.
var callerMem sync.RWMutex

// callerMemHolder names the function whose trace holds callerMem for
// writing (for the warning of readCallerMem).
var callerMemHolder atomic.Pointer[string]

// callerMemWarnAfter is how long a call waits for callerMem before it
// warns that it may be in a deadlock.
var callerMemWarnAfter = 10 * time.Second

// lockCallerMem takes callerMem for writing for the trace of fn.
func lockCallerMem(fn string) {
	callerMem.Lock()
	callerMemHolder.Store(&fn)
}

func unlockCallerMem() {
	callerMemHolder.Store(nil)
	callerMem.Unlock()
}

// readCallerMem takes callerMem for reading for a call of fn. A call that
// waits long for another function's trace warns once: a traced function
// that waits for this call (from a goroutine it started) never finishes
// its trace, and a hang should name its cause.
func readCallerMem(fn string) {
	if callerMem.TryRLock() {
		return
	}
	t := time.AfterFunc(callerMemWarnAfter, func() {
		holder := "another function"
		if h := callerMemHolder.Load(); h != nil {
			holder = *h
		}
		log.Printf("xlajit: warning: a call of %s has waited %v for a trace of %s to finish (a trace puts stand-ins in memory both reach, on any call with a new input signature); if that function waits for this call (from a goroutine it started), this is a deadlock: call compiled functions with pointer arguments outside traced ones, or pass them tensors (see package jit's doc)", fn, callerMemWarnAfter, holder)
	})
	callerMem.RLock()
	t.Stop()
}

var proxies struct {
	sync.Mutex
	of       map[*lazy.Tensor]*lazy.Tensor // stand-in -> its tensor
	inFlight int                           // traces running
	retired  []*lazy.Tensor                // stand-ins put back, dropped from of once no trace runs
}

func beginTrace() {
	proxies.Lock()
	proxies.inFlight++
	proxies.Unlock()
}

func endTrace() {
	proxies.Lock()
	defer proxies.Unlock()
	if proxies.inFlight--; proxies.inFlight == 0 {
		for _, p := range proxies.retired {
			delete(proxies.of, p)
		}
		proxies.retired = nil
	}
}

// originals returns caps with every stand-in replaced by its tensor (caps
// itself when none is a stand-in).
func originals(caps []*lazy.Tensor) []*lazy.Tensor {
	proxies.Lock()
	defer proxies.Unlock()
	if len(proxies.of) == 0 {
		return caps
	}
	var out []*lazy.Tensor
	for i, c := range caps {
		if o := proxies.of[c]; o != nil {
			if out == nil {
				out = slices.Clone(caps)
			}
			out[i] = o
		}
	}
	if out == nil {
		return caps
	}
	return out
}

// proxySet is the stand-ins of one trace.
type proxySet struct {
	slots []reflect.Value // settable places holding tensors
	orig  []*lazy.Tensor  // what each place held
	of    map[*lazy.Tensor]*lazy.Tensor
	made  map[*lazy.Tensor]bool // the stand-ins (values of of)
	// ifaces are interface places holding a proxied copy of their dynamic
	// value, and ifaceOrig what each held.
	ifaces, ifaceOrig []reflect.Value
}

// installProxies returns the arguments to call the function with (copies of
// args whose tensors, and those reachable through them, are proxies) and
// the set to restore afterwards.
func installProxies(args []reflect.Value) ([]reflect.Value, *proxySet) {
	ps := &proxySet{of: map[*lazy.Tensor]*lazy.Tensor{}, made: map[*lazy.Tensor]bool{}}
	out := make([]reflect.Value, len(args))
	for i, a := range args {
		c := reflect.New(a.Type()).Elem()
		c.Set(a)
		out[i] = c
		ps.walk(c, 0)
	}
	if len(ps.of) > 0 {
		proxies.Lock()
		if proxies.of == nil {
			proxies.of = map[*lazy.Tensor]*lazy.Tensor{}
		}
		for x, p := range ps.of {
			proxies.of[p] = x
		}
		proxies.Unlock()
	}
	return out, ps
}

func (ps *proxySet) walk(v reflect.Value, depth int) {
	if depth > maxArgDepth {
		return
	}
	t := v.Type()
	if t == tensorPtrType {
		if v.IsNil() {
			return
		}
		x := (*lazy.Tensor)(v.UnsafePointer())
		if ps.made[x] {
			// A place reached before, by another path (one struct passed
			// twice, tied weights, one slice's array twice): it holds
			// this trace's stand-in already, and the first visit recorded
			// its tensor.
			return
		}
		p := ps.of[x]
		if p == nil {
			p = x.Share()
			ps.of[x] = p
			ps.made[p] = true
		}
		s := settable(v)
		ps.slots = append(ps.slots, s)
		ps.orig = append(ps.orig, x)
		s.Set(reflect.ValueOf(p))
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			ps.walk(v.Index(i), depth+1)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			ps.walk(v.Elem(), depth+1)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer && e.Type() != tensorPtrType {
			// A pointer's target is addressable.
			if !e.IsNil() {
				ps.walk(e.Elem(), depth+1)
			}
			return
		}
		// The dynamic value (a tensor, a struct or array of them) is not
		// addressable: while the trace runs the interface holds a copy
		// whose tensors are proxies.
		if !v.CanAddr() {
			return
		}
		s := settable(v) // an unexported field's too
		e = s.Elem()
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		n := len(ps.slots)
		ps.walk(c, depth+1)
		if len(ps.slots) > n {
			ps.ifaces = append(ps.ifaces, s)
			ps.ifaceOrig = append(ps.ifaceOrig, e)
			s.Set(c)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			ps.walk(v.Field(i), depth+1)
		}
	}
}

// reachesCallerMemory reports whether an argument of type t (passed by
// value) reaches memory of the caller's where a trace puts stand-ins: a
// pointer, slice or interface, other than a tensor pointer itself.
func reachesCallerMemory(t reflect.Type, seen map[reflect.Type]bool) bool {
	return referencesBeside(t, tensorPtrType, seen)
}

// settable returns v (addressable) as a value that can be set, unexported
// fields included.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// restore puts the original tensors back, the last place set first (a
// place recorded twice gets what it held before the first).
func (ps *proxySet) restore() {
	for i := len(ps.ifaces) - 1; i >= 0; i-- {
		ps.ifaces[i].Set(ps.ifaceOrig[i])
	}
	for i := len(ps.slots) - 1; i >= 0; i-- {
		ps.slots[i].Set(reflect.ValueOf(ps.orig[i]))
	}
	if len(ps.of) > 0 {
		proxies.Lock()
		for _, p := range ps.of {
			proxies.retired = append(proxies.retired, p)
		}
		proxies.Unlock()
	}
}

// proxy returns the stand-in of x (x itself when it has none).
func (ps *proxySet) proxy(x *lazy.Tensor) *lazy.Tensor {
	if p := ps.of[x]; p != nil {
		return p
	}
	return x
}
