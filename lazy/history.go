package lazy

import "sync"

// HistoryReaches reports whether the history Grad follows below one of ts
// reaches one of targets (the tensors of all the lists): ts[i]'s pending
// IR, or the IR that computed the data it holds (Tensor.origin), walked
// through the operands of every op with a gradient and through the
// origins of the device data it reads, as Grad walks it, meets a target
// other than ts[i]: its pending IR, the IR that computed it, or the
// device data it holds. A nil tensor in either list is skipped.
//
// A compiled function sees its arguments as leaves, and their history
// before the call is not part of its graph: the jit asks this of a call
// whose graph took a gradient, with the tensors it took it with respect
// to as targets, to run the plain function instead where the gradient
// would have flowed through that history (an argument computed from a
// parameter outside the function).
func HistoryReaches(ts []*Tensor, targets ...[]*Tensor) bool {
	var w *historyWalk
	defer func() {
		if w != nil {
			w.reset()
			historyWalks.Put(w)
		}
	}()
	for _, t := range ts {
		root := historyRoot(t)
		if root == nil {
			continue
		}
		if w == nil {
			w = historyWalks.Get().(*historyWalk)
			for _, us := range targets {
				for _, u := range us {
					w.add(u)
				}
			}
		}
		if w.meets(t, root) {
			return true
		}
	}
	return false
}

// historyWalk is HistoryReaches' scratch, pooled: a call of a compiled
// function that takes a gradient asks it of arguments with a history on
// every call (a batch computed on the device), and allocates nothing for
// it in steady state.
type historyWalk struct {
	// datas and nodes map the targets' data, and their pending IR and
	// origins, to the target holding it (severalTargets for more than
	// one).
	datas map[*deviceData]*Tensor
	nodes map[*Node]*Tensor
	seen  map[*Node]bool
	stack []*Node
}

var historyWalks = sync.Pool{New: func() any {
	return &historyWalk{datas: map[*deviceData]*Tensor{}, nodes: map[*Node]*Tensor{}, seen: map[*Node]bool{}}
}}

// add makes u a target.
func (w *historyWalk) add(u *Tensor) {
	if u == nil {
		return
	}
	if u.data != nil {
		w.datas[u.data] = owner(w.datas[u.data], u)
	}
	if u.val.Node != nil {
		w.nodes[u.val.Node] = owner(w.nodes[u.val.Node], u)
	}
	if u.origin.Node != nil {
		w.nodes[u.origin.Node] = owner(w.nodes[u.origin.Node], u)
	}
}

// severalTargets stands for two targets or more holding the same thing.
var severalTargets = new(Tensor)

// owner is who holds a thing held by had (nil for no one) and u.
func owner(had, u *Tensor) *Tensor {
	if had == nil || had == u {
		return u
	}
	return severalTargets
}

// reset empties w for the pool, keeping no tensor or node alive.
func (w *historyWalk) reset() {
	clear(w.datas)
	clear(w.nodes)
	clear(w.seen)
	clear(w.stack[:cap(w.stack)])
	w.stack = w.stack[:0]
}

// HasHistory reports whether one of ts has a history Grad would follow
// (HistoryReaches has something to walk).
func HasHistory(ts []*Tensor) bool {
	for _, t := range ts {
		if historyRoot(t) != nil {
			return true
		}
	}
	return false
}

// historyRoot is the node t's history starts at: its pending IR, or the
// IR that computed its data; nil for none.
func historyRoot(t *Tensor) *Node {
	var n *Node
	switch {
	case t == nil:
		return nil
	case t.val.Node != nil:
		n = t.val.Node
	default:
		n = t.origin.Node
	}
	if n != nil && n.data == nil && n.op != nil && n.op.NoGrad {
		return nil // a compiled program's result, a detached value
	}
	return n
}

// meets walks t's history from root (see HistoryReaches) and reports
// whether it meets a target other than t.
func (w *historyWalk) meets(t *Tensor, root *Node) bool {
	other := func(u *Tensor) bool { return u != nil && u != t }
	clear(w.seen)
	w.stack = append(w.stack[:0], root)
	for len(w.stack) > 0 {
		n := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if w.seen[n] {
			continue
		}
		w.seen[n] = true
		if n.data != nil {
			if other(w.datas[n.data]) {
				return true
			}
			if src := n.src; src != nil && src.data == n.data && src.origin.Node != nil {
				w.stack = append(w.stack, src.origin.Node)
			}
			continue
		}
		if n.op != nil && n.op.NoGrad {
			// No gradient flows through it (a detached value, or a
			// compiled program's results, which share one such node).
			continue
		}
		if other(w.nodes[n]) {
			return true
		}
		for _, in := range n.inputs {
			w.stack = append(w.stack, in.Node)
		}
	}
	return false
}
