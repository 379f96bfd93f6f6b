package fx

import (
	"fmt"
	"reflect"

	"github.com/xlajit/xlajit/lazy"
)

// Sites of errors and IR nodes pass over this package's frames to the
// user's line.
func init() { lazy.SkipInSites(reflect.TypeFor[Graph]().PkgPath()) }

// Kind is a node kind.
type Kind int

const (
	Placeholder Kind = iota // a graph input
	Call                    // an op of the lazy op table
	Output                  // the graph's results and mutations (last node)
)

func (k Kind) String() string { return [...]string{"placeholder", "call", "output"}[k] }

// InputKind says where a placeholder's value comes from on each call.
type InputKind int

const (
	// Arg is the i-th tensor of the flattened function arguments.
	Arg InputKind = iota
	// Capture is a tensor the function reads without taking it as an
	// argument (closure-captured weights, the RNG state): its current data
	// is fetched on every call.
	Capture
)

// Ref is one output of a node.
type Ref struct {
	Node  *Node
	Index int
}

// Shape returns the referenced output's shape.
func (r Ref) Shape() lazy.Shape { return r.Node.Shapes[r.Index] }

// Node is one graph node.
type Node struct {
	Name string
	Kind Kind
	Op   *lazy.OpDef // the op's row in lazy's op table (Call)
	// Sub, on a call without an Op, is a graph run as one step: a device
	// partition of a split graph (partitioner.Plan.Split). Its
	// placeholders take Args in order (as arguments); its outputs are the
	// node's.
	Sub    *Graph
	Args   []Ref
	Attrs  lazy.Attrs
	Shapes []lazy.Shape // one per output
	Site   string       // Go call site, file:line (may be empty)
	ID     int          // position in Graph.Nodes

	// Placeholder.
	Input InputKind
	Index int // argument or capture index
	// Sharding is the layout of the input's data on the SPMD device when
	// traced (nil elsewhere); the program is compiled for it.
	Sharding *lazy.Sharding

	// Output: the results, then for each mutated placeholder the value
	// written into it.
	Mutations []Mutation

	// Partition is set by the partitioner for calls: 0 unassigned, k > 0
	// device partition k, -1 a fallback node (run through its op's Go
	// kernel on the CPU between device partitions; printed "# host").
	Partition int
}

// Mutation records that a placeholder's tensor is overwritten with Value.
type Mutation struct {
	Target *Node // a placeholder
	Value  Ref
}

// Graph is a captured function: placeholders, calls, one output node.
type Graph struct {
	Nodes []*Node
	// Captures are the tensors behind Capture placeholders, by index
	// (set by the conversion from a trace; nil in a parsed graph).
	Captures []*lazy.Tensor
}

// Output returns the output node (nil if missing).
func (g *Graph) Output() *Node {
	if n := len(g.Nodes); n > 0 && g.Nodes[n-1].Kind == Output {
		return g.Nodes[n-1]
	}
	return nil
}

// Placeholders returns the placeholders in order.
func (g *Graph) Placeholders() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.Kind == Placeholder {
			out = append(out, n)
		}
	}
	return out
}

// Renumber sets each node's ID to its position.
func (g *Graph) Renumber() {
	for i, n := range g.Nodes {
		n.ID = i
	}
}

// Uses returns, for each node ID, the IDs of nodes that read it.
func (g *Graph) Uses() [][]int {
	g.Renumber()
	// Every list is cut from one array (nil for a node nobody reads).
	count := make([]int, len(g.Nodes))
	total := 0
	for _, n := range g.Nodes {
		for _, a := range n.Args {
			count[a.Node.ID]++
		}
		for _, m := range n.Mutations {
			count[m.Value.Node.ID]++
		}
		total += len(n.Args) + len(n.Mutations)
	}
	flat := make([]int, total)
	uses := make([][]int, len(g.Nodes))
	off := 0
	for id, k := range count {
		if k > 0 {
			uses[id] = flat[off : off : off+k]
			off += k
		}
	}
	for _, n := range g.Nodes {
		for _, a := range n.Args {
			uses[a.Node.ID] = append(uses[a.Node.ID], n.ID)
		}
		for _, m := range n.Mutations {
			uses[m.Value.Node.ID] = append(uses[m.Value.Node.ID], n.ID)
		}
	}
	return uses
}

// OpName is the name of a call node's op ("" for other nodes, "subgraph"
// for a call of a subgraph, "?" for a call of neither).
func (n *Node) OpName() string {
	switch {
	case n.Kind != Call:
		return ""
	case n.Op != nil:
		return n.Op.Name
	case n.Sub != nil:
		return "subgraph"
	}
	return "?"
}

func (n *Node) String() string { return fmt.Sprintf("%%%s", n.Name) }
