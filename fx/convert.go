package fx

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/xlajit/xlajit/internal/slab"
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
	// SizeHint is about how many IR nodes the trace built (0: unknown).
	SizeHint int
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
	g, _, err := FromTraceIR(t)
	return g, err
}

// FromTraceIR is FromTrace also returning, per node ID, the IR node each
// call node was converted from (nil for placeholders, host ops that ran
// and the output), so that the graph can be recorded again over
// placeholders by copying that IR (lazy.Rerecord) rather than by running
// each op's shape rule. The IR holds the traced inputs' buffers: keep it
// no longer than the compile.
func FromTraceIR(t *Trace) (*Graph, []*lazy.Node, error) {
	c := &converter{t: t, g: &Graph{}, done: lazy.NewNodeMap[*Node](), byData: map[any]*Node{},
		hostOut: map[any]hostRef{}, captureOf: map[*lazy.Tensor]*Node{}, argOf: map[*lazy.Tensor]*Node{}, leaves: lazy.NewNodeMap[Ref]()}
	if n := min(t.SizeHint, 1<<18) + len(t.Args); n > 0 {
		c.g.Nodes, c.ir, c.names = make([]*Node, 0, n), make([]*lazy.Node, 0, n), make([]pendingName, 0, n)
	}
	for i, h := range t.HostOps {
		for k, id := range h.OutputData {
			c.hostOut[id] = hostRef{i, k}
		}
	}
	for i, a := range t.Args {
		n := c.add(&Node{Name: fmt.Sprintf("arg%d", i), Kind: Placeholder, Input: Arg, Index: i, Shapes: []lazy.Shape{a.Shape()}, Sharding: t.ArgStates[i].Sharding()}, nil)
		if id := t.ArgStates[i].DataID(); id != nil && c.byData[id] == nil {
			c.byData[id] = n
		}
		if c.argOf[a] == nil {
			c.argOf[a] = n // the same tensor passed twice reads as its first position
		}
		if v := t.ArgStates[i].Pending(); v.Node != nil {
			return nil, nil, fmt.Errorf("fx: argument %d is pending; sync inputs before tracing", i)
		}
	}
	out := &Node{Name: "output", Kind: Output}
	for _, v := range t.Outputs {
		r, err := c.ref(v)
		if err != nil {
			return nil, nil, err
		}
		out.Args = append(out.Args, r)
	}
	for i, m := range t.Mutated {
		r, err := c.ref(t.MutValues[i])
		if err != nil {
			return nil, nil, err
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
			return nil, nil, err
		}
	}
	for _, v := range t.HostNodes {
		if _, err := c.ref(v); err != nil {
			return nil, nil, err
		}
	}
	c.nameCalls()
	// Placeholders first (args, then captures in first-use order), then calls.
	nodes := make([]*Node, 0, len(c.g.Nodes)+1)
	ir := make([]*lazy.Node, len(c.g.Nodes)+1)
	for _, n := range c.g.Nodes {
		if n.Kind == Placeholder {
			nodes = append(nodes, n)
		}
	}
	for i, n := range c.g.Nodes {
		if n.Kind != Placeholder {
			ir[len(nodes)] = c.ir[i]
			nodes = append(nodes, n)
		}
	}
	c.g.Nodes = append(nodes, out)
	c.g.Renumber()
	return c.g, ir, nil
}

type hostRef struct{ op, out int }

type converter struct {
	t       *Trace
	g       *Graph
	ir      []*lazy.Node // per node of g.Nodes (in the order added), its IR
	done    *lazy.NodeMap[*Node]
	byData  map[any]*Node
	hostOut map[any]hostRef
	// hostDone are the converted host ops that ran, by index.
	hostDone  map[int]*Node
	captureOf map[*lazy.Tensor]*Node
	// argOf maps each argument tensor to its (first) placeholder: reads
	// and writes are matched to arguments by tensor, so two arguments that
	// share a buffer stay two inputs.
	argOf map[*lazy.Tensor]*Node
	// leaves are the resolved device-data leaves.
	leaves *lazy.NodeMap[Ref]
	// stack is the walk of node (a chain of thousands of ops is a loop,
	// not a recursion as deep).
	stack []frame
	// names: each call's op and number, named once the graph is complete
	// (all names cut from one string).
	names  []pendingName
	counts map[*lazy.OpDef]*opCount
	recent [16]struct {
		op *lazy.OpDef
		oc *opCount
	}
	byBase map[string]*opCount
	// cells are call nodes with room for two arguments, cut from chunks
	// (one allocation per chunk; a graph's nodes live and die together).
	cells slab.Slab[callCell]
}

// callCell is a call node and up to two of its arguments.
type callCell struct {
	n    Node
	args [2]Ref
}

