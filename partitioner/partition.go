package partitioner

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// Sites of errors and IR nodes pass over this package's frames to the
// user's line.
func init() { lazy.SkipInSites(reflect.TypeFor[Plan]().PkgPath()) }

// Stage is one step of a partitioned graph: a device partition (Device set)
// or a fallback stage (Fallback set).
type Stage struct {
	// Device is the partition's own graph: placeholders for Inputs (in
	// order, as arguments), its calls, and an output node listing Outputs.
	Device *fx.Graph
	// Fallback is a call node of the parent graph that the device cannot
	// run: it runs through its op's Go kernel (lazy.OpDef.GoKernel), on
	// the CPU between device partitions.
	Fallback *fx.Node
	// Inputs are the parent-graph values the stage reads; Outputs the
	// values it produces that later stages, the graph output or a
	// mutation read.
	Inputs, Outputs []fx.Ref
	// Partition is the device partition number (1-based), or -1 for a fallback
	// stage, as in fx.Node.Partition.
	Partition int
	// Node is the stage's call in Plan.Split.
	Node *fx.Node
}

// Plan is a partitioned graph.
type Plan struct {
	Graph  *fx.Graph
	Stages []Stage
	// Split is the graph of the stages (torch.fx's split_module): Graph's
	// placeholders, one call per stage in order (a copy of a fallback node, or
	// a call of a device partition's graph, fx.Node.Sub) and an output
	// node reading the stages' results. fx.Interpreter runs it.
	Split *fx.Graph
	// DevicePartitions is the number of device stages.
	DevicePartitions int
}

// Partition assigns each call node of g to a device partition or the host
// (host[n] true) and returns the stages in execution order. It sets
// n.Partition on g's call nodes (k for device partition k, -1 for host).
// The result is deterministic and acyclic: a device node's partition is one
// more than the latest host node it depends on.
func Partition(g *fx.Graph, host map[*fx.Node]bool) (*Plan, error) {
	if err := checkRefs(g); err != nil {
		return nil, err
	}
	level := make([]int, len(g.Nodes)) // device: partition index (0-based); host: level after which it runs
	isHost := func(n *fx.Node) bool { return n.Kind == fx.Call && host[n] }
	maxLevel := 0
	for _, n := range g.Nodes {
		if n.Kind != fx.Call {
			continue
		}
		l := 0
		for _, a := range n.Args {
			p := a.Node
			switch {
			case p.Kind != fx.Call:
			case isHost(p):
				l = max(l, level[p.ID]+1)
			default:
				l = max(l, level[p.ID])
			}
		}
		level[n.ID] = l
		maxLevel = max(maxLevel, l)
	}
	// Sink constant subgraphs (device nodes that read no placeholder, such
	// as a scalar constant and its broadcast) into the partition of their
	// earliest consumer, so they are not carried across partitions.
	free := make([]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		if n.Kind != fx.Call || isHost(n) {
			continue
		}
		free[n.ID] = true
		for _, a := range n.Args {
			if !free[a.Node.ID] {
				free[n.ID] = false
			}
		}
	}
	consumers := g.Uses()
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		if !free[n.ID] {
			continue
		}
		lo := -1
		for _, c := range consumers[n.ID] {
			cn := g.Nodes[c]
			if cn.Kind != fx.Call {
				lo = -1
				break
			}
			if lo < 0 || level[c] < lo {
				lo = level[c]
			}
		}
		if lo > level[n.ID] {
			level[n.ID] = lo
		}
	}
	// Partition numbers: device levels that have nodes, in order.
	used := make([]bool, maxLevel+1)
	for _, n := range g.Nodes {
		if n.Kind == fx.Call && !isHost(n) {
			used[level[n.ID]] = true
		}
	}
	number := make([]int, maxLevel+1)
	k := 0
	for l, u := range used {
		if u {
			k++
			number[l] = k
		}
	}
	plan := &Plan{Graph: g, DevicePartitions: k}
	for _, n := range g.Nodes {
		if n.Kind != fx.Call {
			continue
		}
		if isHost(n) {
			n.Partition = -1
		} else {
			n.Partition = number[level[n.ID]]
		}
	}
	// Which values are read outside their own stage.
	usedOutside := map[fx.Ref]bool{}
	stageOf := func(n *fx.Node) int { // -1 for placeholders
		if n.Kind != fx.Call {
			return -1
		}
		if isHost(n) {
			return -2 - n.ID // unique per host node
		}
		return n.Partition
	}
	for _, n := range g.Nodes {
		refs := append([]fx.Ref(nil), n.Args...)
		for _, m := range n.Mutations {
			refs = append(refs, m.Value)
		}
		for _, r := range refs {
			if r.Node.Kind == fx.Call && (n.Kind != fx.Call || stageOf(n) != stageOf(r.Node)) {
				usedOutside[r] = true
			}
		}
	}
	for l := 0; l <= maxLevel; l++ {
		if used[l] {
			st, err := deviceStage(g, number[l], usedOutside)
			if err != nil {
				return nil, err
			}
			plan.Stages = append(plan.Stages, st)
		}
		for _, n := range g.Nodes {
			if isHost(n) && level[n.ID] == l {
				st := Stage{Fallback: n, Inputs: append([]fx.Ref(nil), n.Args...), Partition: -1}
				for i := range n.Shapes {
					st.Outputs = append(st.Outputs, fx.Ref{Node: n, Index: i})
				}
				plan.Stages = append(plan.Stages, st)
			}
		}
	}
	var err error
	if plan.Split, err = split(g, plan.Stages); err != nil {
		return nil, err
	}
	return plan, nil
}

