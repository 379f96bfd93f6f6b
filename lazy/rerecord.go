package lazy

import "github.com/xlajit/xlajit/internal/slab"

// Rerecord returns a node that is n applied to inputs instead of n's own
// operands: n's op, attributes, output shapes, hash and call site, with no
// shape rule run and no hash computed. It is how a traced graph is
// recorded again over placeholders for lowering when the traced IR cannot
// be lowered as it is (bridge.CompileTraced, when the executable keeps its
// IR): a
// device-data leaf hashes by dtype, shape and layout only, so a placeholder
// standing for a traced input hashes as that input did. Each input must
// have the hash, index and shape of n's operand at its place, which makes
// the copy's hash n's; otherwise, or for a device-data leaf, ok is false
// and nothing is built (the caller records the op through its shape rule
// instead).
func Rerecord(n *Node, inputs []Value) (_ *Node, ok bool) {
	return rerecord(n, inputs, nil)
}

// Rerecorder is Rerecord for a whole graph: the copies are cut from
// chunks, one allocation per chunk rather than per node (the copies of
// one graph are lowered together and dropped together). The zero
// Rerecorder is ready; it belongs to one goroutine.
type Rerecorder struct {
	cells slab.Slab[copyCell]
}

// Rerecord is the package's Rerecord.
func (r *Rerecorder) Rerecord(n *Node, inputs []Value) (_ *Node, ok bool) {
	return rerecord(n, inputs, r)
}

// cell returns a zeroed cell (its own allocation for a nil r).
func (r *Rerecorder) cell() *copyCell {
	if r == nil {
		return new(copyCell)
	}
	return r.cells.Get()
}

// copyCell is a copied node and up to two operands.
type copyCell struct {
	n  Node
	in [2]Value
}

func rerecord(n *Node, inputs []Value, r *Rerecorder) (_ *Node, ok bool) {
	if n == nil || n.data != nil || len(inputs) != len(n.inputs) {
		return nil, false
	}
	for i, v := range inputs {
		old := n.inputs[i]
		if v.Node == nil || v.Index != old.Index || v.Node.hash != old.Node.hash || !v.Shape().Equal(old.Shape()) {
			return nil, false
		}
	}
	a := r.cell()
	var vals []Value
	if len(inputs) > len(a.in) {
		vals = make([]Value, len(inputs))
	} else {
		vals = a.in[:len(inputs):len(inputs)]
	}
	copy(vals, inputs)
	c := &a.n
	*c = Node{op: n.op, inputs: vals, attrs: n.attrs, out: n.out, hash: n.hash, seq: nodeSeq.Add(1), stack: n.stack}
	for _, in := range vals {
		c.symbolic = c.symbolic || in.Node.symbolic
		in.Node.uses.Add(1)
	}
	return c, true
}
