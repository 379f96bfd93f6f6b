package jit

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/xlajit/xlajit/lazy"
)

type planKind int

const (
	planTensor planKind = iota
	planValue           // a non-tensor value, returned as traced
	planNil             // a nil tensor, slice or pointer
	planSlice
	planArray
	planStruct
	planPointer
	planArg     // the caller's own argument tensor (slot: its position)
	planCapture // a captured tensor (slot: its index)
	planCallArg // the call's own argument (slot: its position): a pointer, slice or map the function returned as it got it
)

// outPlan rebuilds one result of a replayed call from the output tensors.
type outPlan struct {
	kind  planKind
	typ   reflect.Type
	slot  int           // planTensor: index into the output tensors
	val   reflect.Value // planValue; planStruct: the traced struct, planned fields zero (unexported fields to keep)
	copy  bool          // planValue: each replay returns a deep copy of val
	elems []*outPlan    // slices, arrays, structs (fields), pointers (one)
}

// resultPlanner assigns one slot per distinct tensor the function returned.
type resultPlanner struct {
	slots   map[*lazy.Tensor]int
	tensors []*lazy.Tensor
	// args are the traced call's arguments: a result that is one of them
	// (the same pointer, slice or map) is the replayed call's own.
	args []reflect.Value
}

// argIndex returns the position of the argument v is (the same pointer,
// map, or slice of the same array, length and capacity), or -1.
func (rp *resultPlanner) argIndex(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return -1
		}
	default:
		return -1
	}
	for i, a := range rp.args {
		if a.Type() != v.Type() || a.IsNil() || a.Pointer() != v.Pointer() {
			continue
		}
		if v.Kind() == reflect.Slice && (a.Len() != v.Len() || a.Cap() != v.Cap()) {
			continue
		}
		// Arguments that are the same one are so for every call of the
		// entry (appendArgAliases): the first is as good as any.
		return i
	}
	return -1
}

func (rp *resultPlanner) plan(v reflect.Value, depth int) (*outPlan, error) {
	t := v.Type()
	if depth > 64 {
		return nil, fmt.Errorf("result nesting too deep")
	}
	if i := rp.argIndex(v); i >= 0 && t != tensorPtrType {
		return &outPlan{kind: planCallArg, typ: t, slot: i}, nil
	}
	if t == tensorPtrType {
		if v.IsNil() {
			return &outPlan{kind: planNil, typ: t}, nil
		}
		x := (*lazy.Tensor)(v.UnsafePointer())
		k, ok := rp.slots[x]
		if !ok {
			k = len(rp.tensors)
			rp.slots[x] = k
			rp.tensors = append(rp.tensors, x)
		}
		return &outPlan{kind: planTensor, typ: t, slot: k}, nil
	}
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return &outPlan{kind: planNil, typ: t}, nil
		}
		fallthrough
	case reflect.Array:
		p := &outPlan{kind: planSlice, typ: t}
		if t.Kind() == reflect.Array {
			p.kind = planArray
		}
		for i := 0; i < v.Len(); i++ {
			e, err := rp.plan(v.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			p.elems = append(p.elems, e)
		}
		if !p.hasTensor() {
			return valuePlan(t, v), nil
		}
		return p, nil
	case reflect.Pointer:
		if v.IsNil() {
			return &outPlan{kind: planNil, typ: t}, nil
		}
		e, err := rp.plan(v.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		if !e.hasTensor() {
			return valuePlan(t, v), nil
		}
		return &outPlan{kind: planPointer, typ: t, elems: []*outPlan{e}}, nil
	case reflect.Struct:
		p := &outPlan{kind: planStruct, typ: t}
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				if containsTensor(t.Field(i).Type, map[reflect.Type]bool{}) {
					return nil, fmt.Errorf("result field %s.%s holds tensors but is unexported", t, t.Field(i).Name)
				}
				p.elems = append(p.elems, nil)
				continue
			}
			e, err := rp.plan(v.Field(i), depth+1)
			if err != nil {
				return nil, err
			}
			p.elems = append(p.elems, e)
		}
		if !p.hasTensor() {
			return valuePlan(t, v), nil
		}
		if slices.Contains(p.elems, nil) {
			// Unexported fields are the traced call's (shared, as a
			// copied result's are): the rebuilt struct starts from the
			// traced one, its planned fields cleared so that it holds no
			// traced tensor.
			base := reflect.New(t).Elem()
			base.Set(v)
			for i, e := range p.elems {
				if e != nil {
					base.Field(i).SetZero()
				}
			}
			p.val = base
		}
		return p, nil
	case reflect.Interface:
		if v.IsNil() {
			return &outPlan{kind: planNil, typ: t}, nil
		}
		if containsTensor(v.Elem().Type(), map[reflect.Type]bool{}) {
			return nil, fmt.Errorf("tensors inside interface results are not supported")
		}
	}
	return valuePlan(t, v), nil
}

