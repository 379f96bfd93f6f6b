package fx

import (
	"errors"
	"fmt"

	"github.com/xlajit/xlajit/lazy"
)

// Lint checks the graph's invariants: unique names, operands defined
// before use, known ops whose shape rule reproduces the recorded shapes,
// one output node at the end, mutations that target placeholders with
// matching shapes, placeholder indices that are not negative.
func (g *Graph) Lint() error {
	var errs []error
	bad := func(n *Node, format string, args ...any) {
		errs = append(errs, fmt.Errorf("fx lint: %%%s: %s", n.Name, fmt.Sprintf(format, args...)))
	}
	pos := map[*Node]int{}
	names := map[string]bool{}
	for i, n := range g.Nodes {
		if n.Kind != Output {
			if names[n.Name] {
				bad(n, "name used twice")
			}
			names[n.Name] = true
		}
		for k, a := range n.Args {
			j, ok := pos[a.Node]
			if !ok || j >= i {
				bad(n, "operand %d (%%%s) is not defined before use", k, a.Node.Name)
				continue
			}
			if a.Index < 0 || a.Index >= len(a.Node.Shapes) {
				bad(n, "operand %d refers to missing output %d of %%%s", k, a.Index, a.Node.Name)
			}
		}
		switch n.Kind {
		case Placeholder:
			if len(n.Shapes) != 1 {
				bad(n, "a placeholder has one output")
			}
			if n.Index < 0 {
				bad(n, "placeholder[%s %d]: negative index", kindName(n.Input), n.Index)
			}
		case Call:
			op := n.Op
			if op == nil && n.Sub != nil {
				if msg := subgraphMismatch(n); msg != "" {
					bad(n, "%s", msg)
				}
				break
			}
			if op == nil {
				bad(n, "a call without an op")
				break
			}
			in := make([]lazy.Shape, len(n.Args))
			for k, a := range n.Args {
				if a.Index < len(a.Node.Shapes) {
					in[k] = a.Shape()
				}
			}
			out, err := safeInfer(op, in, n.Attrs)
			switch {
			case err != nil:
				bad(n, "%s rejects its operands: %v", op.Name, err)
			case out == nil:
				// data-dependent shapes (host ops): recorded shapes stand
			case !shapesEqual(out, n.Shapes):
				bad(n, "recorded shapes %s differ from %s's rule %s", shapesString(n.Shapes), op.Name, shapesString(out))
			}
		case Output:
			if i != len(g.Nodes)-1 {
				bad(n, "output is not the last node")
			}
			for _, m := range n.Mutations {
				if m.Target.Kind != Placeholder {
					bad(n, "mutation of %%%s, which is not a placeholder", m.Target.Name)
				} else if !m.Target.Shapes[0].Equal(m.Value.Shape()) {
					bad(n, "mutation of %%%s with %s, want %s", m.Target.Name, m.Value.Shape(), m.Target.Shapes[0])
				}
			}
		}
		pos[n] = i
	}
	if g.Output() == nil {
		errs = append(errs, errors.New("fx lint: graph has no output node"))
	}
	return errors.Join(errs...)
}

func shapesEqual(a, b []lazy.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// safeInfer runs a shape rule, turning a panic (a rule indexing operands
// that are not there) into an error.
func safeInfer(op *lazy.OpDef, in []lazy.Shape, a lazy.Attrs) (out []lazy.Shape, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%d operands or attributes do not fit the op (%v)", len(in), r)
		}
	}()
	return op.Infer(in, a)
}

// subgraphMismatch says how a call of a subgraph disagrees with the
// subgraph's placeholders (one per operand, arguments in order, of the
// operands' shapes) and outputs (one per result shape), or "".
func subgraphMismatch(n *Node) string {
	ps, out := n.Sub.Placeholders(), n.Sub.Output()
	if len(ps) != len(n.Args) || out == nil || len(out.Args) != len(n.Shapes) {
		return fmt.Sprintf("the subgraph's inputs and outputs do not match %d operands and %d results", len(n.Args), len(n.Shapes))
	}
	for i, p := range ps {
		if p.Input != Arg || p.Index != i || n.Args[i].Index >= len(n.Args[i].Node.Shapes) || !p.Shapes[0].Equal(n.Args[i].Shape()) {
			return fmt.Sprintf("subgraph placeholder %%%s does not take operand %d", p.Name, i)
		}
	}
	for i, r := range out.Args {
		if !r.Shape().Equal(n.Shapes[i]) {
			return fmt.Sprintf("subgraph output %d is %s, the node records %s", i, r.Shape(), n.Shapes[i])
		}
	}
	return ""
}
