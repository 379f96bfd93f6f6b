package jit

import (
	"errors"
	"reflect"
	"slices"

	"github.com/xlajit/xlajit/lazy"
)

// keyBufLen is the stack buffer for a fast call's guard key (longer keys
// grow onto the heap and take the general path).
const keyBufLen = 96

// tensor is the lazy tensor type, for the signatures below.
type tensor = lazy.Tensor

// fastWrapper returns a wrapper without reflection for the most common
// signatures (one to four tensors in, one tensor out), or nil. It shares
// the entries, guards and statistics of the reflective path, which it falls
// back to for traces, graph breaks and lazy calls.
func (s *fnState) fastWrapper(fn any) any {
	switch fn.(type) {
	case func(*tensor) *tensor:
		return func(a *tensor) *tensor { return s.fast([]*tensor{a}) }
	case func(*tensor, *tensor) *tensor:
		return func(a, b *tensor) *tensor { return s.fast([]*tensor{a, b}) }
	case func(*tensor, *tensor, *tensor) *tensor:
		return func(a, b, c *tensor) *tensor { return s.fast([]*tensor{a, b, c}) }
	case func(*tensor, *tensor, *tensor, *tensor) *tensor:
		return func(a, b, c, d *tensor) *tensor { return s.fast([]*tensor{a, b, c, d}) }
	}
	return nil
}

// fast replays the last entry directly when it can; anything else goes
// through general. Its body is the direct replay only, so the code a replay
// runs outside the executable stays a few cache lines.
func (s *fnState) fast(args []*tensor) *tensor {
	// The guard key, as the tensor codec writes it, built on the stack.
	var kb [keyBufLen]byte
	key := kb[:0]
	for i, t := range args {
		if t == nil {
			return s.slow(slices.Clone(args))
		}
		key = appendFastTensorKey(key, args[:i], t)
	}
	if s.mutCaps.Load() != nil {
		key = appendCaptureAliases(key, &s.mutCaps, args)
	}
	if h := s.last.Load(); h != nil && len(key) <= keyBufLen && h.matchPadded(&kb, len(key)) && !lazy.Tracing() {
		if x := h.direct; x != nil && !x.Evicted() {
			return s.runDirect(h, x, args)
		}
	}
	// The other paths may keep args (a trace's stand-ins do): they get a
	// copy, so that the wrappers' argument slices stay on the stack.
	return s.general(slices.Clone(args), key)
}

// appendFastTensorKey appends t's part of the guard key when the
// arguments before it are prev (none nil): a reference to the first of
// them that is t, or t's own key, as the tensor codec writes it.
func appendFastTensorKey(key []byte, prev []*tensor, t *tensor) []byte {
	for j, p := range prev {
		if p == t {
			return appendAliasKey(key, j)
		}
	}
	return appendTensorKey(key, t)
}

// runDirect replays h's entry by running its direct executable x on the
// parameters gathered from args and the captures.
func (s *fnState) runDirect(h *hotEntry, x *lazy.Executable, args []*tensor) *tensor {
	// Read and count before running, while the lines are in cache (a
	// large execution evicts them); undone on error.
	slot := h.slot
	ins := args
	var buf [8]*tensor
	if h.mixed {
		ins = h.e.gather(buf[:0], args)
	}
	s.directCalls.Add(1)
	cJitReplay.Add(1)
	outs, err := x.Run(ins)
	if err != nil {
		s.directFailed(err)
	}
	return outs[slot]
}

// directFailed undoes a direct replay's counting and panics with err.
//
//go:noinline
func (s *fnState) directFailed(err error) {
	s.directCalls.Add(-1)
	cJitReplay.Add(-1)
	s.calls.Add(1)
	panic(&Error{Fn: s.name, Err: err})
}

// general is fast for everything but a direct replay of the last entry:
// another entry, a general replay, a trace or a lazy call.
//
//go:noinline
func (s *fnState) general(args []*tensor, key []byte) *tensor {
	if lazy.Tracing() {
		return s.slow(args)
	}
	h := s.last.Load()
	if h == nil || !h.match(key) {
		s.mu.RLock()
		e := s.entries[string(key)]
		s.mu.RUnlock()
		if e == nil {
			return s.slow(args)
		}
		h = e.hot
		s.last.Store(h)
		if x := h.direct; x != nil && !x.Evicted() {
			return s.runDirect(h, x, args)
		}
	}
	e := h.e
	if e.run == nil || len(e.results) != 1 {
		return s.slow(args)
	}
	s.calls.Add(1)
	// The runner is an interface: its argument escapes, so the wrappers'
	// stack-held argument list is copied here, off the direct path.
	args = append([]*tensor(nil), args...)
	outs, err := s.replay(e, args)
	if err != nil {
		var re *respecializeError
		if errors.As(err, &re) {
			s.calls.Add(-1)
			return s.slow(args)
		}
		panic(&Error{Fn: s.name, Err: err})
	}
	s.replays.Add(1)
	cJitReplay.Add(1)
	switch p := e.results[0]; p.kind {
	case planTensor, planArg, planCapture:
		return p.tensor(outs, args, e.captures)
	case planNil:
		return nil
	}
	return e.results[0].build(outs, args, e.captures).Interface().(*tensor)
}

// slow runs one call through the reflective path.
func (s *fnState) slow(args []*tensor) *tensor {
	in := make([]reflect.Value, len(args))
	for i, t := range args {
		in[i] = reflect.ValueOf(t)
	}
	out := s.call(in)[0]
	if out.IsNil() {
		return nil
	}
	return out.Interface().(*tensor)
}
