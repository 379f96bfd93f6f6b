package fx

import (
	"fmt"
	"sync"

	"github.com/xlajit/xlajit/lazy"
)

// Interpreter runs a graph node by node over lazy tensors (torch.fx's
// Interpreter). Each value is dropped after its last use. It is the one
// way graphs run node by node: bridge.Compile records a graph's IR with
// it (bridge.CompileTraced copies a trace's IR instead, to the same
// result), and the jit replays a split graph (device partitions and host
// nodes between them) with it. An Interpreter may run its graph on several
// goroutines at once; G must not change after the first Run.
type Interpreter struct {
	G *Graph
	// Call, when set, runs call nodes instead of recording them with
	// lazy.RecordOn (the jit runs a split graph's device partitions
	// through their compiled programs and its host nodes through their
	// Go kernels).
	Call func(n *Node, args []*lazy.Tensor) ([]*lazy.Tensor, error)
	// Device is where ops without tensor operands (constants, iotas) are
	// built; nil means the default device.
	Device *lazy.Device

	once sync.Once
	uses []int // per node ID, how many nodes read it
}

// NodeError is an error raised while running one node.
type NodeError struct {
	Node *Node
	Err  error
}

func (e *NodeError) Error() string {
	where := ""
	if e.Node.Site != "" {
		where = " at " + e.Node.Site
	}
	return fmt.Sprintf("fx: node %%%s (%s%s): %v", e.Node.Name, e.Node.OpName(), where, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// Run executes the graph: args feed Arg placeholders by index, captures
// feed Capture placeholders. It returns the outputs and, for each mutation
// of the output node, the value to write.
func (in *Interpreter) Run(args, captures []*lazy.Tensor) (outs, mutations []*lazy.Tensor, err error) {
	g := in.G
	in.once.Do(func() {
		in.uses = make([]int, len(g.Nodes))
		for i, u := range g.Uses() {
			in.uses[i] = len(u)
		}
	})
	remaining := append([]int(nil), in.uses...)
	env := make([][]*lazy.Tensor, len(g.Nodes))
	get := func(r Ref) *lazy.Tensor { return env[r.Node.ID][r.Index] }
	release := func(n *Node) {
		for _, a := range n.Args {
			if remaining[a.Node.ID]--; remaining[a.Node.ID] == 0 {
				env[a.Node.ID] = nil
			}
		}
	}
	for _, n := range g.Nodes {
		switch n.Kind {
		case Placeholder:
			src := args
			if n.Input == Capture {
				src = captures
			}
			if n.Index < 0 || n.Index >= len(src) {
				return nil, nil, &NodeError{n, fmt.Errorf("no input for placeholder %s %d (%d given)", kindName(n.Input), n.Index, len(src))}
			}
			t := src[n.Index]
			if t == nil {
				return nil, nil, &NodeError{n, fmt.Errorf("nil tensor for placeholder %s %d", kindName(n.Input), n.Index)}
			}
			if !t.Shape().Equal(n.Shapes[0]) {
				return nil, nil, &NodeError{n, fmt.Errorf("input is %s, graph wants %s", t.Shape(), n.Shapes[0])}
			}
			env[n.ID] = []*lazy.Tensor{t}
		case Call:
			a := make([]*lazy.Tensor, len(n.Args))
			for k, r := range n.Args {
				a[k] = get(r)
			}
			res, err := in.call(n, a)
			if err != nil {
				return nil, nil, &NodeError{n, err}
			}
			env[n.ID] = res
			release(n)
		case Output:
			for _, r := range n.Args {
				outs = append(outs, get(r))
			}
			for _, m := range n.Mutations {
				mutations = append(mutations, get(m.Value))
			}
		}
	}
	return outs, mutations, nil
}

func kindName(k InputKind) string {
	if k == Capture {
		return "capture"
	}
	return "arg"
}

func (in *Interpreter) call(n *Node, args []*lazy.Tensor) (res []*lazy.Tensor, err error) {
	if in.Call != nil {
		return in.Call(n, args)
	}
	op := n.Op
	if op == nil && n.Sub != nil {
		res, _, err := (&Interpreter{G: n.Sub, Device: in.Device}).Run(args, nil)
		return res, err
	}
	if op == nil {
		return nil, fmt.Errorf("a call without an op")
	}
	err = lazy.Try(func() { res = lazy.RecordOn(in.Device, op, n.Attrs, args...) })
	switch {
	case err != nil:
	case len(res) == 0 && len(n.Shapes) > 0 && op.Lower == nil:
		// A host-only op (data-dependent output shape) records nothing.
		err = fmt.Errorf("%s runs on the host only (no lowering; its result shape depends on the data): it cannot be recorded", op.Name)
	case len(res) != len(n.Shapes):
		err = fmt.Errorf("%s returned %d results, graph records %d", op.Name, len(res), len(n.Shapes))
	default:
		for i, t := range res {
			if !t.Shape().Equal(n.Shapes[i]) {
				err = fmt.Errorf("%s result %d is %s, graph records %s", op.Name, i, t.Shape(), n.Shapes[i])
				break
			}
		}
	}
	return res, err
}
