package hlo

// Builder methods for ops with regions. Region callbacks receive a nested
// Scope and the region's arguments; what they return ends the region with
// stablehlo.return. Values of enclosing scopes may be used inside.

// Reduce reduces inputs over dims starting from the 0-d inits; body gets
// (accumulators..., elements...) as 0-d values of the inits' element types
// and returns the new accumulators.
func (s *Scope) Reduce(inputs, inits []*Value, dims []int64, body func(s *Scope, args []*Value) []*Value) []*Value {
	return s.reduceLike("stablehlo.reduce", inputs, inits, []NamedAttr{{"dimensions", I64sAttr(dims)}}, body)
}

// reduceLike emits reduce or reduce_window: operands inputs then inits, one
// body taking (accumulators..., elements...) of the inits' element types.
func (s *Scope) reduceLike(name string, inputs, inits []*Value, attrs []NamedAttr, body func(s *Scope, args []*Value) []*Value) []*Value {
	n := len(inputs)
	argTypes, ok := s.scalarArgs(name, inits, 2)
	if !ok {
		return placeholders(n)
	}
	r := s.region(name, argTypes, body)
	if r == nil {
		return placeholders(n)
	}
	operands := append(append([]*Value{}, inputs...), inits...)
	return s.emit(name, operands, attrs, []*Region{r}, nil, n)
}

// Window is the window of ReduceWindow and SelectAndScatter. Nil fields
// take the spec's defaults (strides and dilations 1, no padding) and are
// not written out.
type Window struct {
	Dimensions      []int64
	Strides         []int64
	BaseDilations   []int64 // reduce_window only
	WindowDilations []int64 // reduce_window only
	Padding         [][2]int64
}

func (w *Window) attrs(dilations bool) []NamedAttr {
	var out []NamedAttr
	add := func(name string, xs []int64) {
		if xs != nil {
			out = append(out, NamedAttr{name, I64sAttr(xs)})
		}
	}
	add("window_dimensions", w.Dimensions)
	add("window_strides", w.Strides)
	if dilations {
		add("base_dilations", w.BaseDilations)
		add("window_dilations", w.WindowDilations)
	}
	if w.Padding != nil {
		out = append(out, NamedAttr{"padding", PairsAttr(w.Padding)})
	}
	return out
}

// ReduceWindow reduces each window of inputs (see Reduce for body).
func (s *Scope) ReduceWindow(inputs, inits []*Value, w Window, body func(s *Scope, args []*Value) []*Value) []*Value {
	return s.reduceLike("stablehlo.reduce_window", inputs, inits, w.attrs(true), body)
}

// SelectAndScatter picks one element per window of operand with sel (which
// gets two 0-d candidates and says whether the first wins) and scatters
// source into a result initialised with init, combining with scatter
// (which gets (current, source) 0-d values).
func (s *Scope) SelectAndScatter(operand, source, init *Value, w Window,
	sel func(s *Scope, args []*Value) *Value, scatter func(s *Scope, args []*Value) *Value) *Value {
	const name = "stablehlo.select_and_scatter"
	if w.BaseDilations != nil || w.WindowDilations != nil {
		s.b.failf(name, "select_and_scatter has no dilations")
		return placeholder()
	}
	argTypes, ok := s.scalarArgs(name, []*Value{operand}, 2)
	if !ok {
		return placeholder()
	}
	accTypes, ok := s.scalarArgs(name, []*Value{init}, 2)
	if !ok {
		return placeholder()
	}
	r1 := s.region(name, argTypes, singleResult(sel))
	r2 := s.region(name, accTypes, singleResult(scatter))
	if r1 == nil || r2 == nil {
		return placeholder()
	}
	return s.emit(name, []*Value{operand, source, init}, w.attrs(false), []*Region{r1, r2}, nil, 1)[0]
}

// one adapts a single-result callback to the region filler signature.
func singleResult(f func(s *Scope, args []*Value) *Value) func(s *Scope, args []*Value) []*Value {
	if f == nil {
		return nil
	}
	return func(s *Scope, args []*Value) []*Value { return []*Value{f(s, args)} }
}

