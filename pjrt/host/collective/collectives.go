package collective

import (
	"fmt"
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The collectives exchange operands between the devices of a process group
// through x.Comm and compute their results locally (each member computes the
// same reduction in the same order, so results agree bit for bit). Results
// are always new literals.
func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.all_reduce", Compile: compileAllReduce, Fresh: true},
		kernel.Entry{Name: "stablehlo.all_gather", Compile: compileAllGather, Fresh: true},
		kernel.Entry{Name: "stablehlo.reduce_scatter", Compile: compileReduceScatter, Fresh: true},
		kernel.Entry{Name: "stablehlo.all_to_all", Compile: compileAllToAll, Fresh: true},
		kernel.Entry{Name: "stablehlo.collective_permute", Compile: compileCollectivePermute, Fresh: true},
		kernel.Entry{Name: "stablehlo.collective_broadcast", Compile: compileCollectiveBroadcast, Fresh: true},
		kernel.Entry{Name: "stablehlo.collective_reduce", Compile: compileCollectiveReduce, Fresh: true},
		kernel.Entry{Name: "stablehlo.replica_id", Compile: compileProcessID(true), Fresh: true},
		kernel.Entry{Name: "stablehlo.partition_id", Compile: compileProcessID(false), Fresh: true},
	)
}

// joinGroup finds x's process group; a device in no group is an error for
// the collectives that need every device in one.
func joinGroup(x *kernel.Ctx, op *hlo.Op, mode groupMode, groups [][]int64) ([]int, int, error) {
	g, i, err := myGroup(x, mode, groups)
	if err != nil {
		return nil, -1, kernel.WrapError(op, err)
	}
	if i < 0 {
		return nil, -1, kernel.OpErrorf(op, "device (replica %d, partition %d) is in no %s process group of %v", x.Replica, x.Partition, mode, groups)
	}
	return g, i, nil
}

// exchangeInGroup converts args, finds x's process group (a device in none
// is an error) and exchanges the operands with its members: all[k][j] is
// operand j of member k, and me is x's index in the group.
func exchangeInGroup(x *kernel.Ctx, op *hlo.Op, mode groupMode, groups [][]int64, args []kernel.Value) (all [][]*hlo.Literal, me int, err error) {
	vals, err := kernel.TensorArgs(op, args)
	if err != nil {
		return nil, -1, err
	}
	group, me, err := joinGroup(x, op, mode, groups)
	if err != nil {
		return nil, -1, err
	}
	all, err = exchange(x, op, group, vals)
	if err != nil {
		return nil, -1, err
	}
	return all, me, nil
}

// column returns operand j of every group member.
func column(all [][]*hlo.Literal, j int) []*hlo.Literal {
	col := make([]*hlo.Literal, len(all))
	for k := range all {
		col[k] = all[k][j]
	}
	return col
}

// compileReduction reads the grouping attributes of a reducing collective
// and compiles its one computation region.
func compileReduction(c *kernel.OpCtx) (*collectiveAttrs, *combiner, error) {
	ca, err := readCollectiveAttrs(c, "replica_groups")
	if err != nil {
		return nil, nil, err
	}
	if len(c.Op.Regions) != 1 {
		return nil, nil, c.Errorf("want one computation region, got %d", len(c.Op.Regions))
	}
	cb, err := compileCombiner(c, c.Op.Regions[0])
	if err != nil {
		return nil, nil, err
	}
	return ca, cb, nil
}

func compileAllReduce(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, cb, err := compileReduction(c)
	if err != nil {
		return nil, err
	}
	if len(c.Op.Results) != len(c.Op.Operands) {
		return nil, c.Errorf("%d operands but %d results", len(c.Op.Operands), len(c.Op.Results))
	}
	op, mode := c.Op, ca.globalMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		all, _, err := exchangeInGroup(x, op, mode, ca.groups, args)
		if err != nil {
			return err
		}
		for j := range args {
			r, err := cb.reduceAll(x, column(all, j))
			if err != nil {
				return kernel.WrapError(op, err)
			}
			results[j] = r
		}
		return nil
	}, nil
}

func compileAllGather(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, err := readCollectiveAttrs(c, "replica_groups")
	if err != nil {
		return nil, err
	}
	dim, ok := c.Int("all_gather_dim")
	if !ok {
		return nil, c.Errorf("missing all_gather_dim")
	}
	outs, err := c.StaticResults()
	if err != nil {
		return nil, err
	}
	for i, t := range outs {
		if dim < 0 || int(dim) >= t.Rank() {
			return nil, c.Errorf("all_gather_dim %d out of range for result %d %s", dim, i, t)
		}
	}
	op, mode := c.Op, ca.globalMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		all, _, err := exchangeInGroup(x, op, mode, ca.groups, args)
		if err != nil {
			return err
		}
		for j := range args {
			r := kernel.ConcatDim(column(all, j), int(dim))
			if r.DType != outs[j].DType || !slices.Equal(r.Dims, outs[j].Dims) {
				return kernel.OpErrorf(op, "gathered %s from a group of %d, result type is %s", r.ShapeString(), len(all), outs[j].ShapeString())
			}
			results[j] = r
		}
		return nil
	}, nil
}

