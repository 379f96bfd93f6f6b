package jit

import (
	"fmt"
	"runtime"
	"strings"
)

// Stats are the counters of one compiled function.
type Stats struct {
	Calls         int64 // calls of the compiled function
	Traces        int64 // traces (one per new input signature)
	Compiles      int64 // device programs built for it (one per device partition of each trace; a compile-cache hit counts too)
	Replays       int64 // calls served by a compiled program
	Recompiles    int64 // traces after the first
	GraphBreaks   int64 // signatures whose trace read a tensor value (run lazily)
	HostFallbacks int64 // host-node executions between device programs
}

func (s Stats) String() string {
	return fmt.Sprintf("calls=%d traces=%d compiles=%d replays=%d recompiles=%d graph_breaks=%d host_fallbacks=%d",
		s.Calls, s.Traces, s.Compiles, s.Replays, s.Recompiles, s.GraphBreaks, s.HostFallbacks)
}

// compiled is what the registry holds for a compiled function: a jit
// function's state or an ahead-of-time trace.
type compiled interface {
	statsNow() Stats
	explain() string
}

func stateOf(f any) *fnState {
	s, _ := lookup(f).(*fnState)
	return s
}

func lookup(f any) compiled {
	v, ok := registry.Load(funcKey(f))
	if !ok {
		return nil
	}
	return v.(compiled)
}

func (s *fnState) statsNow() Stats {
	replays := s.replays.Load()
	return Stats{s.lazyCalls.Load() + replays, s.traces.Load(), s.compiles.Load(), replays, s.recompiles.Load(), s.breaks.Load(), s.hostFallbacks.Load()}
}

func (s *fnState) explain() string {
	return fmt.Sprintf("%s: %s\n", s.name, s.statsNow()) + s.explainEvents()
}

func (s *fnState) explainEvents() string {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	var b strings.Builder
	for _, e := range s.events {
		b.WriteString("  " + e + "\n")
	}
	if s.dropped > 0 {
		fmt.Fprintf(&b, "  ... and %d more events\n", s.dropped)
	}
	return b.String()
}

// StatsOf returns the counters of a function returned by Compile, or of a
// generated ahead-of-time wrapper (zero Stats for any other function).
func StatsOf[F any](f F) Stats {
	if c := lookup(any(f)); c != nil {
		return c.statsNow()
	}
	return Stats{}
}

// Explain describes why a compiled function traced: its first signature,
// every recompile with the argument that changed (from -> to), every graph
// break with its call site, and lazy-mode fallbacks.
func Explain[F any](f F) string {
	if c := lookup(any(f)); c != nil {
		return c.explain()
	}
	return "not a function returned by jit.Compile"
}

func runtimeFuncName(pc uintptr) string {
	if f := runtime.FuncForPC(pc); f != nil {
		return f.Name()
	}
	return ""
}
