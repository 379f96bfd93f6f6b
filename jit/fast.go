package jit

import (
	"reflect"

	"github.com/xlajit/xlajit/lazy"
)

// keyBufLen is the stack buffer for a fast call's guard key (longer keys
// grow onto the heap).
const keyBufLen = 96

// outBufLen is the output list a replay keeps on its caller's stack (a
// longer one is allocated).
const outBufLen = 32

// tensor is the lazy tensor type, for the signatures below.
type tensor = lazy.Tensor

// fastWrapper returns a wrapper without reflection for the most common
// signatures (one to four tensors in, one tensor out), or nil. It shares
// the entries, guards, replay and statistics of the reflective path, which
// it falls back to for traces.
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

// fast is a call of a fast wrapper: the guard key built on the stack, then
// the entry's executable run directly when its program is one (entry.direct),
// else the replay shared with the reflective path. A new signature (or a
// nil argument, or a call inside a trace) goes through the reflective path.
func (s *fnState) fast(args []*tensor) *tensor {
	var kb [keyBufLen]byte
	key := kb[:0]
	for i, t := range args {
		if t == nil {
			return s.slow(args)
		}
		key = appendFastTensorKey(key, args[:i], t)
	}
	cs := s.mutCaps.Load()
	if cs != nil {
		key = appendCaptureAliasesUpTo(key, cs, cs.size(), args)
	}
	if lazy.Tracing() {
		return s.slow(args)
	}
	e := s.find(key)
	if e == nil || s.mutCaps.Load() != cs {
		// A new signature, or a trace ended after cs was loaded (see
		// call).
		return s.slow(args)
	}
	var outs []*tensor
	if x := e.direct(); x != nil && !e.grad {
		// replayOrLazy's replay of a plain program, without its layers.
		var err error
		if outs, err = x.RunDonatingInto(nil, args, nil); err != nil {
			return s.fastLazy(args, s.replayError(err))
		}
		s.replays.Add(1)
		cJitReplay.Add(1)
	} else {
		var ok bool
		var err error
		var ob [outBufLen]*lazy.Tensor
		if outs, ok, err = s.replayOrLazy(e, args, ob[:0]); !ok {
			return s.fastLazy(args, err)
		}
	}
	if p := e.results[0]; p.kind != planNil {
		return p.tensor(outs, args, e.captures)
	}
	return nil
}

// fastLazy ends a fast call whose replay did not happen: err, or a lazy
// call when err is nil.
func (s *fnState) fastLazy(args []*tensor, err error) *tensor {
	s.lazyCalls.Add(1)
	if err != nil {
		panic(&Error{Fn: s.name, Err: err})
	}
	return tensorResult(s.fn.Call(tensorValues(args)))
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

// slow runs one call through the reflective path.
func (s *fnState) slow(args []*tensor) *tensor {
	return tensorResult(s.call(tensorValues(args)))
}

func tensorValues(args []*tensor) []reflect.Value {
	in := make([]reflect.Value, len(args))
	for i, t := range args {
		in[i] = reflect.ValueOf(t)
	}
	return in
}

func tensorResult(out []reflect.Value) *tensor {
	if out[0].IsNil() {
		return nil
	}
	return out[0].Interface().(*tensor)
}