// checkRefs renumbers g and checks what Partition indexes by node ID: g
// has an output node, and every operand and mutation refers to a node of
// g before the one that reads it.
func checkRefs(g *fx.Graph) error {
	if g == nil || g.Output() == nil {
		return fmt.Errorf("partitioner: graph has no output node")
	}
	g.Renumber()
	defined := func(r *fx.Node, i int) bool {
		return r != nil && r.ID >= 0 && r.ID < i && g.Nodes[r.ID] == r
	}
	for i, n := range g.Nodes {
		for k, a := range n.Args {
			if !defined(a.Node, i) {
				return fmt.Errorf("partitioner: %%%s: operand %d is not a node of the graph defined before it", n.Name, k)
			}
		}
		for k, m := range n.Mutations {
			if !defined(m.Target, i) || !defined(m.Value.Node, i) {
				return fmt.Errorf("partitioner: %%%s: mutation %d names a node that is not in the graph before it", n.Name, k)
			}
		}
	}
	return nil
}

// split builds Plan.Split and sets each stage's Node.
func split(g *fx.Graph, stages []Stage) (*fx.Graph, error) {
	s := &fx.Graph{Captures: g.Captures}
	at := map[fx.Ref]fx.Ref{} // where the split graph has a value of g
	var missing []string
	ref := func(r fx.Ref) fx.Ref {
		m, ok := at[r]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s#%d", r.Node, r.Index))
		}
		return m
	}
	for _, n := range g.Nodes {
		if n.Kind == fx.Placeholder {
			c := *n
			s.Nodes = append(s.Nodes, &c)
			at[fx.Ref{Node: n}] = fx.Ref{Node: &c}
		}
	}
	for i := range stages {
		st := &stages[i]
		c := &fx.Node{Kind: fx.Call, Partition: st.Partition}
		if h := st.Fallback; h != nil {
			c.Name, c.Op, c.Attrs, c.Site = h.Name, h.Op, h.Attrs, h.Site
		} else {
			c.Name, c.Sub = fmt.Sprintf("partition_%d", st.Partition), st.Device
		}
		for _, r := range st.Inputs {
			c.Args = append(c.Args, ref(r))
		}
		for k, r := range st.Outputs {
			c.Shapes = append(c.Shapes, r.Shape())
			at[r] = fx.Ref{Node: c, Index: k}
		}
		st.Node = c
		s.Nodes = append(s.Nodes, c)
	}
	out, o := g.Output(), &fx.Node{Name: "output", Kind: fx.Output}
	for _, r := range out.Args {
		o.Args = append(o.Args, ref(r))
	}
	for _, m := range out.Mutations {
		o.Mutations = append(o.Mutations, fx.Mutation{Target: ref(fx.Ref{Node: m.Target}).Node, Value: ref(m.Value)})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("partitioner: split graph: no stage produces %s", strings.Join(missing, ", "))
	}
	s.Nodes = append(s.Nodes, o)
	s.Renumber()
	if err := s.Lint(); err != nil {
		return nil, fmt.Errorf("partitioner: split graph: %w", err)
	}
	return s, nil
}

// deviceStage cuts device partition k out of g.
func deviceStage(g *fx.Graph, k int, usedOutside map[fx.Ref]bool) (Stage, error) {
	st := Stage{Partition: k, Device: &fx.Graph{}}
	sub := st.Device
	inputOf := map[fx.Ref]*fx.Node{}
	copyOf := map[*fx.Node]*fx.Node{}
	mapRef := func(r fx.Ref) fx.Ref {
		if c := copyOf[r.Node]; c != nil && r.Node.Kind == fx.Call && r.Node.Partition == k {
			return fx.Ref{Node: c, Index: r.Index}
		}
		if p := inputOf[r]; p != nil {
			return fx.Ref{Node: p, Index: 0}
		}
		p := &fx.Node{Name: fmt.Sprintf("in%d", len(st.Inputs)), Kind: fx.Placeholder, Input: fx.Arg,
			Index: len(st.Inputs), Shapes: []lazy.Shape{r.Shape()}}
		inputOf[r] = p
		st.Inputs = append(st.Inputs, r)
		sub.Nodes = append(sub.Nodes, p)
		return fx.Ref{Node: p, Index: 0}
	}
	var calls []*fx.Node
	for _, n := range g.Nodes {
		if n.Kind != fx.Call || n.Partition != k {
			continue
		}
		c := &fx.Node{Name: n.Name, Kind: fx.Call, Op: n.Op, Attrs: n.Attrs, Shapes: n.Shapes, Site: n.Site, Partition: k}
		for _, a := range n.Args {
			c.Args = append(c.Args, mapRef(a))
		}
		copyOf[n] = c
		calls = append(calls, c)
	}
	out := &fx.Node{Name: "output", Kind: fx.Output}
	for _, n := range g.Nodes {
		if n.Kind != fx.Call || n.Partition != k {
			continue
		}
		for i := range n.Shapes {
			r := fx.Ref{Node: n, Index: i}
			if usedOutside[r] {
				st.Outputs = append(st.Outputs, r)
				out.Args = append(out.Args, fx.Ref{Node: copyOf[n], Index: i})
			}
		}
	}
	sub.Nodes = append(append(sub.Nodes, calls...), out)
	sub.Renumber()
	if err := sub.Lint(); err != nil {
		return Stage{}, fmt.Errorf("partitioner: partition %d: %w", k, err)
	}
	return st, nil
}