// cell returns a zeroed call cell.
func (c *converter) cell() *callCell {
	return c.cells.Get()
}

type frame struct {
	ln   *lazy.Node
	next int
}

type opCount struct {
	base string // the op's name in lower case
	n    int
}

type pendingName struct {
	node *Node
	op   *opCount
	k    int
}

func (c *converter) add(n *Node, ir *lazy.Node) *Node {
	c.g.Nodes = append(c.g.Nodes, n)
	c.ir = append(c.ir, ir)
	return n
}

// name numbers a call of op (add_1, add_2, ...: ops whose names differ
// in case only share one count); the name is set by nameCalls.
func (c *converter) name(n *Node, op *lazy.OpDef) {
	// The few ops of a traced function repeat: a slot per op address
	// before the map.
	p := uintptr(unsafe.Pointer(op))
	slot := &c.recent[(p>>4^p>>9)%uintptr(len(c.recent))]
	oc := slot.oc
	if slot.op != op || oc == nil {
		oc = c.counts[op]
	}
	if oc == nil {
		if c.counts == nil {
			c.counts, c.byBase = map[*lazy.OpDef]*opCount{}, map[string]*opCount{}
		}
		base := strings.ToLower(op.Name)
		if oc = c.byBase[base]; oc == nil {
			oc = &opCount{base: base}
			c.byBase[base] = oc
		}
		c.counts[op] = oc
	}
	slot.op, slot.oc = op, oc
	oc.n++
	c.names = append(c.names, pendingName{n, oc, oc.n})
}

// nameCalls sets the calls' names, all cut from one string.
func (c *converter) nameCalls() {
	size := 0
	for _, p := range c.names {
		size += len(p.op.base) + 8
	}
	b := make([]byte, 0, size)
	ends := make([]int, len(c.names))
	for i, p := range c.names {
		b = append(b, p.op.base...)
		b = append(b, '_')
		b = strconv.AppendInt(b, int64(p.k), 10)
		ends[i] = len(b)
	}
	all := string(b)
	start := 0
	for i, p := range c.names {
		p.node.Name = all[start:ends[i]]
		start = ends[i]
	}
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
	n := c.add(&Node{Name: fmt.Sprintf("capture%d", k), Kind: Placeholder, Input: Capture, Index: k, Shapes: []lazy.Shape{t.Shape()}, Sharding: t.Sharding()}, nil)
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
	if r := c.leaves.Get(ln); r.Node != nil {
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
	c.leaves.Set(ln, r)
	return r, nil
}

// node converts the IR below root, operands first, in a loop over an
// explicit stack: each operand is converted, in order, before the next.
func (c *converter) node(root *lazy.Node) (*Node, error) {
	if n := c.done.Get(root); n != nil {
		return n, nil
	}
	base := len(c.stack)
	c.stack = append(c.stack, frame{ln: root})
	for len(c.stack) > base {
		i := len(c.stack) - 1
		ln := c.stack[i].ln
		ins := ln.Inputs()
		if k := c.stack[i].next; k < len(ins) {
			c.stack[i].next++
			in := ins[k].Node
			if in.IsData() {
				if _, err := c.leaf(in); err != nil {
					c.stack = c.stack[:base]
					return nil, err
				}
			} else if c.done.Get(in) == nil {
				c.stack = slab.Append(c.stack, frame{ln: in})
			}
			continue
		}
		c.stack = c.stack[:i]
		c.build(ln)
	}
	return c.done.Get(root), nil
}

// build converts one IR node whose operands are converted.
func (c *converter) build(ln *lazy.Node) {
	// The node and up to two arguments in one cell.
	cell := c.cell()
	ins := ln.Inputs()
	var args []Ref
	if len(ins) > len(cell.args) {
		args = make([]Ref, len(ins))
	} else {
		args = cell.args[:len(ins):len(ins)]
	}
	for i, in := range ins {
		if in.Node.IsData() {
			args[i] = c.leaves.Get(in.Node)
		} else {
			args[i] = Ref{c.done.Get(in.Node), in.Index}
		}
	}
	// The cell is zero: set the fields a call has (one by one, rather
	// than copying a whole Node over it).
	n := &cell.n
	n.Kind, n.Op, n.Args, n.Attrs, n.Shapes, n.Site = Call, ln.Op(), args, ln.Attrs(), ln.Shapes(), ln.Site()
	n = c.add(n, ln)
	c.name(n, ln.Op())
	c.done.Set(ln, n)
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
	n := c.add(&Node{Kind: Call, Op: h.Op, Args: args, Attrs: h.Attrs, Shapes: shapes}, nil)
	c.name(n, h.Op)
	c.hostDone[i] = n
	return n, nil
}