// Sort sorts inputs together along dim; cmp gets (a0, b0, a1, b1, ...) 0-d
// values, one pair per input, and returns a tensor<i1> saying whether a
// sorts before b.
func (s *Scope) Sort(inputs []*Value, dim int64, stable bool, cmp func(s *Scope, args []*Value) *Value) []*Value {
	const name = "stablehlo.sort"
	n := len(inputs)
	var argTypes []Type
	for _, x := range inputs {
		t := s.tensorOf(name, x)
		if t == nil {
			return placeholders(n)
		}
		argTypes = append(argTypes, scalarOf(t), scalarOf(t))
	}
	r := s.region(name, argTypes, singleResult(cmp))
	if r == nil {
		return placeholders(n)
	}
	attrs := []NamedAttr{{"dimension", I64Attr(dim)}}
	if stable {
		attrs = append(attrs, NamedAttr{"is_stable", BoolAttr(true)})
	}
	return s.emit(name, inputs, attrs, []*Region{r}, nil, n)
}

// While loops: cond gets the loop values and returns tensor<i1>; body gets
// them and returns their next values (same types).
func (s *Scope) While(init []*Value, cond func(s *Scope, args []*Value) *Value, body func(s *Scope, args []*Value) []*Value) []*Value {
	const name = "stablehlo.while"
	n := len(init)
	if s.b.err != nil || !s.checkOperands(name, init) {
		return placeholders(n)
	}
	types := valueTypes(init)
	r1 := s.region(name, types, singleResult(cond))
	r2 := s.region(name, types, body)
	if r1 == nil || r2 == nil {
		return placeholders(n)
	}
	return s.emit(name, init, nil, []*Region{r1, r2}, nil, n)
}

// If runs then or els (which take no arguments and return values of the
// same types) depending on the tensor<i1> pred.
func (s *Scope) If(pred *Value, then, els func(s *Scope) []*Value) []*Value {
	return s.branches("stablehlo.if", pred, []func(s *Scope) []*Value{then, els})
}

// Case runs branches[index] (branches[len-1] when index is out of range)
// for a tensor<i32> index.
func (s *Scope) Case(index *Value, branches ...func(s *Scope) []*Value) []*Value {
	return s.branches("stablehlo.case", index, branches)
}

func (s *Scope) branches(name string, sel *Value, fns []func(s *Scope) []*Value) []*Value {
	regions := make([]*Region, len(fns))
	nres := 0
	for i, f := range fns {
		if f == nil {
			s.b.failf(name, "branch #%d is nil", i)
			return nil
		}
		f := f
		var count int
		regions[i] = s.region(name, nil, func(sub *Scope, _ []*Value) []*Value {
			res := f(sub)
			count = len(res)
			return res
		})
		if i == 0 {
			nres = count
		}
	}
	for _, r := range regions {
		if r == nil {
			return placeholders(nres)
		}
	}
	return s.emit(name, []*Value{sel}, nil, regions, nil, nres)
}

// Map applies body, which gets one 0-d value per input and returns a 0-d
// value, elementwise over inputs of one shape.
func (s *Scope) Map(inputs []*Value, body func(s *Scope, args []*Value) *Value) *Value {
	const name = "stablehlo.map"
	argTypes, ok := s.scalarArgs(name, inputs, 1)
	if !ok || len(inputs) == 0 {
		if ok {
			s.b.failf(name, "no inputs")
		}
		return placeholder()
	}
	r := s.region(name, argTypes, singleResult(body))
	if r == nil {
		return placeholder()
	}
	dims := make([]int64, inputs[0].TensorType().Rank())
	for i := range dims {
		dims[i] = int64(i)
	}
	return s.emit(name, inputs, []NamedAttr{{"dimensions", I64sAttr(dims)}}, []*Region{r}, nil, 1)[0]
}
