package hlo

// Rules for the collective ops. Process group sizes come from
// replica_groups; with a channel and without use_global_device_ids the
// groups span all partitions too (cross_replica_and_partition), whose count
// the op does not state, so a declared result size that is a multiple of
// the replica-group size is accepted then.

// groupSize returns the size of each replica group (dim 1 of the
// replica_groups attribute), or -1 when unknown.
func (c *inferCtx) groupSize() int64 {
	if d, ok := c.attr("replica_groups").(*DenseElementsAttr); ok && len(d.Type.Dims) == 2 && d.Type.Dims[1] > 0 {
		return d.Type.Dims[1]
	}
	return -1
}

// spansPartitions reports whether groups include every partition of each
// listed replica (the size then has an unknown extra factor).
func (c *inferCtx) spansPartitions() bool {
	g, _ := c.flag("use_global_device_ids")
	return c.attr("channel_handle") != nil && !g
}

// checkReplicaGroups checks that replica ids in replica_groups are unique
// and non-negative (-1 pads ragged groups), and that flattened device ids
// come with a channel.
func (c *inferCtx) checkReplicaGroups() error {
	if g, _ := c.flag("use_global_device_ids"); g {
		if ch, ok := c.attr("channel_handle").(ChannelHandleAttr); !ok || ch.Handle <= 0 {
			return c.errf("use_global_device_ids needs a channel_handle with a positive handle")
		}
	}
	d, ok := c.attr("replica_groups").(*DenseElementsAttr)
	if !ok {
		return nil
	}
	xs, _ := AttrInts(d)
	seen := map[int64]bool{}
	for _, x := range xs {
		if x == -1 {
			continue
		}
		if x < 0 || seen[x] {
			return c.errf("replica_groups %s must hold unique non-negative ids", AttrString(d))
		}
		seen[x] = true
	}
	return nil
}

// scaledDim gives the size of a gathered (mul) or scattered (!mul)
// dimension of size d, or takes the declared result's size when the group
// size is not fully known.
func (c *inferCtx) scaledDim(d int64, res int, axis int64, mul bool) (int64, error) {
	s := c.groupSize()
	given, _ := c.givenType(res).(*TensorType)
	var gd int64 = DynamicDim
	if given != nil && int(axis) < given.Rank() {
		gd = given.Dims[axis]
	}
	if d < 0 {
		return DynamicDim, nil
	}
	if s < 0 {
		return gd, nil
	}
	want, ok := mulInt64(d, s)
	if mul && !ok {
		return 0, c.errf("dimension %d of size %d times the replica group size %d overflows int64", axis, d, s)
	}
	if !mul {
		if d%s != 0 {
			return 0, c.errf("dimension %d of size %d is not divisible by the replica group size %d", axis, d, s)
		}
		want = d / s
	}
	if c.spansPartitions() && gd >= 0 {
		if mul && gd%want == 0 && gd > 0 {
			return gd, nil
		}
		if !mul && want%gd == 0 && gd > 0 {
			return gd, nil
		}
	}
	return want, nil
}

func inferAllGather(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	if err := c.checkReplicaGroups(); err != nil {
		return nil, err
	}
	dim, err := c.reqInt("all_gather_dim")
	if err != nil {
		return nil, err
	}
	out := make([]Type, len(ts))
	for i, t := range ts {
		if dim < 0 || dim >= int64(t.Rank()) {
			return nil, c.errf("all_gather_dim %d is out of range for %s", dim, t)
		}
		d, err := c.scaledDim(t.Dims[dim], i, dim, true)
		if err != nil {
			return nil, err
		}
		dims := append([]int64{}, t.Dims...)
		dims[dim] = d
		out[i] = withDims(t, dims)
	}
	return out, nil
}

// reductionElem checks the binary computation region of all_reduce,
// reduce_scatter and collective_reduce and returns its element type E.
func (c *inferCtx) reductionElem(inputs []*TensorType) (*TensorType, error) {
	args, results, err := c.regionSig(0, "computation")
	if err != nil {
		return nil, err
	}
	e, ok := args0d(args)
	if !ok || len(args) != 2 || !TypesCompatible(args[1], e) {
		return nil, c.errf("computation region takes (%s), want (tensor<E>, tensor<E>)", typeList(args))
	}
	if len(results) != 1 || !TypesCompatible(results[0], e) {
		return nil, c.errf("computation region returns (%s), want (%s)", typeList(results), e)
	}
	for _, t := range inputs {
		if !isPromotable(t, e) {
			return nil, c.errf("computation element type %s cannot hold operand type %s", e, t)
		}
	}
	return e, nil
}

// reducedTypes checks the computation region against the inputs and
// returns one result per input: its shape with the computation's element
// type.
func (c *inferCtx) reducedTypes(inputs []*TensorType) ([]Type, error) {
	e, err := c.reductionElem(inputs)
	if err != nil {
		return nil, err
	}
	out := make([]Type, len(inputs))
	for i, t := range inputs {
		out[i] = withDims(e, t.Dims)
	}
	return out, nil
}