// hasTensor reports whether p holds something each call has its own of: a
// tensor, or one of the call's arguments or captures.
func (p *outPlan) hasTensor() bool {
	if p == nil {
		return false
	}
	switch p.kind {
	case planTensor, planArg, planCapture, planCallArg:
		// Each call's own: a value holding one is rebuilt per call,
		// not copied from the trace (whose copy holds stand-ins).
		return true
	}
	for _, e := range p.elems {
		if e.hasTensor() {
			return true
		}
	}
	return false
}

func containsTensor(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == tensorPtrType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return containsTensor(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if containsTensor(t.Field(i).Type, seen) {
				return true
			}
		}
	case reflect.Interface:
		return true
	}
	return false
}

// identify makes results that were argument or captured tensors during
// the trace return those tensors themselves on replay, as the plain
// function does (a pass-through, or an input written and returned).
// traced are the result slots' tensors. It returns the slots whose replay
// output is an input of the graph (passThrough) although the function
// returned a tensor of its own there (one it made from host data, or one
// it assigned an input to): the plain function returns a new tensor on
// every call, and so must the replay.
func identify(plans []*outPlan, args, captures, traced []*lazy.Tensor, created map[*lazy.Tensor]bool, passThrough func(slot int) bool) (fresh []int) {
	argOf := map[*lazy.Tensor]int{}
	for i := len(args) - 1; i >= 0; i-- {
		argOf[args[i]] = i
	}
	capOf := map[*lazy.Tensor]int{}
	for i, c := range captures {
		capOf[c] = i
	}
	for slot, t := range traced {
		_, isArg := argOf[t]
		_, isCap := capOf[t]
		if passThrough(slot) && (!isArg && !isCap || created[t]) {
			fresh = append(fresh, slot)
		}
	}
	var walk func(p *outPlan)
	walk = func(p *outPlan) {
		if p == nil {
			return
		}
		if p.kind == planTensor {
			t := traced[p.slot]
			if i, ok := argOf[t]; ok {
				p.kind, p.slot = planArg, i
			} else if i, ok := capOf[t]; ok && !created[t] {
				p.kind, p.slot = planCapture, i
			}
			return
		}
		for _, e := range p.elems {
			walk(e)
		}
	}
	for _, p := range plans {
		walk(p)
	}
	return fresh
}

// tensor returns the tensor a planTensor, planArg or planCapture result
// stands for.
func (p *outPlan) tensor(outs, args, captures []*lazy.Tensor) *lazy.Tensor {
	switch p.kind {
	case planArg:
		return args[p.slot]
	case planCapture:
		return captures[p.slot]
	}
	return outs[p.slot]
}

// build makes the result value from the replayed output tensors, the
// call's argument tensors, the captures and the call's arguments.
func (p *outPlan) build(outs, args, captures []*lazy.Tensor, callArgs []reflect.Value) reflect.Value {
	switch p.kind {
	case planCallArg:
		return callArgs[p.slot]
	case planTensor, planArg, planCapture:
		return reflect.ValueOf(p.tensor(outs, args, captures))
	case planValue:
		if p.copy {
			return deepCopy(p.val, map[copyKey]reflect.Value{})
		}
		return p.val
	case planNil:
		return reflect.Zero(p.typ)
	case planSlice:
		s := reflect.MakeSlice(p.typ, len(p.elems), len(p.elems))
		for i, e := range p.elems {
			s.Index(i).Set(e.build(outs, args, captures, callArgs))
		}
		return s
	case planArray:
		a := reflect.New(p.typ).Elem()
		for i, e := range p.elems {
			a.Index(i).Set(e.build(outs, args, captures, callArgs))
		}
		return a
	case planStruct:
		s := reflect.New(p.typ).Elem()
		if p.val.IsValid() {
			s.Set(p.val)
		}
		for i, e := range p.elems {
			if e != nil {
				s.Field(i).Set(e.build(outs, args, captures, callArgs))
			}
		}
		return s
	case planPointer:
		ptr := reflect.New(p.typ.Elem())
		ptr.Elem().Set(p.elems[0].build(outs, args, captures, callArgs))
		return ptr
	}
	panic("jit: bad result plan")
}
