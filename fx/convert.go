package fx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/lazy"
)

// Trace is what a trace of a function recorded, in lazy terms.
type Trace struct {
	// Args are the flattened tensor arguments and ArgStates their contents
	// when the trace began.
	Args      []*lazy.Tensor
	ArgStates []lazy.TensorState
	// Outputs are the IR values of the results.
	Outputs []lazy.Value
	// Mutated tensors (assigned during the trace), their contents before
	// the first assignment, and their final values.
	Mutated   []*lazy.Tensor
	MutStates []lazy.TensorState
	MutValues []lazy.Value
	// Synced maps the data ID of a buffer a cut computed during the trace
	// to the IR value it computed.
	Synced map[any]lazy.Value
	// HostOps are the host-only ops that ran during the trace.
	HostOps []HostOp
	// HostNodes are host-only ops recorded without running (declared
	// output shapes): kept in the graph even if no output reads them.
	HostNodes []lazy.Value
}

// HostOp is one host-only op run during a trace.
type HostOp struct {
	Op      *lazy.OpDef
	Attrs   lazy.Attrs
	Inputs  []lazy.Value   // IR values of the inputs
	Outputs []*lazy.Tensor // the results (device data)
	// OutputData are the results' data IDs and shapes when the op ran (the
	// function may write into a result afterwards).
	OutputData   []any
	OutputShapes []lazy.Shape
}

// FromTrace converts a trace into a graph: one placeholder per argument,
// capture placeholders for other tensors the function read (and for
// mutated tensors that are not arguments), a call node per IR node
// (including host ops), and the output node with results and mutations.
func FromTrace(t *Trace) (*Graph, error) {
	c := &converter{t: t, g: &Graph{}, done: map[*lazy.Node]*Node{}, byData: map[any]*Node{},
		hostOut: map[any]hostRef{}, counts: map[string]int{}, captureOf: map[*lazy.Tensor]*Node{}, argOf: map[*lazy.Tensor]*Node{}, leaves: map[*lazy.Node]Ref{}}
	for i, h := range t.HostOps {
		for k, id := range h.OutputData {
			c.hostOut[id] = hostRef{i, k}
		}
	}
	for i, a := range t.Args {
		n := c.add(&Node{Name: fmt.Sprintf("arg%d", i), Kind: Placeholder, Input: Arg, Index: i, Shapes: []lazy.Shape{a.Shape()}, Sharding: t.ArgStates[i].Sharding()})
		if id := t.ArgStates[i].DataID(); id != nil && c.byData[id] == nil {
			c.byData[id] = n
		}
		if c.argOf[a] == nil {
			c.argOf[a] = n // the same tensor passed twice reads as its first position
		}
		if v := t.ArgStates[i].Pending(); v.Node != nil {
			return nil, fmt.Errorf("fx: argument %d is pending; sync inputs before tracing", i)
		}
	}
	out := &Node{Name: "output", Kind: Output}
	for _, v := range t.Outputs {
		r, err := c.ref(v)
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, r)
	}
	for i, m := range t.Mutated {
		r, err := c.ref(t.MutValues[i])
		if err != nil {
			return nil, err
		}
		target := c.placeholderFor(m, t.MutStates[i])
		out.Mutations = append(out.Mutations, Mutation{Target: target, Value: r})
	}
	// Host ops that ran during the trace stay in the graph even when no
	// output reads them: their data-dependent result shapes may have steered
	// the Go code (x.NonZero().Dim(0)), so each replay runs them again and
	// checks the shapes.
	for i := range t.HostOps {
		if _, err := c.hostNode(i); err != nil {
			return nil, err
		}
	}
	for _, v := range t.HostNodes {
		if _, err := c.ref(v); err != nil {
			return nil, err
		}
	}
	// Placeholders first (args, then captures in first-use order), then calls.
	var ph, calls []*Node
	for _, n := range c.g.Nodes {
		if n.Kind == Placeholder {
			ph = append(ph, n)
		} else {
			calls = append(calls, n)
		}
	}
	c.g.Nodes = append(append(ph, calls...), out)
	c.g.Renumber()
	return c.g, nil
}

type hostRef struct{ op, out int }

type converter struct {
	t         *Trace
	g         *Graph
	done      map[*lazy.Node]*Node
	byData    map[any]*Node
	hostOut   map[any]hostRef
	hostDone  map[int]*Node
	counts    map[string]int
	lower     map[string]string // op name -> its lowercase form
	captureOf map[*lazy.Tensor]*Node
	// argOf maps each argument tensor to its (first) placeholder: reads
	// and writes are matched to arguments by tensor, so two arguments that
	// share a buffer stay two inputs.
	argOf map[*lazy.Tensor]*Node
	// leaves are the resolved device-data leaves.
	leaves map[*lazy.Node]Ref
}

func (c *converter) add(n *Node) *Node {
	c.g.Nodes = append(c.g.Nodes, n)
	return n
}

