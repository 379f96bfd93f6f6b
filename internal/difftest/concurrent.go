package difftest

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// The Concurrent family: the jit-concurrent mode compiles the program and
// a second one (its partner) once each and calls both from several
// goroutines at once, each goroutine going through a program's calls
// twice in step, once with the plain function and once with the compiled
// one, on tensors of its own made from the same data: every call's
// results (values, identities, errors), non-tensor results and the
// arguments after the calls must agree. Goroutine i of a program starts
// at its call i (and goes round), so that the first calls race to trace
// one signature or several (shapes change between calls) while others
// replay. Only
// programs that write nothing the goroutines share take part (concSafe):
// no captured tensor written, by the body or by the caller, no random
// numbers, no optimizer.

// JitConcurrent is the mode of concurrent calls (Features.Concurrent).
const JitConcurrent Mode = "jit-concurrent"

// ConcPlan is how the jit-concurrent mode runs a program.
type ConcPlan struct {
	Goroutines int      // goroutines calling each program
	Partner    *Program `json:",omitempty"` // a second program called alongside
}

// concSafe reports whether p's goroutines would share nothing they write:
// no random numbers (one RNG state), no optimizer, and no captured tensor
// written by the body, directly or as a parameter a call binds it to.
// Caller-side writes (UpdateCaps, MutateResults, roll-backs) are not made
// in this mode.
func concSafe(p *Program) bool {
	st, err := analyze(p)
	if err != nil || p.Optim != nil || st.random {
		return false
	}
	for c := range p.Captures {
		if st.assigned[p.CapReg(c)] {
			return false
		}
	}
	for k, c := range p.Calls {
		for i := range c.Args {
			if st.assigned[i] && objOf(st, k, i).kind == 'c' {
				return false
			}
		}
	}
	return true
}

// concurrency draws the jit-concurrent mode's plan: for some programs that
// may run concurrently, a number of goroutines and a partner program (a
// program of another seed that may too).
func (g *gen) concurrency() {
	x := g.aux()
	if !g.f.Concurrent || !x.chance(10) || !concSafe(g.p) {
		return
	}
	c := &ConcPlan{Goroutines: 2 + x.r.IntN(3)}
	f := g.f
	f.Concurrent, f.Sharding = false, false
	for try := 0; try < 4 && c.Partner == nil; try++ {
		if q := Generate(x.r.Uint64(), f); concSafe(q) {
			c.Partner = q
		}
	}
	g.p.Conc = c
}

// concFns are a program's plain and compiled functions over its captures.
type concFns struct {
	p           *Program
	caps        []*lazy.Tensor
	plain, comp reflect.Value
}

// runConcurrent runs p's jit-concurrent mode (nil: every call agreed).
func runConcurrent(p *Program) (fail *Failure) {
	lazy.SetEager(false)
	progs := []*Program{p}
	if p.Conc.Partner != nil {
		progs = append(progs, p.Conc.Partner)
	}
	fns := make([]concFns, len(progs))
	for i, q := range progs {
		caps := make([]*lazy.Tensor, len(q.Captures))
		for c, s := range q.Captures {
			caps[c] = fromData(s, q.CapData[c])
		}
		fv := q.makeFunc(caps, nil, nil, nil)
		fns[i] = concFns{q, caps, fv, reflect.ValueOf(jit.Compile[any](fv.Interface()))}
	}
	n := p.Conc.Goroutines * len(progs)
	fails := make([]*Failure, n)
	calls := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for gi := 0; gi < n; gi++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					fails[gi] = &Failure{Family: "crash/" + string(JitConcurrent) + ": " + normalize(fmt.Sprint(r)),
						Detail: fmt.Sprintf("goroutine %d: %v\n%s", gi, r, debug.Stack())}
				}
			}()
			<-start
			calls[gi], fails[gi] = concWorld(fns[gi%len(fns)], gi)
		}()
	}
	close(start)
	wg.Wait()
	for _, f := range fails {
		if f != nil {
			return f
		}
	}
	for i, fs := range fns {
		want := 0
		for gi := i; gi < n; gi += len(fns) {
			want += calls[gi]
		}
		if s := jit.StatsOf[any](fs.comp.Interface()); s.Calls != int64(want) {
			return &Failure{Family: "stats/" + string(JitConcurrent) + "/calls",
				Detail: fmt.Sprintf("program %d: %d calls made, stats %s", i, want, s)}
		}
	}
	return nil
}

