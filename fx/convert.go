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
}

// HostOp is one host-only op run during a trace.
type HostOp struct {
	Op      *lazy.OpDef
	Attrs   lazy.Attrs
	Inputs  []lazy.Value   // IR values of the inputs
	Outputs []*lazy.Tensor // the results (device data)
}

// FromTrace converts a trace into a graph: one placeholder per argument,
// capture placeholders for other tensors the function read (and for
// mutated tensors that are not arguments), a call node per IR node
// (including host ops), and the output node with results and mutations.
func FromTrace(t *Trace) (*Graph, error) {
	c := &converter{t: t, g: &Graph{}, done: map[*lazy.Node]*Node{}, byData: map[any]*Node{},
		hostOut: map[any]hostRef{}, counts: map[string]int{}, captureOf: map[*lazy.Tensor]*Node{}, argOf: map[*lazy.Tensor]*Node{}}
	for i, h := range t.HostOps {
		for k, o := range h.Outputs {
			c.hostOut[o.DataID()] = hostRef{i, k}
		}
	}
	for i, a := range t.Args {
		n := c.add(&Node{Name: fmt.Sprintf("arg%d", i), Kind: Placeholder, Input: Arg, Index: i, Shapes: []lazy.Shape{a.Shape()}})
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
	return base + "_" + strconv.Itoa(c.counts[base])
}

// placeholderFor returns the placeholder of a mutated tensor: its argument
// placeholder, or a capture.
func (c *converter) placeholderFor(t *lazy.Tensor, before lazy.TensorState) *Node {
	if a := c.argOf[t]; a != nil {
		return a
	}
	if id := before.DataID(); id != nil {
		if n := c.byData[id]; n != nil {
			return n
		}
	}
	return c.capture(t, before.DataID())
}

func (c *converter) capture(t *lazy.Tensor, id any) *Node {
	if n := c.captureOf[t]; n != nil {
		return n
	}
	k := len(c.g.Captures)
	n := c.add(&Node{Name: fmt.Sprintf("capture%d", k), Kind: Placeholder, Input: Capture, Index: k, Shapes: []lazy.Shape{t.Shape()}})
	c.g.Captures = append(c.g.Captures, t)
	c.captureOf[t] = n
	if id != nil && c.byData[id] == nil {
		c.byData[id] = n
	}
	return n
}

func (c *converter) isSynced(id any) bool {
	return c.t.Synced != nil && c.t.Synced[id].Node != nil
}

// ref converts the IR below v and returns its reference.
func (c *converter) ref(v lazy.Value) (Ref, error) {
	n, err := c.node(v.Node)
	if err != nil {
		return Ref{}, err
	}
	if n.Kind == Placeholder {
		return Ref{n, 0}, nil
	}
	return Ref{n, v.Index}, nil
}

func (c *converter) node(ln *lazy.Node) (*Node, error) {
	if n := c.done[ln]; n != nil {
		return n, nil
	}
	var n *Node
	if ln.IsData() {
		id := ln.DataID()
		arg := c.argOf[ln.Source()]
		switch {
		case arg != nil && c.t.ArgStates[arg.Index].DataID() == id:
			n = arg
		case c.byData[id] != nil && c.byData[id].Input == Arg && arg == nil && c.captureOf[ln.Source()] == nil && ln.Source() != nil && !c.isSynced(id):
			// Another tensor holding an argument's buffer: read it as
			// itself, a capture (its contents may differ by the next call).
			n = c.capture(ln.Source(), id)
		case c.byData[id] != nil:
			n = c.byData[id]
		case c.t.Synced != nil && c.t.Synced[id].Node != nil:
			r, err := c.ref(c.t.Synced[id])
			if err != nil {
				return nil, err
			}
			if r.Index != 0 || len(r.Node.Shapes) > 1 {
				return nil, fmt.Errorf("fx: a cut inside the trace computed output %d of a multi-output node; not supported", r.Index)
			}
			n = r.Node
		default:
			if h, ok := c.hostOut[id]; ok {
				hn, err := c.hostNode(h.op)
				if err != nil {
					return nil, err
				}
				if h.out != 0 || len(hn.Shapes) != 1 {
					return nil, fmt.Errorf("fx: multi-output host ops inside traces are not supported")
				}
				n = hn
			} else {
				src := ln.Source()
				if src == nil {
					return nil, fmt.Errorf("fx: device data without a source tensor")
				}
				n = c.capture(src, id)
			}
		}
		c.done[ln] = n
		return n, nil
	}
	args := make([]Ref, len(ln.Inputs()))
	for i, in := range ln.Inputs() {
		r, err := c.ref(in)
		if err != nil {
			return nil, err
		}
		args[i] = r
	}
	n = c.add(&Node{Name: c.name(ln.Op().Name), Kind: Call, Op: ln.Op().Name, Args: args, Attrs: ln.Attrs(),
		Shapes: ln.Shapes(), Site: ln.Site()})
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
	shapes := make([]lazy.Shape, len(h.Outputs))
	for k, o := range h.Outputs {
		shapes[k] = o.Shape()
	}
	n := c.add(&Node{Name: c.name(h.Op.Name), Kind: Call, Op: h.Op.Name, Args: args, Attrs: h.Attrs, Shapes: shapes})
	c.hostDone[i] = n
	return n, nil
}