func (c *converter) name(op string) string {
	base, ok := c.lower[op]
	if !ok {
		base = strings.ToLower(op)
		if c.lower == nil {
			c.lower = map[string]string{}
		}
		c.lower[op] = base
	}
	c.counts[base]++
	// One allocation: the name's bytes are built in a stack buffer.
	var buf [48]byte
	b := append(buf[:0], base...)
	b = append(b, '_')
	return string(strconv.AppendInt(b, int64(c.counts[base]), 10))
}

// placeholderFor returns the placeholder of a mutated tensor: its argument
// placeholder, or a capture.
func (c *converter) placeholderFor(t *lazy.Tensor, before lazy.TensorState) *Node {
	if a := c.argOf[t]; a != nil {
		return a
	}
	return c.capture(t, before.DataID())
}

func (c *converter) capture(t *lazy.Tensor, id any) *Node {
	if n := c.captureOf[t]; n != nil {
		return n
	}
	k := len(c.g.Captures)
	n := c.add(&Node{Name: fmt.Sprintf("capture%d", k), Kind: Placeholder, Input: Capture, Index: k, Shapes: []lazy.Shape{t.Shape()}, Sharding: t.Sharding()})
	c.g.Captures = append(c.g.Captures, t)
	c.captureOf[t] = n
	if id != nil && c.byData[id] == nil {
		c.byData[id] = n
	}
	return n
}

func (c *converter) isHostOut(id any) bool {
	_, ok := c.hostOut[id]
	return ok
}

func (c *converter) isSynced(id any) bool {
	return c.t.Synced != nil && c.t.Synced[id].Node != nil
}

// ref converts the IR below v and returns its reference.
func (c *converter) ref(v lazy.Value) (Ref, error) {
	if v.Node.IsData() {
		return c.leaf(v.Node)
	}
	n, err := c.node(v.Node)
	if err != nil {
		return Ref{}, err
	}
	return Ref{n, v.Index}, nil
}

// leaf resolves a device-data leaf: an argument, a value a cut inside the
// trace computed, a host op's result, or a capture.
func (c *converter) leaf(ln *lazy.Node) (Ref, error) {
	if r, ok := c.leaves[ln]; ok {
		return r, nil
	}
	var r Ref
	id := ln.DataID()
	src := ln.Source()
	arg := c.argOf[src]
	switch {
	case arg != nil && c.t.ArgStates[arg.Index].DataID() == id:
		r = Ref{arg, 0}
	case c.isSynced(id):
		var err error
		if r, err = c.ref(c.t.Synced[id]); err != nil {
			return Ref{}, err
		}
	case c.isHostOut(id):
		h := c.hostOut[id]
		hn, err := c.hostNode(h.op)
		if err != nil {
			return Ref{}, err
		}
		r = Ref{hn, h.out}
	case src != nil && arg == nil:
		// A tensor the function reads without taking it as an argument (a
		// closure variable, the RNG state, a constant it made): a
		// capture, one per tensor, so two tensors sharing a buffer stay
		// two inputs.
		r = Ref{c.capture(src, id), 0}
	case c.byData[id] != nil:
		r = Ref{c.byData[id], 0}
	default:
		return Ref{}, fmt.Errorf("fx: device data without a source tensor")
	}
	c.leaves[ln] = r
	return r, nil
}

func (c *converter) node(ln *lazy.Node) (*Node, error) {
	if n := c.done[ln]; n != nil {
		return n, nil
	}
	// The node and up to two arguments in one allocation.
	cell := &struct {
		n    Node
		args [2]Ref
	}{}
	ins := ln.Inputs()
	var args []Ref
	if len(ins) > len(cell.args) {
		args = make([]Ref, len(ins))
	} else {
		args = cell.args[:len(ins):len(ins)]
	}
	for i, in := range ins {
		r, err := c.ref(in)
		if err != nil {
			return nil, err
		}
		args[i] = r
	}
	cell.n = Node{Name: c.name(ln.Op().Name), Kind: Call, Op: ln.Op(), Args: args, Attrs: ln.Attrs(),
		Shapes: ln.Shapes(), Site: ln.Site()}
	n := c.add(&cell.n)
	c.done[ln] = n
	return n, nil
}

func (c *converter) hostNode(i int) (*Node, error) {
	if c.hostDone == nil {
		c.hostDone = map[int]*Node{}
	}
	if n := c.hostDone[i]; n != nil {
		return n, nil
	}
	h := c.t.HostOps[i]
	args := make([]Ref, len(h.Inputs))
	for k, in := range h.Inputs {
		r, err := c.ref(in)
		if err != nil {
			return nil, err
		}
		args[k] = r
	}
	shapes := h.OutputShapes
	n := c.add(&Node{Name: c.name(h.Op.Name), Kind: Call, Op: h.Op, Args: args, Attrs: h.Attrs, Shapes: shapes})
	c.hostDone[i] = n
	return n, nil
}
