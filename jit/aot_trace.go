package jit

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// TraceAOT traces fn once on placeholder tensors of the given shapes on the
// default device, as `xlajit gen` does, and returns the spec to embed and
// the traced graph (call sites kept, for dumps). fn takes one *lazy.Tensor
// per shape and returns *lazy.Tensor values, optionally followed by an
// error. Nothing executes: the graph is compiled (through the compile cache
// and the persistent cache, so a generator run with
// XLAJIT_PERSISTENT_CACHE_PATH set leaves the executable there) only to
// record its StableHLO and hash. A graph with host-only ops has neither
// (its device regions are compiled on the first call).
//
// fn may read no tensor it does not take as an argument except the
// device's RNG state and tensors it makes itself from Go data
// (lazy.FromSlice, FromLiteral; never written), which the graph holds as
// constants: an ahead-of-time trace cannot refer to a Go variable. The
// error names each captured tensor by shape and first use.
func TraceAOT(name string, fn any, shapes ...lazy.Shape) (AOTSpec, *fx.Graph, error) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: %s: want a non-nil function, got %T", name, fn)
	}
	t := v.Type()
	if err := checkAOTSignature(t, len(shapes)); err != nil {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: %s (%s): %w", name, t, err)
	}
	dev := lazy.DefaultDevice()
	args := make([]*lazy.Tensor, len(shapes))
	in := make([]reflect.Value, len(shapes))
	for i, s := range shapes {
		args[i] = lazy.NewPlaceholder(s, dev)
		in[i] = reflect.ValueOf(args[i])
	}
	return traceAOT(name, fn, args, in)
}

// traceAOT traces fn called with in, whose tensors (the graph's arguments,
// in order) are args.
func traceAOT(name string, fn any, args []*lazy.Tensor, in []reflect.Value) (AOTSpec, *fx.Graph, error) {
	v := reflect.ValueOf(fn)
	t := v.Type()
	hasErr := t.NumOut() > 0 && t.Out(t.NumOut()-1) == errorType
	dev := lazy.DefaultDevice()
	var tr *bridge.Traced
	var err error
	perr := catchPanic(func() {
		tr, err = bridge.Trace(args, func() ([]*lazy.Tensor, error) {
			rs := v.Call(in)
			if hasErr {
				if e := rs[len(rs)-1]; !e.IsNil() {
					return nil, e.Interface().(error)
				}
				rs = rs[:len(rs)-1]
			}
			outs := make([]*lazy.Tensor, len(rs))
			for i, r := range rs {
				outs[i] = r.Interface().(*lazy.Tensor)
			}
			return outs, nil
		}, bridge.TraceOptions{})
	})
	if perr != nil {
		err = perr
	}
	if err != nil {
		var le *lazy.Error
		if errors.As(err, &le) {
			if op := lazy.LookupOp(le.Op); op != nil && op.Lower == nil {
				return AOTSpec{}, nil, fmt.Errorf("xlajit: tracing %s: %s at %s is a host op: it runs on real data during a trace, so a function using it cannot be traced ahead of time (wrap it with jit.Compile instead)", name, le.Op, le.Site)
			}
		}
		return AOTSpec{}, nil, fmt.Errorf("xlajit: tracing %s: %w", name, err)
	}
	g := tr.Graph
	if err := embedConstants(g, tr.Created); err != nil {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: tracing %s: %w", name, err)
	}
	spec := AOTSpec{Name: name, Signature: t.String(), Fn: fn, Graph: g.Format(false)}
	if err := aotCaptures(&spec, g, dev, tr.Created); err != nil {
		return AOTSpec{}, nil, err
	}
	if host := partitioner.Discover(g, dev); len(host) > 0 {
		ops := map[string]bool{}
		for n := range host {
			ops[n.OpName()] = true
		}
		names := make([]string, 0, len(ops))
		for op := range ops {
			names = append(names, op)
		}
		sort.Strings(names)
		spec.HLO = fmt.Sprintf("// %s runs host-only ops (%s): its device regions are lowered and compiled on the first call.\n", name, strings.Join(names, ", "))
		return spec, g, nil
	}
	p, err := bridge.Compile(g, dev)
	if err != nil {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: compiling the trace of %s: %w", name, err)
	}
	if x := p.Executable(); x != nil {
		spec.Hash = p.Hash.String()
		if x.Module != nil {
			spec.HLO = x.Module.String()
		}
	}
	return spec, g, nil
}

// checkAOTSignature accepts func(n × *lazy.Tensor) (*lazy.Tensor..., [error]).
func checkAOTSignature(t reflect.Type, n int) error {
	if t.IsVariadic() {
		return fmt.Errorf("variadic functions cannot be traced ahead of time")
	}
	if t.NumIn() != n {
		return fmt.Errorf("takes %d arguments, %d shapes given", t.NumIn(), n)
	}
	for i := 0; i < t.NumIn(); i++ {
		if t.In(i) != tensorPtrType {
			return fmt.Errorf("argument %d is %s; ahead-of-time traces take *lazy.Tensor arguments only", i, t.In(i))
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		switch {
		case t.Out(i) == errorType && i == t.NumOut()-1:
		case t.Out(i) != tensorPtrType:
			return fmt.Errorf("result %d is %s; ahead-of-time traces return *lazy.Tensor values, optionally followed by an error", i, t.Out(i))
		}
	}
	return nil
}

// aotCaptures fills spec.Captures, failing on any captured tensor other
// than the device RNG state; made are the tensors the function made from
// Go data (constants of the trace, which an ahead-of-time trace does not
// embed).
func aotCaptures(spec *AOTSpec, g *fx.Graph, dev *lazy.Device, made map[*lazy.Tensor]bool) error {
	if len(g.Captures) == 0 {
		return nil
	}
	rng := dev.RNGState()
	firstUse := map[*fx.Node]*fx.Node{}
	for _, n := range g.Nodes {
		for _, a := range n.Args {
			if a.Node.Kind == fx.Placeholder && firstUse[a.Node] == nil {
				firstUse[a.Node] = n
			}
		}
	}
	var bad []string
	spec.Captures = make([]string, len(g.Captures))
	for _, n := range g.Placeholders() {
		if n.Input != fx.Capture {
			continue
		}
		if g.Captures[n.Index] == rng {
			spec.Captures[n.Index] = "rng"
			continue
		}
		desc := fmt.Sprintf("capture %d, %s", n.Index, n.Shapes[0])
		if made[g.Captures[n.Index]] {
			desc += ", made inside the function from Go data (lazy.FromSlice, FromLiteral)"
		}
		switch u := firstUse[n]; {
		case u == nil:
			desc += ", assigned"
		case u.Kind == fx.Output:
			desc += ", returned"
		default:
			desc += ", first read by " + u.OpName()
			if u.Site != "" {
				desc += " at " + u.Site
			}
		}
		bad = append(bad, desc)
	}
	if len(bad) > 0 {
		return fmt.Errorf("xlajit: %s reads tensors it does not take as arguments (%s); pass them as parameters (only the device RNG state may be captured by an ahead-of-time trace)",
			spec.Name, strings.Join(bad, "; "))
	}
	return nil
}

// catchPanic turns a panic of user code during a trace into an error.
func catchPanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e := lazy.AsError(r); e != nil {
				err = e
				return
			}
			if e, ok := r.(error); ok {
				err = fmt.Errorf("panic: %w", e)
				return
			}
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f()
	return nil
}