func compileReduceScatter(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, cb, err := compileReduction(c)
	if err != nil {
		return nil, err
	}
	dim, ok := c.Int("scatter_dimension")
	if !ok {
		return nil, c.Errorf("missing scatter_dimension")
	}
	op, mode := c.Op, ca.globalMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		all, me, err := exchangeInGroup(x, op, mode, ca.groups, args)
		if err != nil {
			return err
		}
		n := int64(len(all))
		for j := range args {
			r, err := cb.reduceAll(x, column(all, j))
			if err != nil {
				return kernel.WrapError(op, err)
			}
			if dim < 0 || int(dim) >= len(r.Dims) || r.Dims[dim]%n != 0 {
				return kernel.OpErrorf(op, "scatter_dimension %d of %s does not split into %d parts", dim, r.ShapeString(), n)
			}
			size := r.Dims[dim] / n
			results[j] = kernel.SliceDim(r, int(dim), int64(me)*size, size)
		}
		return nil
	}, nil
}

func compileAllToAll(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, err := readCollectiveAttrs(c, "replica_groups")
	if err != nil {
		return nil, err
	}
	splitDim, ok1 := c.Int("split_dimension")
	concatDimension, ok2 := c.Int("concat_dimension")
	splitCount, ok3 := c.Int("split_count")
	if !ok1 || !ok2 || !ok3 {
		return nil, c.Errorf("needs split_dimension, concat_dimension and split_count")
	}
	if splitCount <= 0 {
		return nil, c.Errorf("split_count %d must be positive", splitCount)
	}
	for i, t := range c.In {
		tt, err := c.StaticTensor(t, fmt.Sprintf("operand %d", i))
		if err != nil {
			return nil, err
		}
		if splitDim < 0 || int(splitDim) >= tt.Rank() || concatDimension < 0 || int(concatDimension) >= tt.Rank() {
			return nil, c.Errorf("split_dimension %d / concat_dimension %d out of range for %s", splitDim, concatDimension, tt)
		}
		if tt.Dims[splitDim]%splitCount != 0 {
			return nil, c.Errorf("dimension %d of %s does not split into %d parts", splitDim, tt, splitCount)
		}
	}
	op, mode := c.Op, ca.channelMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		vals, err := kernel.TensorArgs(op, args)
		if err != nil {
			return err
		}
		group, me, err := joinGroup(x, op, mode, ca.groups)
		if err != nil {
			return err
		}
		if int64(len(group)) != splitCount {
			return kernel.OpErrorf(op, "split_count %d differs from the process group size %d", splitCount, len(group))
		}
		all, err := exchange(x, op, group, vals)
		if err != nil {
			return err
		}
		for j := range vals {
			parts := make([]*hlo.Literal, len(all))
			for k := range all {
				v := all[k][j]
				size := v.Dims[splitDim] / splitCount
				parts[k] = kernel.SliceDim(v, int(splitDim), int64(me)*size, size)
			}
			results[j] = kernel.ConcatDim(parts, int(concatDimension))
		}
		return nil
	}, nil
}

func compileCollectivePermute(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, err := readCollectiveAttrs(c, "")
	if err != nil {
		return nil, err
	}
	a := c.Op.Attr("source_target_pairs")
	if a == nil {
		return nil, c.Errorf("missing source_target_pairs")
	}
	pairs, err := readGroups(c, "source_target_pairs", a, false)
	if err != nil {
		return nil, err
	}
	sources, targets := map[int64]bool{}, map[int64]bool{}
	var ids []int64 // every id named by a pair, once
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, c.Errorf("source_target_pairs rows must be [source, target] pairs, got %v", p)
		}
		if sources[p[0]] || targets[p[1]] {
			return nil, c.Errorf("source_target_pairs repeats a source or a target: %v", pairs)
		}
		sources[p[0]], targets[p[1]] = true, true
		for _, id := range p {
			seen := false
			for _, s := range ids {
				seen = seen || s == id
			}
			if !seen {
				ids = append(ids, id)
			}
		}
	}
	outs, err := c.StaticResults()
	if err != nil {
		return nil, err
	}
	op, mode := c.Op, ca.channelMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		vals, err := kernel.TensorArgs(op, args)
		if err != nil {
			return err
		}
		// Every device named by a pair (within x's slice of the grid)
		// contributes; each target picks its source's operand.
		group, me, err := myGroup(x, mode, [][]int64{ids})
		if err != nil {
			return kernel.WrapError(op, err)
		}
		if me < 0 {
			for j, t := range outs {
				results[j] = zerosOf(t)
			}
			return nil
		}
		all, err := exchange(x, op, group, vals)
		if err != nil {
			return err
		}
		myID := ids[me]
		for j, t := range outs {
			results[j] = zerosOf(t)
			for _, p := range pairs {
				if p[1] == myID {
					for k, id := range ids {
						if id == p[0] {
							results[j] = all[k][j].Clone()
						}
					}
				}
			}
		}
		return nil
	}, nil
}

