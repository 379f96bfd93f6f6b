package jit

import (
	"encoding/hex"
	"fmt"
	"reflect"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// TraceAOTValues is TraceAOT for functions whose parameters are not all
// tensors (a model struct, a slice of weights, plain settings): each arg is
// either a lazy.Shape, standing for a *lazy.Tensor parameter (a placeholder
// of that shape), or an example value of the parameter's type, such as a
// model made by its constructor. The tensors reachable from the arguments,
// in the order the jit guard walks them, become the graph's inputs; the
// arguments' structure, plain values and tensor shapes become spec.Guard,
// which a call must match to replay (AOT.Call). Nothing executes.
func TraceAOTValues(name string, fn any, args ...any) (AOTSpec, *fx.Graph, error) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: %s: want a non-nil function, got %T", name, fn)
	}
	t := v.Type()
	if err := checkAOTValuesSignature(t, len(args)); err != nil {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: %s (%s): %w", name, t, err)
	}
	dev := lazy.DefaultDevice()
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		pt := t.In(i)
		switch x := a.(type) {
		case lazy.Shape:
			if pt != tensorPtrType {
				return AOTSpec{}, nil, fmt.Errorf("xlajit: %s: argument %d is %s, given a shape (%s); give an example value", name, i, pt, x)
			}
			in[i] = reflect.ValueOf(lazy.NewPlaceholder(x, dev))
		case nil:
			in[i] = reflect.Zero(pt)
		default:
			av, ok := argValue(pt, a)
			if !ok {
				return AOTSpec{}, nil, fmt.Errorf("xlajit: %s: argument %d is %s, given a %T", name, i, pt, a)
			}
			in[i] = av
		}
	}
	w := &walker{}
	codecs := make([]codec, t.NumIn())
	for i := range codecs {
		codecs[i] = codecFor(t.In(i))
	}
	if err := encodeArgs(w, codecs, in); err != nil {
		return AOTSpec{}, nil, fmt.Errorf("xlajit: %s: %w", name, err)
	}
	spec, g, err := traceAOT(name, fn, append([]*lazy.Tensor(nil), w.tensors...), in)
	if err != nil {
		return AOTSpec{}, nil, err
	}
	spec.Guard = hex.EncodeToString(w.key)
	return spec, g, nil
}

// checkAOTValuesSignature accepts any jit argument types and *lazy.Tensor
// results, optionally followed by an error.
func checkAOTValuesSignature(t reflect.Type, n int) error {
	if t.IsVariadic() {
		return fmt.Errorf("variadic functions cannot be traced ahead of time")
	}
	if t.NumIn() != n {
		return fmt.Errorf("takes %d arguments, %d given", t.NumIn(), n)
	}
	for i := 0; i < t.NumIn(); i++ {
		if err := checkArgType(t.In(i), map[reflect.Type]bool{}); err != nil {
			return fmt.Errorf("argument %d: %w", i, err)
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

// Call runs a trace made by TraceAOTValues on any argument values: when
// their structure, plain values and tensor shapes are the traced ones
// (spec.Guard) it replays the embedded graph on the tensors they hold,
// otherwise it calls the function through jit.Compile. Generated wrappers
// of functions with non-tensor parameters call it.
func (a *AOT) Call(args ...any) ([]*lazy.Tensor, error) {
	t := reflect.TypeOf(a.spec.Fn)
	if len(args) != t.NumIn() {
		return nil, &Error{Fn: a.spec.Name, Msg: fmt.Sprintf("%d arguments for %s", len(args), t)}
	}
	in := make([]reflect.Value, len(args))
	for i, x := range args {
		v, ok := argValue(t.In(i), x)
		if !ok {
			return nil, &Error{Fn: a.spec.Name, Msg: fmt.Sprintf("argument %d is %s, given a %T", i, t.In(i), x)}
		}
		in[i] = v
	}
	if a.spec.Guard != "" && !lazy.Tracing() {
		w := walkerPool.Get().(*walker)
		w.reset()
		readCallerMem(a.spec.Name) // another trace's stand-ins may be in the arguments' memory
		err := encodeArgs(w, a.valueCodecs(), in)
		callerMem.RUnlock()
		if err == nil && hex.EncodeToString(w.key) == a.spec.Guard {
			tensors := append([]*lazy.Tensor(nil), w.tensors...)
			walkerPool.Put(w)
			return a.Run(tensors...)
		}
		walkerPool.Put(w)
	}
	a.calls.Add(1)
	return a.callFallback(in)
}

func (a *AOT) valueCodecs() []codec {
	a.codecsOnce.Do(func() {
		t := reflect.TypeOf(a.spec.Fn)
		a.codecs = make([]codec, t.NumIn())
		for i := range a.codecs {
			a.codecs[i] = codecFor(t.In(i))
		}
	})
	return a.codecs
}

// argValue makes a value of type pt holding x (nil: the zero value).
func argValue(pt reflect.Type, x any) (reflect.Value, bool) {
	v := reflect.New(pt).Elem()
	if x == nil {
		return v, true
	}
	xv := reflect.ValueOf(x)
	if !xv.Type().AssignableTo(pt) {
		return reflect.Value{}, false
	}
	v.Set(xv)
	return v, true
}
