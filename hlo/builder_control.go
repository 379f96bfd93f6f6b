package hlo

import "fmt"

// Builder methods for tuples, tokens, calls, custom calls and collectives.

// Tuple packs xs into a tuple.
func (s *Scope) Tuple(xs ...*Value) *Value {
	return s.emit1("stablehlo.tuple", xs, nil)
}

// GetTupleElement extracts element i of a tuple.
func (s *Scope) GetTupleElement(t *Value, i int) *Value {
	return s.emit1("stablehlo.get_tuple_element", []*Value{t}, []NamedAttr{{"index", I32Attr(int64(i))}})
}

// OptimizationBarrier passes xs through unchanged, fencing optimizations.
func (s *Scope) OptimizationBarrier(xs ...*Value) []*Value {
	return s.emit("stablehlo.optimization_barrier", xs, nil, nil, nil, len(xs))
}

// AfterAll joins tokens into one (no tokens: a fresh token).
func (s *Scope) AfterAll(tokens ...*Value) *Value {
	return s.emit1("stablehlo.after_all", tokens, nil)
}

// ReplicaID returns the replica id as tensor<ui32>.
func (s *Scope) ReplicaID() *Value { return s.emit1("stablehlo.replica_id", nil, nil) }

// PartitionID returns the partition id as tensor<ui32>.
func (s *Scope) PartitionID() *Value { return s.emit1("stablehlo.partition_id", nil, nil) }

// Infeed reads values of the given types from the infeed, returning them
// and the next token.
func (s *Scope) Infeed(token *Value, types []Type, config string) (values []*Value, next *Value) {
	res := s.emit("stablehlo.infeed", []*Value{token}, []NamedAttr{{"infeed_config", StringAttr(config)}},
		nil, append(append([]Type{}, types...), &TokenType{}), len(types)+1)
	return res[:len(types)], res[len(types)]
}

// Outfeed writes xs to the outfeed and returns the next token.
func (s *Scope) Outfeed(xs []*Value, token *Value, config string) *Value {
	return s.emit1("stablehlo.outfeed", append(append([]*Value{}, xs...), token),
		[]NamedAttr{{"outfeed_config", StringAttr(config)}})
}

// CustomCall calls target with operands; the result types are given. attrs
// may add has_side_effect, backend_config, api_version,
// called_computations, output_operand_aliases...
func (s *Scope) CustomCall(target string, operands []*Value, resultTypes []Type, attrs ...NamedAttr) []*Value {
	all := append([]NamedAttr{{"call_target_name", StringAttr(target)}}, attrs...)
	return s.emit("stablehlo.custom_call", operands, all, nil, append([]Type{}, resultTypes...), len(resultTypes))
}

// resolveFunc finds a callee: a *FuncBuilder, a *Func or a function name
// of this builder.
func (s *Scope) resolveFunc(op string, callee any) *Func {
	switch c := callee.(type) {
	case *FuncBuilder:
		if c == nil {
			break
		}
		if c.b != s.b {
			s.b.failf(op, "callee @%s belongs to another builder", c.f.Name)
			return nil
		}
		if !c.returned {
			s.b.failf(op, "callee @%s has no Return yet (its result types are unknown)", c.f.Name)
			return nil
		}
		return c.f
	case *Func:
		if c != nil {
			return c
		}
	case string:
		for _, f := range s.b.funcs {
			if f.f.Name == c {
				return s.resolveFunc(op, f)
			}
		}
		s.b.failf(op, "no function @%s", c)
		return nil
	}
	s.b.failf(op, "callee %v is not a *FuncBuilder, *Func or function name", callee)
	return nil
}

// Call adds func.call of callee (a *FuncBuilder, *Func or name) with args.
func (s *Scope) Call(callee any, args ...*Value) []*Value {
	if s.b.err != nil {
		return nil
	}
	f := s.resolveFunc("func.call", callee)
	if f == nil {
		return nil
	}
	if !s.checkOperands("func.call", args) {
		return placeholders(len(f.ResultTypes))
	}
	if got := valueTypes(args); !typesCompatibleList(got, f.ArgTypes()) {
		s.b.failf("func.call", "argument types (%s) do not match @%s's (%s)", typeList(got), f.Name, typeList(f.ArgTypes()))
		return placeholders(len(f.ResultTypes))
	}
	return s.emit("func.call", args, []NamedAttr{{"callee", SymbolRefAttr{Name: f.Name}}}, nil,
		append([]Type{}, f.ResultTypes...), len(f.ResultTypes))
}

// Composite adds stablehlo.composite name (e.g. "my.softmax") over inputs,
// equivalent to calling decomposition.
func (s *Scope) Composite(name string, inputs []*Value, decomposition any, attrs DictAttr, version int) []*Value {
	const op = "stablehlo.composite"
	if s.b.err != nil {
		return nil
	}
	f := s.resolveFunc(op, decomposition)
	if f == nil {
		return nil
	}
	if got := valueTypes(inputs); s.checkOperands(op, inputs) && !typesCompatibleList(got, f.ArgTypes()) {
		s.b.failf(op, "input types (%s) do not match decomposition @%s's (%s)", typeList(got), f.Name, typeList(f.ArgTypes()))
	}
	all := []NamedAttr{{"name", StringAttr(name)}, {"decomposition", SymbolRefAttr{Name: f.Name}}}
	if len(attrs) > 0 {
		all = append(all, NamedAttr{"composite_attributes", attrs})
	}
	if version != 0 {
		all = append(all, NamedAttr{"version", I32Attr(int64(version))})
	}
	return s.emit(op, inputs, all, nil, append([]Type{}, f.ResultTypes...), len(f.ResultTypes))
}

