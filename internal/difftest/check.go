package difftest

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

// Failure is a difference between a mode and the reference (lazy mode).
// Family is a short stable key (what differs, where, in which mode) that
// groups failures with one cause; the shrinker keeps it while it shrinks.
type Failure struct {
	Family string
	Detail string
}

func (f *Failure) Error() string { return f.Family + ": " + f.Detail }

// Outcome summarises a program's run for the statistics of a long run.
type Outcome struct {
	PlainError string // the reference's error (normalised), "" if none
	Breaks     bool   // a graph break ran
}

// Check runs p in every mode and compares each with lazy mode. It returns
// nil when all agree bit for bit (values, identities, errors, the state the
// caller keeps, the RNG, and the jit's statistics).
func Check(p *Program) (*Failure, Outcome) {
	var oc Outcome
	st, err := analyze(p)
	if err != nil {
		return &Failure{Family: "generator/malformed", Detail: err.Error()}, oc
	}
	ref := runCold(p, -1)
	if ref.failAt >= 0 && ref.calls[ref.failAt].crash == "" && ref.crash == "" {
		ref = runCold(p, ref.failAt)
	}
	if f := crashOf(ref); f != nil {
		return f, oc
	}
	if ref.failAt >= 0 {
		oc.PlainError = normalize(ref.calls[ref.failAt].err.Error())
	}
	for _, c := range ref.calls {
		oc.Breaks = oc.Breaks || c.reads > 0
	}
	modes := []Mode{Eager, Jit}
	if ColdDevice != nil {
		modes = append([]Mode{LazyWarm}, modes...)
	}
	if p.Features.JitEager {
		modes = append(modes, JitEager)
	}
	if p.Shardings != nil && SPMDDevice != nil {
		modes = append(modes, SPMD)
	}
	for _, m := range modes {
		var r *modeRun
		if m == SPMD {
			r, near := runSPMD(p, ref.failAt)
			if near || !spmdComparable(p) {
				continue // a changed summation order may flip a branch or a jump
			}
			if f := compare(p, st, ref, r); f != nil {
				return f, oc
			}
			continue
		}
		r = runMode(p, m, ref.failAt)
		if f := compare(p, st, ref, r); f != nil {
			if ColdDevice != nil && m != LazyWarm {
				// Does the mode agree on a fresh device? Then the
				// long-lived device's compile cache gave it another
				// graph's executable.
				if compare(p, st, ref, runOnCold(p, m, ref.failAt)) == nil {
					f.Family = "cache/" + f.Family
					f.Detail += " (on a fresh device " + string(m) + " agrees: a compile-cache hit ran another graph's executable)"
				}
			} else if m == LazyWarm {
				f.Family = "cache/" + f.Family
				f.Detail += " (lazy mode on a fresh device agrees: a compile-cache hit ran another graph's executable)"
			}
			return f, oc
		}
	}
	if p.Conc != nil {
		if f := runConcurrent(p); f != nil {
			return f, oc
		}
	}
	return nil, oc
}

// runCold runs the reference (lazy mode) on a fresh device when
// ColdDevice is set.
func runCold(p *Program, failHint int) *modeRun { return runOnCold(p, Lazy, failHint) }

// runOnCold runs mode m on a fresh device when ColdDevice is set.
func runOnCold(p *Program, m Mode, failHint int) *modeRun {
	if ColdDevice == nil {
		return runMode(p, m, failHint)
	}
	shared := lazy.DefaultDevice()
	cold := ColdDevice()
	lazy.SetDefaultDevice(cold)
	defer func() {
		lazy.SetDefaultDevice(shared)
		lazy.SetCacheSize(cold, 1) // devices are never freed: keep little
	}()
	return runMode(p, m, failHint)
}

var (
	reNumber = regexp.MustCompile(`[0-9]+`)
	reSite   = regexp.MustCompile(`[^ ]+\.go:[0-9]+`)
)