// rootAttrs reads has_dynamic_root: the last operand then holds, per data
// operand, the index in the process group of its source (root) process.
func hasDynamicRoot(c *kernel.OpCtx) bool {
	switch a := c.Op.Attr("has_dynamic_root").(type) {
	case hlo.UnitAttr:
		return true
	case hlo.BoolAttr:
		return bool(a)
	}
	return false
}

// roots returns, per data operand, the index of its root in the group.
func roots(op *hlo.Op, vals []*hlo.Literal, dynamic bool, groupSize int) ([]*hlo.Literal, []int, error) {
	if !dynamic {
		return vals, make([]int, len(vals)), nil
	}
	if len(vals) < 2 {
		return nil, nil, kernel.OpErrorf(op, "has_dynamic_root needs data operands and a root operand")
	}
	rl := vals[len(vals)-1]
	data := vals[:len(vals)-1]
	if rl.NumElements() != len(data) {
		return nil, nil, kernel.OpErrorf(op, "root operand %s must hold one index per data operand (%d)", rl.ShapeString(), len(data))
	}
	rs := make([]int, len(data))
	for j := range data {
		r := rl.Int(j)
		if r < 0 || r >= int64(groupSize) {
			return nil, nil, kernel.OpErrorf(op, "root index %d out of range for a process group of %d", r, groupSize)
		}
		rs[j] = int(r)
	}
	return data, rs, nil
}

// rootedExchange is the run-time part collective_broadcast and
// collective_reduce share: it converts args, finds x's process group and,
// when x is in one, reads each data operand's root and exchanges the
// operands with the group (all[k][j] is operand j of member k, me is x's
// index). all and rs are nil when x is in no group.
func rootedExchange(x *kernel.Ctx, op *hlo.Op, mode groupMode, groups [][]int64, dynamic bool, nout int, args []kernel.Value) (all [][]*hlo.Literal, rs []int, me int, err error) {
	vals, err := kernel.TensorArgs(op, args)
	if err != nil {
		return nil, nil, -1, err
	}
	group, me, err := myGroup(x, mode, groups)
	if err != nil {
		return nil, nil, -1, kernel.WrapError(op, err)
	}
	if group == nil {
		return nil, nil, -1, nil
	}
	data, rs, err := roots(op, vals, dynamic, len(group))
	if err != nil {
		return nil, nil, -1, err
	}
	if len(data) != nout {
		return nil, nil, -1, kernel.OpErrorf(op, "%d data operands but %d results", len(data), nout)
	}
	all, err = exchange(x, op, group, vals)
	if err != nil {
		return nil, nil, -1, err
	}
	return all, rs, me, nil
}

func compileCollectiveBroadcast(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, err := readCollectiveAttrs(c, "replica_groups")
	if err != nil {
		return nil, err
	}
	outs, err := c.StaticResults()
	if err != nil {
		return nil, err
	}
	dynamic := hasDynamicRoot(c)
	op, mode := c.Op, ca.channelMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		all, rs, _, err := rootedExchange(x, op, mode, ca.groups, dynamic, len(outs), args)
		if err != nil {
			return err
		}
		if all == nil {
			for j, t := range outs {
				results[j] = zerosOf(t)
			}
			return nil
		}
		for j := range rs {
			results[j] = all[rs[j]][j].Clone()
		}
		return nil
	}, nil
}

func compileCollectiveReduce(c *kernel.OpCtx) (kernel.RunFn, error) {
	ca, cb, err := compileReduction(c)
	if err != nil {
		return nil, err
	}
	outs, err := c.StaticResults()
	if err != nil {
		return nil, err
	}
	dynamic := hasDynamicRoot(c)
	op, mode := c.Op, ca.channelMode()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		all, rs, me, err := rootedExchange(x, op, mode, ca.groups, dynamic, len(outs), args)
		if err != nil {
			return err
		}
		// Members that are not an operand's root (and devices in no group)
		// return zeros for it.
		for j, t := range outs {
			results[j] = zerosOf(t)
		}
		for j := range rs {
			if rs[j] != me {
				continue
			}
			r, err := cb.reduceAll(x, column(all, j))
			if err != nil {
				return kernel.WrapError(op, err)
			}
			results[j] = r
		}
		return nil
	}, nil
}

func compileProcessID(replica bool) kernel.CompileFn {
	return func(c *kernel.OpCtx) (kernel.RunFn, error) {
		outs, err := c.StaticResults()
		if err != nil {
			return nil, err
		}
		if len(outs) != 1 || outs[0].Rank() != 0 {
			return nil, c.Errorf("result must be one scalar, got %v", c.Out)
		}
		t := outs[0]
		return func(x *kernel.Ctx, args, results []kernel.Value) error {
			l := kernel.Alloc(t)
			if replica {
				l.SetInt(0, int64(x.Replica))
			} else {
				l.SetInt(0, int64(x.Partition))
			}
			results[0] = l
			return nil
		}, nil
	}
}
