package hlo

// Builder methods for data movement.

// BroadcastInDim broadcasts x to shape outDims, operand dimension i going
// to result dimension bdims[i].
func (s *Scope) BroadcastInDim(x *Value, outDims []int64, bdims []int64) *Value {
	t := s.tensorOf("stablehlo.broadcast_in_dim", x)
	if t == nil {
		return placeholder()
	}
	if len(bdims) > 4 || len(outDims) > 4 {
		return s.emit1("stablehlo.broadcast_in_dim", []*Value{x},
			[]NamedAttr{{"broadcast_dimensions", I64sAttr(bdims)}}, withDims(t, outDims))
	}
	// The attribute list, the dimensions and the result type in one cell.
	c := s.b.bcasts.Get()
	c.dims = DenseArrayAttr{DType: I64, Ints: c.xs[:len(bdims):len(bdims)]}
	copy(c.dims.Ints, bdims)
	c.attrs[0] = NamedAttr{"broadcast_dimensions", &c.dims}
	typ := c.typ.init(t.DType, outDims)
	typ.Quant = t.Quant
	return s.emit1("stablehlo.broadcast_in_dim", []*Value{x}, c.attrs[:], typ)
}

// bcastCell is a broadcast's attribute list, dimensions and result type.
type bcastCell struct {
	attrs [1]NamedAttr
	dims  DenseArrayAttr
	xs    [4]int64
	typ   tensorCell
}

// Reshape reshapes x to dims (same element count).
func (s *Scope) Reshape(x *Value, dims ...int64) *Value {
	t := s.tensorOf("stablehlo.reshape", x)
	if t == nil {
		return placeholder()
	}
	return s.emit1("stablehlo.reshape", []*Value{x}, nil, withDims(t, dims))
}

// Transpose permutes x's dimensions: result dimension i is x's dimension
// perm[i].
func (s *Scope) Transpose(x *Value, perm ...int64) *Value {
	return s.emit1("stablehlo.transpose", []*Value{x}, []NamedAttr{{"permutation", I64sAttr(perm)}})
}

// Slice takes x[start:limit:strides] per dimension; nil strides mean 1.
func (s *Scope) Slice(x *Value, start, limit, strides []int64) *Value {
	if strides == nil {
		strides = onesN(len(start))
	}
	return s.emit1("stablehlo.slice", []*Value{x}, []NamedAttr{
		{"start_indices", I64sAttr(start)},
		{"limit_indices", I64sAttr(limit)},
		{"strides", I64sAttr(strides)},
	})
}

func onesN(n int) []int64 {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = 1
	}
	return xs
}

// DynamicSlice takes a slice of the given sizes starting at the 0-d integer
// values starts (clamped into range at run time).
func (s *Scope) DynamicSlice(x *Value, starts []*Value, sizes []int64) *Value {
	return s.emit1("stablehlo.dynamic_slice", append([]*Value{x}, starts...),
		[]NamedAttr{{"slice_sizes", I64sAttr(sizes)}})
}

// DynamicUpdateSlice writes upd into x at starts.
func (s *Scope) DynamicUpdateSlice(x, upd *Value, starts []*Value) *Value {
	return s.emit1("stablehlo.dynamic_update_slice", append([]*Value{x, upd}, starts...), nil)
}

// Concatenate joins xs along dimension dim.
func (s *Scope) Concatenate(dim int64, xs ...*Value) *Value {
	return s.emit1("stablehlo.concatenate", xs, []NamedAttr{{"dimension", I64Attr(dim)}})
}

// Pad pads x with the 0-d padValue: lo and hi elements at the edges (may
// be negative) and interior between elements; nil interior means 0.
func (s *Scope) Pad(x, padValue *Value, lo, hi, interior []int64) *Value {
	if interior == nil {
		interior = make([]int64, len(lo))
	}
	return s.emit1("stablehlo.pad", []*Value{x, padValue}, []NamedAttr{
		{"edge_padding_low", I64sAttr(lo)},
		{"edge_padding_high", I64sAttr(hi)},
		{"interior_padding", I64sAttr(interior)},
	})
}

// Reverse reverses x along dims.
func (s *Scope) Reverse(x *Value, dims ...int64) *Value {
	return s.emit1("stablehlo.reverse", []*Value{x}, []NamedAttr{{"dimensions", I64sAttr(dims)}})
}

// GetDimensionSize returns the size of dimension dim of x as tensor<i32>.
func (s *Scope) GetDimensionSize(x *Value, dim int64) *Value {
	return s.emit1("stablehlo.get_dimension_size", []*Value{x}, []NamedAttr{{"dimension", I64Attr(dim)}})
}

// Gather gathers slices of operand at indices (see the spec's gather).
func (s *Scope) Gather(operand, indices *Value, dims *GatherDimsAttr, sliceSizes []int64, sorted bool) *Value {
	if dims == nil {
		s.b.failf("stablehlo.gather", "dimension numbers are nil")
		return placeholder()
	}
	attrs := []NamedAttr{
		{"dimension_numbers", dims},
		{"slice_sizes", I64sAttr(sliceSizes)},
	}
	if sorted {
		attrs = append(attrs, NamedAttr{"indices_are_sorted", BoolAttr(true)})
	}
	return s.emit1("stablehlo.gather", []*Value{operand, indices}, attrs)
}

// ScatterOptions are scatter's optional flags.
type ScatterOptions struct {
	IndicesAreSorted bool
	UniqueIndices    bool
}

// Scatter scatters updates into inputs at indices, combining with body,
// which receives (current..., update...) 0-d values and returns the new
// ones. opts: at most one.
func (s *Scope) Scatter(inputs []*Value, indices *Value, updates []*Value, dims *ScatterDimsAttr,
	body func(s *Scope, args []*Value) []*Value, opts ...ScatterOptions) []*Value {
	const name = "stablehlo.scatter"
	n := len(inputs)
	if dims == nil {
		s.b.failf(name, "dimension numbers are nil")
		return placeholders(n)
	}
	argTypes, ok := s.scalarArgs(name, inputs, 2)
	if !ok {
		return placeholders(n)
	}
	r := s.region(name, argTypes, body)
	if r == nil {
		return placeholders(n)
	}
	attrs := []NamedAttr{{"scatter_dimension_numbers", dims}}
	if len(opts) > 0 {
		if opts[0].IndicesAreSorted {
			attrs = append(attrs, NamedAttr{"indices_are_sorted", BoolAttr(true)})
		}
		if opts[0].UniqueIndices {
			attrs = append(attrs, NamedAttr{"unique_indices", BoolAttr(true)})
		}
	}
	operands := append(append(append([]*Value{}, inputs...), indices), updates...)
	return s.emit(name, operands, attrs, []*Region{r}, nil, n)
}

// scalarArgs returns the 0-d types of xs' element types, repeated times
// times (reduction bodies take accumulators then inputs).
func (s *Scope) scalarArgs(op string, xs []*Value, times int) ([]Type, bool) {
	if s.b.err != nil {
		return nil, false
	}
	var out []Type
	for k := 0; k < times; k++ {
		for _, x := range xs {
			t := s.tensorOf(op, x)
			if t == nil {
				return nil, false
			}
			out = append(out, scalarOf(t))
		}
	}
	return out, true
}