// normalize strips sites and numbers from a message so that messages of
// one cause compare equal.
func normalize(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = reSite.ReplaceAllString(s, "SITE")
	s = reNumber.ReplaceAllString(s, "N")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// trimStack keeps a crash's message and the frames between the panic and
// the harness.
func trimStack(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	in := false
	for i, l := range lines {
		switch {
		case i == 0:
			out = append(out, l)
		case strings.HasPrefix(l, "panic("):
			in = true
		case in && (strings.Contains(l, "internal/difftest.") || strings.HasPrefix(l, "reflect.")):
			in = false
		case strings.Contains(l, "/runtime/panic.go"):
		case in:
			out = append(out, l)
		}
	}
	if len(out) > 13 {
		out = out[:13]
	}
	return strings.Join(out, "\n")
}

func crashOf(r *modeRun) *Failure {
	if r.crash != "" {
		return &Failure{Family: "crash/" + string(r.mode) + ": " + normalize(r.crash), Detail: trimStack(r.crash)}
	}
	if r.failAt >= 0 && r.calls[r.failAt].crash != "" {
		c := r.calls[r.failAt].crash
		return &Failure{Family: "crash/" + string(r.mode) + ": " + normalize(c), Detail: fmt.Sprintf("call %d: %s", r.failAt, trimStack(c))}
	}
	return nil
}

// idClass says what a result is to the caller: a captured tensor, an
// argument of this call, a duplicate of an earlier result, an object seen
// before, or a new tensor.
func idClass(r *modeRun, k, o int) string {
	c := r.calls[k]
	id := c.results[o].id
	switch {
	case id < 0:
		return "nil"
	case id < r.nCaps:
		return "capture"
	}
	for i, a := range c.argIDs {
		if a == id {
			return fmt.Sprintf("argument %d", i)
		}
	}
	for j := 0; j < o; j++ {
		if c.results[j].id == id {
			return fmt.Sprintf("result %d", j)
		}
	}
	for kk := 0; kk < k; kk++ {
		for _, a := range r.calls[kk].argIDs {
			if a == id {
				return "an earlier argument"
			}
		}
		for _, x := range r.calls[kk].results {
			if x.id == id {
				return "an earlier result"
			}
		}
	}
	return "new"
}

func classFamily(c string) string {
	switch {
	case strings.HasPrefix(c, "argument"):
		return "argument"
	case strings.HasPrefix(c, "result"):
		return "duplicate"
	}
	return c
}

// bitsDiffer compares two observations; nanOnly reports that every
// differing element is a NaN on both sides (a payload or sign difference).
func bitsDiffer(a, b obs) (differ, nanOnly bool, where string) {
	if a.readErr != "" || b.readErr != "" {
		if a.readErr != b.readErr {
			return true, false, fmt.Sprintf("read error %q vs %q", a.readErr, b.readErr)
		}
		return false, false, ""
	}
	if !a.shape.Equal(b.shape) {
		return true, false, fmt.Sprintf("shape %s vs %s", a.shape, b.shape)
	}
	if bytes.Equal(a.bits, b.bits) {
		return false, false, ""
	}
	la := &hlo.Literal{DType: a.shape.DType, Dims: a.shape.Dims, Data: a.bits}
	lb := &hlo.Literal{DType: b.shape.DType, Dims: b.shape.Dims, Data: b.bits}
	nanOnly = isFloat(a.shape.DType) || a.shape.DType == lazy.F16 || a.shape.DType == lazy.BF16
	first := -1
	sz := a.shape.DType.Size()
	for i := 0; i < len(a.bits)/sz; i++ {
		if !bytes.Equal(a.bits[i*sz:(i+1)*sz], b.bits[i*sz:(i+1)*sz]) {
			if first < 0 {
				first = i
			}
			if !math.IsNaN(la.Float(i)) || !math.IsNaN(lb.Float(i)) {
				nanOnly = false
			}
		}
	}
	return true, nanOnly, fmt.Sprintf("element %d: %s (bits %#x) vs %s (bits %#x); all: %s vs %s",
		first, la.ElemString(first), la.Bits(first), lb.ElemString(first), lb.Bits(first), short(la), short(lb))
}

func short(l *hlo.Literal) string {
	s := hlo.DenseString(l)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func valueFailure(m Mode, what string, a, b obs) *Failure {
	differ, nanOnly, where := bitsDiffer(a, b)
	if m == SPMD {
		differ, where = closeDiffer(a, b)
		nanOnly = false
	}
	if !differ {
		return nil
	}
	fam := "value/" + string(m) + "/" + what
	if nanOnly {
		fam += "/nan-bits"
	}
	return &Failure{Family: fam, Detail: fmt.Sprintf("%s: lazy vs %s: %s", what, m, where)}
}

// compare checks mode run r against the reference run ref.
func compare(p *Program, st *state, ref, r *modeRun) *Failure {
	m := r.mode
	if f := crashOf(r); f != nil {
		return f
	}
	switch {
	case ref.failAt < 0 && r.failAt >= 0:
		e := r.calls[r.failAt].err
		return &Failure{Family: "error/" + string(m) + "-only: " + normalize(e.Error()),
			Detail: fmt.Sprintf("call %d fails in %s only: %v", r.failAt, m, e)}
	case ref.failAt >= 0 && r.failAt < 0:
		return &Failure{Family: "error/" + string(m) + "-missing",
			Detail: fmt.Sprintf("call %d fails in lazy mode (%v) but not in %s", ref.failAt, ref.calls[ref.failAt].err, m)}
	case ref.failAt != r.failAt:
		return &Failure{Family: "error/" + string(m) + "-other-call",
			Detail: fmt.Sprintf("lazy fails at call %d (%v), %s at call %d (%v)", ref.failAt, ref.calls[ref.failAt].err, m, r.failAt, r.calls[r.failAt].err)}
	}
	n := len(ref.calls)
	if ref.failAt >= 0 {
		n = ref.failAt
	}
	for k := 0; k < n; k++ {
		a, b := ref.calls[k], r.calls[k]
		if len(a.results) != len(b.results) {
			return &Failure{Family: "results/" + string(m) + "/count",
				Detail: fmt.Sprintf("call %d: %d results in lazy mode, %d in %s", k, len(a.results), len(b.results), m)}
		}
		for o := range a.results {
			if a.results[o].id != b.results[o].id {
				ca, cb := idClass(ref, k, o), idClass(r, k, o)
				return &Failure{Family: "identity/" + string(m) + "/" + classFamily(ca) + "->" + classFamily(cb),
					Detail: fmt.Sprintf("call %d result %d: lazy returns %s, %s returns %s", k, o, ca, m, cb)}
			}
		}
	}
	for k := 0; k < n; k++ {
		if a, b := ref.calls[k].outs, r.calls[k].outs; a != b {
			return &Failure{Family: "results/" + string(m) + "/non-tensor",
				Detail: fmt.Sprintf("call %d: lazy returns %s, %s returns %s", k, a, m, b)}
		}
	}
	for k := 0; k < n; k++ {
		for o := range ref.calls[k].results {
			if f := valueFailure(m, "result", ref.calls[k].results[o], r.calls[k].results[o]); f != nil {
				f.Detail = fmt.Sprintf("call %d result %d: %s", k, o, f.Detail)
				return f
			}
		}
	}
	if ref.failAt >= 0 {
		if f := compareState(m, "before-error", ref.pre, r.pre, ref.nCaps); f != nil {
			return f
		}
		if m.compiled() {
			// A failed compiled call leaves the caller's tensors as they
			// were, or, when it ran the plain function lazily (a graph
			// break, a host result of a new shape), as the plain call
			// leaves them.
			if compareState(m, "", r.pre, r.post, ref.nCaps) != nil {
				if f := compareState(m, "changed-by-failed-call", ref.post, r.post, ref.nCaps); f != nil {
					f.Family = strings.Replace(f.Family, "value/", "state/", 1)
					f.Detail += " (and not as before the call either)"
					return f
				}
			}
		} else if f := compareState(m, "after-error", ref.post, r.post, ref.nCaps); f != nil {
			return f
		}
	} else {
		if f := compareState(m, "final", ref.finals, r.finals, ref.nCaps); f != nil {
			return f
		}
		if f := valueFailure(m, "rng-state", ref.rng, r.rng); f != nil {
			return f
		}
		for k := range ref.outsFinal {
			if k < len(r.outsFinal) && ref.outsFinal[k] != r.outsFinal[k] {
				return &Failure{Family: "results/" + string(m) + "/non-tensor-after-calls",
					Detail: fmt.Sprintf("call %d's results once the calls are done: lazy %s, %s %s", k, ref.outsFinal[k], m, r.outsFinal[k])}
			}
		}
	}
	if m.compiled() {
		return checkStats(st, ref, r)
	}
	return nil
}

func compareState(m Mode, what string, a, b []obs, nCaps int) *Failure {
	if len(a) != len(b) {
		return &Failure{Family: "state/" + string(m) + "/" + what + "/count", Detail: fmt.Sprintf("%d vs %d tensors", len(a), len(b))}
	}
	for i := range a {
		kind := "argument"
		if a[i].id < nCaps {
			kind = "capture"
		}
		if f := valueFailure(m, what+"-"+kind, a[i], b[i]); f != nil {
			f.Detail = fmt.Sprintf("tensor #%d: %s", a[i].id, f.Detail)
			return f
		}
	}
	return nil
}

// checkStats checks the compiled function's counters call by call: each
// call counts once; a call whose signature was traced before without a
// graph break is a replay and traces nothing (with host ops of
// data-dependent shape it may run lazily instead, but breaks nothing the
// analysis did not predict); a call whose holders have dynamic types not
// seen together before traces (or breaks).
func checkStats(st *state, ref, r *modeRun) *Failure {
	m := r.mode
	seen := map[string]bool{}
	broke := map[string]bool{}
	seenForms := map[string]bool{}
	for k, c := range r.calls {
		bad := func(what string) *Failure {
			return &Failure{Family: "stats/" + string(m) + "/" + what, Detail: fmt.Sprintf("call %d (%s): %s", k, c.sig, c.stats)}
		}
		if c.stats.Calls != 1 {
			return bad("calls")
		}
		if c.err != nil {
			break
		}
		if c.forms != "" && !seenForms[c.forms] && c.stats.Traces == 0 && c.stats.GraphBreaks == 0 {
			return bad("no-trace-new-dynamic-type")
		}
		seenForms[c.forms] = true
		reads := ref.calls[k].reads > 0
		if reads {
			broke[c.sig] = true
		}
		switch {
		case broke[c.sig]:
			if c.stats.Replays != 0 {
				return bad("replay-after-graph-break")
			}
			if c.stats.GraphBreaks > 1 {
				return bad("graph-breaks")
			}
		case st.hostDyn:
			// A host op's result of a new shape may run the call lazily,
			// but nothing breaks the trace that the analysis did not
			// predict.
			if c.stats.Replays > 1 {
				return bad("replays")
			}
			if c.stats.GraphBreaks != 0 {
				return bad("unpredicted-graph-break")
			}
		default:
			if c.stats.Replays != 1 {
				return bad("no-replay")
			}
			if seen[c.sig] && c.stats.Traces != 0 {
				return bad("retrace-same-signature")
			}
		}
		seen[c.sig] = true
	}
	return nil
}
