package collective

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// groupMode is how a collective splits the process grid into process
// groups (spec: Execution / Collective ops).
type groupMode int

const (
	crossReplica groupMode = iota
	crossPartition
	crossReplicaAndPartition
	flattenedIDs
)

func (m groupMode) String() string {
	return [...]string{"cross_replica", "cross_partition", "cross_replica_and_partition", "flattened_ids"}[m]
}

// collectiveAttrs are the grouping attributes shared by the collectives.
type collectiveAttrs struct {
	groups    [][]int64 // replica_groups rows, -1 padding dropped
	channelID int64
	global    bool // use_global_device_ids
}

func readCollectiveAttrs(c *kernel.OpCtx, groupsAttr string) (*collectiveAttrs, error) {
	ca := &collectiveAttrs{}
	if a := c.Op.Attr(groupsAttr); a != nil {
		g, err := readGroups(c, groupsAttr, a, true)
		if err != nil {
			return nil, err
		}
		ca.groups = g
	}
	switch a := c.Op.Attr("channel_handle").(type) {
	case nil:
	case hlo.ChannelHandleAttr:
		ca.channelID = a.Handle
	default:
		return nil, c.Errorf("channel_handle %s is not a #stablehlo.channel_handle", hlo.AttrString(a))
	}
	if v, ok := c.Int("channel_id"); ok {
		ca.channelID = v
	}
	if a := c.Op.Attr("use_global_device_ids"); a != nil {
		switch a := a.(type) {
		case hlo.UnitAttr:
			ca.global = true
		case hlo.BoolAttr:
			ca.global = bool(a)
		default:
			return nil, c.Errorf("use_global_device_ids %s is not a unit or bool attribute", hlo.AttrString(a))
		}
	}
	if ca.global && ca.channelID <= 0 {
		return nil, c.Errorf("use_global_device_ids needs a positive channel id, got %d", ca.channelID)
	}
	return ca, nil
}

