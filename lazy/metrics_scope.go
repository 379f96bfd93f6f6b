package lazy

import "sync"

// A counting scope keeps the counts of one goroutine's work that may yet
// be undone (a trace, capability discovery) apart from the global
// counters: they reach the globals, or the enclosing scope, only when the
// work is kept. Counts of other goroutines go on meanwhile and are never
// touched, so nothing they count is lost when the work is dropped.
type countScope struct {
	parent *countScope
	mu     sync.Mutex // guards counts and timers (touched by the scope's goroutine, as a rule)
	counts map[*counter]int64
	timers map[*timer][2]int64 // samples, total ns
	// added are the executables the scope's work put into compile caches
	// (a cut inside a trace): dropped with the work, as its counts are.
	added []cacheAdd
}

// cacheAdd is an executable put into a compile cache.
type cacheAdd struct {
	c *compileCache
	x *Executable
}

// scopes holds each goroutine's innermost counting scope.
var scopes goroutineMap[countScope]

// BeginCountScope makes the calling goroutine count into a scope of its own
// until end is called: end(true) adds what it counted to the enclosing
// scope (the global counters when there is none), end(false) drops it.
// Counters read the globals only, so a scope's counts are invisible until
// kept. Scopes nest; end must be called on the goroutine that began it.
func BeginCountScope() (end func(keep bool)) {
	id := goid()
	sc := &countScope{parent: scopes.get(), counts: map[*counter]int64{}, timers: map[*timer][2]int64{}}
	scopes.set(id, sc)
	return func(keep bool) {
		scopes.set(id, sc.parent)
		sc.mu.Lock()
		defer sc.mu.Unlock()
		if !keep {
			for _, a := range sc.added {
				a.c.drop(a.x)
			}
			return
		}
		for c, d := range sc.counts {
			c.addIn(sc.parent, d)
		}
		for t, d := range sc.timers {
			t.addIn(sc.parent, d[0], d[1])
		}
		if p := sc.parent; p != nil && len(sc.added) > 0 {
			p.mu.Lock()
			p.added = append(p.added, sc.added...)
			p.mu.Unlock()
		}
	}
}

// currentScope returns the calling goroutine's innermost scope, or nil.
func currentScope() *countScope { return scopes.get() }

// add counts delta into the calling goroutine's scope, or globally. With
// no scope anywhere (a replay's usual case) it is one atomic add, inlined.
func (c *counter) add(delta int64) {
	if !scopes.any() {
		c.v.Add(delta)
		return
	}
	c.addIn(currentScope(), delta)
}

func (c *counter) addIn(sc *countScope, delta int64) {
	if sc == nil {
		c.v.Add(delta)
		return
	}
	sc.mu.Lock()
	sc.counts[c] += delta
	sc.mu.Unlock()
}

func (t *timer) addIn(sc *countScope, samples, ns int64) {
	if sc == nil {
		t.n.Add(samples)
		t.total.Add(ns)
		return
	}
	sc.mu.Lock()
	d := sc.timers[t]
	sc.timers[t] = [2]int64{d[0] + samples, d[1] + ns}
	sc.mu.Unlock()
}