func args0d(args []Type) (*TensorType, bool) {
	if len(args) == 0 {
		return nil, false
	}
	t, ok := args[0].(*TensorType)
	return t, ok && t.Rank() == 0
}

func inferAllReduce(c *inferCtx) ([]Type, error) {
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	if err := c.checkReplicaGroups(); err != nil {
		return nil, err
	}
	return c.reducedTypes(ts)
}

func inferReduceScatter(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	t, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	if err := c.checkReplicaGroups(); err != nil {
		return nil, err
	}
	dim, err := c.reqInt("scatter_dimension")
	if err != nil {
		return nil, err
	}
	if dim < 0 || dim >= int64(t.Rank()) {
		return nil, c.errf("scatter_dimension %d is out of range for %s", dim, t)
	}
	e, err := c.reductionElem([]*TensorType{t})
	if err != nil {
		return nil, err
	}
	d, err := c.scaledDim(t.Dims[dim], 0, dim, false)
	if err != nil {
		return nil, err
	}
	dims := append([]int64{}, t.Dims...)
	dims[dim] = d
	return []Type{withDims(e, dims)}, nil
}

func inferAllToAll(c *inferCtx) ([]Type, error) {
	if err := c.minOperands(1); err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	if err := c.checkReplicaGroups(); err != nil {
		return nil, err
	}
	split, err := c.reqInt("split_dimension")
	if err != nil {
		return nil, err
	}
	concat, err := c.reqInt("concat_dimension")
	if err != nil {
		return nil, err
	}
	count, err := c.reqInt("split_count")
	if err != nil {
		return nil, err
	}
	if count <= 0 {
		return nil, c.errf("split_count %d must be positive", count)
	}
	if s := c.groupSize(); s >= 0 && s != count {
		return nil, c.errf("replica groups have size %d, split_count is %d", s, count)
	}
	out := make([]Type, len(ts))
	for i, t := range ts {
		r := int64(t.Rank())
		if split < 0 || split >= r || concat < 0 || concat >= r {
			return nil, c.errf("split_dimension %d or concat_dimension %d is out of range for %s", split, concat, t)
		}
		dims := append([]int64{}, t.Dims...)
		if d := dims[split]; d >= 0 {
			if d%count != 0 {
				return nil, c.errf("split dimension %d of %s is not divisible by split_count %d", split, t, count)
			}
			dims[split] = d / count
		}
		if dims[concat] >= 0 {
			p, ok := mulInt64(dims[concat], count)
			if !ok {
				return nil, c.errf("concat dimension %d of %s times split_count %d overflows int64", concat, t, count)
			}
			dims[concat] = p
		}
		out[i] = withDims(t, dims)
	}
	return out, nil
}

func inferCollectivePermute(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	t, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	a, ok := c.attr("source_target_pairs").(*DenseElementsAttr)
	if !ok {
		return nil, c.errf("missing attribute source_target_pairs")
	}
	if len(a.Type.Dims) != 2 || (a.Type.Dims[1] != 2 && a.Type.NumElements() != 0) {
		return nil, c.errf("source_target_pairs has type %s, want tensor<Nx2xi64>", a.Type)
	}
	xs, _ := AttrInts(a)
	src, dst := map[int64]bool{}, map[int64]bool{}
	for i := 0; i+1 < len(xs); i += 2 {
		if xs[i] < 0 || xs[i+1] < 0 || src[xs[i]] || dst[xs[i+1]] {
			return nil, c.errf("source_target_pairs %s must have unique non-negative sources and targets", AttrString(a))
		}
		src[xs[i]], dst[xs[i+1]] = true, true
	}
	return []Type{t}, nil
}

func inferCollectiveBroadcast(c *inferCtx) ([]Type, error) {
	if err := c.checkReplicaGroups(); err != nil {
		return nil, err
	}
	dyn, err := c.flag("has_dynamic_root")
	if err != nil {
		return nil, err
	}
	n := len(c.operands)
	if dyn {
		n--
	}
	if n < 1 {
		return nil, c.errf("expected at least one operand to broadcast")
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	return tensorsOf(ts[:n]...), nil
}

func inferCollectiveReduce(c *inferCtx) ([]Type, error) {
	if err := c.checkReplicaGroups(); err != nil {
		return nil, err
	}
	dyn, err := c.flag("has_dynamic_root")
	if err != nil {
		return nil, err
	}
	ts, err := c.tensors(0, len(c.operands))
	if err != nil {
		return nil, err
	}
	if dyn {
		ts = ts[:len(ts)-1]
	}
	return c.reducedTypes(ts)
}

func inferCrossReplicaSum(c *inferCtx) ([]Type, error) {
	if err := c.numOperands(1); err != nil {
		return nil, err
	}
	t, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	return []Type{t}, nil
}