// readGroups reads a 2-D si64 tensor of ids; negative entries pad ragged
// rows and are dropped. unique rejects an id listed twice.
func readGroups(c *kernel.OpCtx, name string, a hlo.Attr, unique bool) ([][]int64, error) {
	d, ok := a.(*hlo.DenseElementsAttr)
	if !ok {
		return nil, c.Errorf("%s %s: only dense id tensors are supported (not mesh axes)", name, hlo.AttrString(a))
	}
	if d.Type == nil || len(d.Type.Dims) != 2 {
		return nil, c.Errorf("%s must be a 2-D tensor, got %s", name, hlo.AttrString(a))
	}
	l, err := c.DenseLiteral(d)
	if err != nil {
		return nil, err
	}
	if len(l.Dims) != 2 {
		return nil, c.Errorf("%s must be a 2-D tensor, got %s", name, l.ShapeString())
	}
	rows, cols := int(l.Dims[0]), int(l.Dims[1])
	out := make([][]int64, 0, rows)
	seen := map[int64]bool{}
	for r := 0; r < rows; r++ {
		var row []int64
		for k := 0; k < cols; k++ {
			v := l.Int(r*cols + k)
			if v < 0 {
				continue
			}
			if seen[v] && unique {
				return nil, c.Errorf("%s lists id %d twice", name, v)
			}
			seen[v] = true
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out, nil
}

// mode picks the grouping of all_gather, all_reduce and reduce_scatter.
func (ca *collectiveAttrs) globalMode() groupMode {
	switch {
	case ca.channelID <= 0:
		return crossReplica
	case !ca.global:
		return crossReplicaAndPartition
	}
	return flattenedIDs
}

// channelMode picks the grouping of all_to_all, collective_broadcast,
// collective_permute and collective_reduce.
func (ca *collectiveAttrs) channelMode() groupMode {
	if ca.channelID <= 0 {
		return crossReplica
	}
	return crossPartition
}

// grid returns x's grid size (a context without one is a single device).
func grid(x *kernel.Ctx) (nr, np int) { return max(x.NumReplicas, 1), max(x.NumPartitions, 1) }

// self is x's flattened device id.
func self(x *kernel.Ctx) int {
	_, np := grid(x)
	return x.Replica*np + x.Partition
}

// processGroups expands id groups into groups of flattened device ids
// (replica*num_partitions + partition), in the spec's order.
func processGroups(mode groupMode, groups [][]int64, nr, np int) ([][]int, error) {
	limit := nr
	switch mode {
	case crossPartition:
		limit = np
	case flattenedIDs:
		limit = nr * np
	}
	for _, g := range groups {
		for _, id := range g {
			if id >= int64(limit) {
				return nil, fmt.Errorf("%s group id %d out of range (%d replicas x %d partitions)", mode, id, nr, np)
			}
		}
	}
	var out [][]int
	switch mode {
	case crossReplica:
		for _, g := range groups {
			for p := 0; p < np; p++ {
				var pg []int
				for _, r := range g {
					pg = append(pg, int(r)*np+p)
				}
				out = append(out, pg)
			}
		}
	case crossPartition:
		for _, g := range groups {
			for r := 0; r < nr; r++ {
				var pg []int
				for _, p := range g {
					pg = append(pg, r*np+int(p))
				}
				out = append(out, pg)
			}
		}
	case crossReplicaAndPartition:
		for _, g := range groups {
			var pg []int
			for p := 0; p < np; p++ {
				for _, r := range g {
					pg = append(pg, int(r)*np+p)
				}
			}
			out = append(out, pg)
		}
	case flattenedIDs:
		for _, g := range groups {
			var pg []int
			for _, id := range g {
				pg = append(pg, int(id))
			}
			out = append(out, pg)
		}
	}
	return out, nil
}

// myGroup returns the process group containing x's device and x's index in
// it; index -1 when the device is in no group. Empty replica_groups mean
// one group of every id.
func myGroup(x *kernel.Ctx, mode groupMode, groups [][]int64) ([]int, int, error) {
	nr, np := grid(x)
	if len(groups) == 0 {
		n := nr
		switch mode {
		case crossPartition:
			n = np
		case flattenedIDs:
			n = nr * np
		}
		all := make([]int64, n)
		for i := range all {
			all[i] = int64(i)
		}
		groups = [][]int64{all}
	}
	pgs, err := processGroups(mode, groups, nr, np)
	if err != nil {
		return nil, -1, err
	}
	me := self(x)
	for _, g := range pgs {
		if i := slices.Index(g, me); i >= 0 {
			return g, i, nil
		}
	}
	return nil, -1, nil
}

// payload is what one device contributes to a collective.
type payload struct {
	op   string
	vals []*hlo.Literal
}

// exchange contributes vals to the collective of group and returns every
// member's values in group order. The hub matches collectives by group and
// order (see host.Hub), so the key is the group; the op name is checked.
func exchange(x *kernel.Ctx, op *hlo.Op, group []int, vals []*hlo.Literal) ([][]*hlo.Literal, error) {
	if len(group) == 1 {
		return [][]*hlo.Literal{vals}, nil
	}
	if x.Comm == nil {
		return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("process group %v spans several devices but the program runs on one (use a replicated run or interpreter.run_parallel)", group)}
	}
	var key strings.Builder
	key.WriteString("group")
	for _, g := range group {
		key.WriteByte(' ')
		key.WriteString(strconv.Itoa(g))
	}
	// Contribute copies: once the exchange returns here, the planner may
	// recycle this device's operands while peers still read them.
	mine := make([]*hlo.Literal, len(vals))
	for i, v := range vals {
		mine[i] = v.Clone()
	}
	got, err := x.Comm.Exchange(key.String(), self(x), group, payload{op: op.Name, vals: mine})
	if err != nil {
		return nil, kernel.WrapError(op, err)
	}
	out := make([][]*hlo.Literal, len(got))
	for i, v := range got {
		p, ok := v.(payload)
		if !ok || p.op != op.Name || len(p.vals) != len(vals) {
			return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("device %d joined this collective with a different op (%v); devices must run the same collectives in the same order", group[i], describePayload(v))}
		}
		out[i] = p.vals
	}
	return out, nil
}

func describePayload(v kernel.Value) string {
	if p, ok := v.(payload); ok {
		return fmt.Sprintf("%s with %d operands", p.op, len(p.vals))
	}
	return fmt.Sprintf("%T", v)
}