// world is one run of a program's calls: its tensors, as the caller keeps
// them between calls.
type world struct {
	tr                 *tracker
	prevArgs, prevOuts []*lazy.Tensor
	prevHolders        []reflect.Value
	last               int // the call made last (-1: none)
	rend               outRenderer
	results            []obs
	err                error
	crash, outs        string
}

// call makes call k of fs's program through f in w, reading every result
// at once.
func (w *world) call(fs concFns, f reflect.Value, k int) {
	p := fs.p
	c := p.Calls[k]
	if w.last != k-1 {
		// The calls went round: what call k-1 left is not there.
		w.prevArgs, w.prevOuts, w.prevHolders = nil, nil, nil
	}
	w.last = k
	args := make([]*lazy.Tensor, len(c.Args))
	for i, b := range c.Args {
		s := p.Variants[c.Variant][i]
		if (b.Kind == BindKeep || b.Kind == BindPrevOut) && w.prevArgs == nil {
			b = Binding{Kind: BindFresh, Data: ones(numel(s.Dims))}
		}
		switch b.Kind {
		case BindFresh:
			args[i] = fromData(s, b.Data)
		case BindPending:
			args[i] = negNeg(fromData(s, b.Data))
		case BindSame:
			args[i] = args[b.Index]
		case BindKeep:
			args[i] = w.prevArgs[i]
		case BindCapture:
			args[i] = fs.caps[b.Index]
		case BindPrevOut:
			args[i] = w.prevOuts[b.Index]
		}
		w.tr.know(args[i])
	}
	hv := p.holderValues(k, args, w.prevHolders)
	out, err, crash := call(f, p.packArgs(args, hv, nil, c.Statics))
	var outs []*lazy.Tensor
	var gos []reflect.Value
	if err == nil && crash == "" {
		outs, gos, err = p.unpackResults(out)
	}
	w.err, w.crash, w.results, w.outs = err, crash, nil, ""
	if err != nil || crash != "" {
		return
	}
	for _, o := range outs {
		w.results = append(w.results, observe(o, w.tr.id(o)))
	}
	if len(p.Outs) > 0 {
		w.outs = w.rend.render(p, gos, hv)
	}
	w.prevArgs, w.prevOuts, w.prevHolders = args, outs, hv
}

// concWorld goes through p's calls with the plain and the compiled
// function in step; it returns the number of compiled calls made and the
// first difference.
func concWorld(fs concFns, gi int) (int, *Failure) {
	p := fs.p
	plain := &world{tr: &tracker{ids: map[*lazy.Tensor]int{}}, last: -1}
	comp := &world{tr: &tracker{ids: map[*lazy.Tensor]int{}}, last: -1}
	bad := func(k int, what, detail string) *Failure {
		return &Failure{Family: what, Detail: fmt.Sprintf("goroutine %d, program seed %d, call %d: %s", gi, p.Seed, k, detail)}
	}
	m := JitConcurrent
	for j := range p.Calls {
		k := (j + gi) % len(p.Calls)
		plain.call(fs, fs.plain, k)
		comp.call(fs, fs.comp, k)
		switch {
		case plain.crash != "" || comp.crash != "":
			return j + 1, bad(k, "crash/"+string(m)+": "+normalize(plain.crash+comp.crash), trimStack(plain.crash+comp.crash))
		case (plain.err == nil) != (comp.err == nil):
			return j + 1, bad(k, "error/"+string(m)+"-differs", fmt.Sprintf("plain error %v, compiled error %v", plain.err, comp.err))
		case plain.err != nil:
			return j + 1, nil // both failed: the calls end here, as in every mode
		case len(plain.results) != len(comp.results):
			return j + 1, bad(k, "results/"+string(m)+"/count", fmt.Sprintf("%d results vs %d", len(plain.results), len(comp.results)))
		case plain.outs != comp.outs:
			return j + 1, bad(k, "results/"+string(m)+"/non-tensor", plain.outs+" vs "+comp.outs)
		}
		for o, a := range plain.results {
			if a.id != comp.results[o].id {
				return j + 1, bad(k, "identity/"+string(m), fmt.Sprintf("result %d is object #%d plainly, #%d compiled", o, a.id, comp.results[o].id))
			}
			if f := valueFailure(m, "result", a, comp.results[o]); f != nil {
				return j + 1, bad(k, f.Family, fmt.Sprintf("result %d: %s", o, f.Detail))
			}
		}
	}
	a, b := observeKnown(plain.tr), observeKnown(comp.tr)
	if f := compareState(m, "final", a, b, 0); f != nil {
		return len(p.Calls), bad(len(p.Calls)-1, f.Family, f.Detail)
	}
	return len(p.Calls), nil
}
