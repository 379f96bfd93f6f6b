package kernel

import (
	"sync"

	"github.com/xlajit/xlajit/hlo"
)

// Probe values. interpreter.probe records each tensor it sees under its
// probe id, and check.expect_serialized_eq compares a value with the k-th
// recording of an id. The reference interpreter keeps them as NumPy files
// indexed in a directory for one run; here the run's check log keeps them
// in memory, so they live exactly as long as the checks that read them and
// travel wherever the log does (called functions, loop bodies, the devices
// of a parallel run). A probe executed n times (in a loop body) records n
// values, in execution order.

// Probed is one recorded probe value with the static type of the probed
// operand.
type Probed struct {
	Type  hlo.Type
	Value *hlo.Literal
}

type probeStore struct {
	mu   sync.Mutex
	vals map[string][]Probed
}

// RecordProbe appends a copy of v (of type t) to the recordings of id.
func (l *CheckLog) RecordProbe(id string, t hlo.Type, v *hlo.Literal) {
	c := v.Clone()
	s := &l.probes
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vals == nil {
		s.vals = map[string][]Probed{}
	}
	s.vals[id] = append(s.vals[id], Probed{Type: t, Value: c})
}

// Probe returns the iter-th recording of id (counting from 0) and how many
// recordings id has; ok is false when there are not more than iter of them.
func (l *CheckLog) Probe(id string, iter int) (p Probed, n int, ok bool) {
	s := &l.probes
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.vals[id]
	if iter < 0 || iter >= len(vs) {
		return Probed{}, len(vs), false
	}
	return vs[iter], len(vs), true
}