// CollectiveOptions are the attributes shared by collectives.
type CollectiveOptions struct {
	// ReplicaGroups lists the groups of replica (or device) ids; every
	// group must have the same size. Nil means one group of all replicas
	// (an empty replica_groups attribute).
	ReplicaGroups [][]int64
	// ChannelID > 0 adds channel_handle = #stablehlo.channel_handle<handle
	// = ChannelID, type = ChannelType>, making the op cross-partition.
	ChannelID   int64
	ChannelType int64
	// UseGlobalDeviceIDs makes ReplicaGroups hold flattened device ids.
	UseGlobalDeviceIDs bool
}

func (o *CollectiveOptions) attrs(op string, groups bool) ([]NamedAttr, error) {
	var out []NamedAttr
	if groups {
		cols := 0
		if len(o.ReplicaGroups) > 0 {
			cols = len(o.ReplicaGroups[0])
		}
		for _, g := range o.ReplicaGroups {
			if len(g) != cols {
				return nil, fmt.Errorf("%s: replica groups %v have different sizes", op, o.ReplicaGroups)
			}
		}
		out = append(out, NamedAttr{"replica_groups", I64ElementsAttr(o.ReplicaGroups, cols)})
	}
	if o.ChannelID > 0 {
		out = append(out, NamedAttr{"channel_handle", ChannelHandleAttr{Handle: o.ChannelID, Type: o.ChannelType}})
	}
	if o.UseGlobalDeviceIDs {
		out = append(out, NamedAttr{"use_global_device_ids", UnitAttr{}})
	}
	return out, nil
}

func (s *Scope) collectiveAttrs(op string, o CollectiveOptions, groups bool, extra ...NamedAttr) ([]NamedAttr, bool) {
	attrs, err := o.attrs(op, groups)
	if err != nil {
		s.b.fail(op, err)
		return nil, false
	}
	return append(extra, attrs...), true
}

// AllReduce reduces xs across replicas with body, which gets two 0-d
// values of xs[0]'s element type and returns their combination.
func (s *Scope) AllReduce(xs []*Value, o CollectiveOptions, body func(s *Scope, args []*Value) *Value) []*Value {
	const name = "stablehlo.all_reduce"
	n := len(xs)
	if n == 0 {
		s.b.failf(name, "no operands")
		return nil
	}
	attrs, ok := s.collectiveAttrs(name, o, true)
	if !ok {
		return placeholders(n)
	}
	argTypes, ok := s.scalarArgs(name, xs[:1], 2)
	if !ok {
		return placeholders(n)
	}
	r := s.region(name, argTypes, singleResult(body))
	if r == nil {
		return placeholders(n)
	}
	return s.emit(name, xs, attrs, []*Region{r}, nil, n)
}

// AllGather concatenates each x across the group along dim.
func (s *Scope) AllGather(xs []*Value, dim int64, o CollectiveOptions) []*Value {
	const name = "stablehlo.all_gather"
	attrs, ok := s.collectiveAttrs(name, o, true, NamedAttr{"all_gather_dim", I64Attr(dim)})
	if !ok {
		return placeholders(len(xs))
	}
	return s.emit(name, xs, attrs, nil, nil, len(xs))
}

// ReduceScatter reduces x across the group with body (see AllReduce) and
// scatters the result's blocks along dim.
func (s *Scope) ReduceScatter(x *Value, dim int64, o CollectiveOptions, body func(s *Scope, args []*Value) *Value) *Value {
	const name = "stablehlo.reduce_scatter"
	attrs, ok := s.collectiveAttrs(name, o, true, NamedAttr{"scatter_dimension", I64Attr(dim)})
	if !ok {
		return placeholder()
	}
	argTypes, ok := s.scalarArgs(name, []*Value{x}, 2)
	if !ok {
		return placeholder()
	}
	r := s.region(name, argTypes, singleResult(body))
	if r == nil {
		return placeholder()
	}
	return s.emit(name, []*Value{x}, attrs, []*Region{r}, nil, 1)[0]
}

// AllToAll splits each x along splitDim into splitCount blocks, exchanges
// them across the group and concatenates the received blocks along
// concatDim.
func (s *Scope) AllToAll(xs []*Value, splitDim, concatDim, splitCount int64, o CollectiveOptions) []*Value {
	const name = "stablehlo.all_to_all"
	attrs, ok := s.collectiveAttrs(name, o, true,
		NamedAttr{"split_dimension", I64Attr(splitDim)},
		NamedAttr{"concat_dimension", I64Attr(concatDim)},
		NamedAttr{"split_count", I64Attr(splitCount)})
	if !ok {
		return placeholders(len(xs))
	}
	return s.emit(name, xs, attrs, nil, nil, len(xs))
}

// CollectivePermute sends x from each source to its target (pairs of
// [source, target]); processes that receive nothing get zeros.
func (s *Scope) CollectivePermute(x *Value, pairs [][2]int64, o CollectiveOptions) *Value {
	const name = "stablehlo.collective_permute"
	attrs, ok := s.collectiveAttrs(name, o, false, NamedAttr{"source_target_pairs", PairsAttr(pairs)})
	if !ok {
		return placeholder()
	}
	return s.emit1(name, []*Value{x}, attrs)
}

// CollectiveBroadcast sends xs from the first process of each group to the
// others.
func (s *Scope) CollectiveBroadcast(xs []*Value, o CollectiveOptions) []*Value {
	const name = "stablehlo.collective_broadcast"
	attrs, ok := s.collectiveAttrs(name, o, true)
	if !ok {
		return placeholders(len(xs))
	}
	return s.emit(name, xs, attrs, nil, nil, len(xs))
}
