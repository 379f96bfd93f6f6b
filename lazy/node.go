package lazy

import (
	"sync"
	"sync/atomic"
)

// Node is one IR node: an op applied to operand values with attributes. Its
// hash is computed when it is built, from the op, the attributes and the
// operand hashes; a device-data leaf hashes by dtype and shape only, so the
// same program over new data has the same hash.
type Node struct {
	op     *OpDef
	inputs []Value
	attrs  Attrs
	out    []Shape
	hash   Hash
	seq    uint64 // creation order, global
	// symbolic marks IR that depends on a placeholder (NewPlaceholder): it
	// can be lowered and hashed but never executed.
	symbolic bool
	// uses counts the node's consumers and the pending tensors that held
	// one of its outputs. It never decreases (Go does not say when they
	// die), so it can only make donation more conservative.
	uses atomic.Int32
	// stack is the call stack that built the node (its site), recorded only
	// while tracing or debugging.
	stack *callStack

	// computed holds the results of a host-only node (no lowering) once a
	// cut has run it on the host; later cuts read them as device data.
	computed atomic.Pointer[[]*Tensor]

	// Leaves only.
	data *deviceData // DeviceData: the buffer
	src  *Tensor     // DeviceData: the tensor the buffer belonged to when used
}

// Value is one output of a node.
type Value struct {
	Node  *Node
	Index int
}

// Shape returns the value's shape.
func (v Value) Shape() Shape { return v.Node.out[v.Index] }

func (v Value) valid() bool { return v.Node != nil }

var nodeSeq atomic.Uint64

// captureSites controls whether nodes record their Go call site (always
// while tracing for the jit, or when XLAJIT_DEBUG >= 1).
var captureSites atomic.Int32

// Op returns the node's table row.
func (n *Node) Op() *OpDef { return n.op }

// Inputs returns the operand values.
func (n *Node) Inputs() []Value { return n.inputs }

// Attrs returns the attributes.
func (n *Node) Attrs() Attrs { return n.attrs }

// Shapes returns the output shapes.
func (n *Node) Shapes() []Shape { return n.out }

// Hash returns the node's hash.
func (n *Node) Hash() Hash { return n.hash }

// Seq is the node's global creation number.
func (n *Node) Seq() uint64 { return n.seq }

// Computed reports whether a cut has run the node on the host (a graph
// reading its results reads their device data instead: CollectGraph).
func (n *Node) Computed() bool { return n.computed.Load() != nil }

// IsData reports whether the node is a device-data leaf.
func (n *Node) IsData() bool { return n.data != nil }

// Source returns the tensor a device-data leaf was taken from.
func (n *Node) Source() *Tensor { return n.src }

// Site returns the Go call site (file:line) that built the node, when
// recorded.
func (n *Node) Site() string {
	if n.stack == nil {
		return ""
	}
	return n.stack.site()
}

// callStack is a recorded call stack: the return addresses of the frames
// above the lazy op that recorded it, and the site they resolve to (found
// once, when first asked: turning program counters into file:line costs
// microseconds). Equal stacks are one callStack, so a traced function
// building many nodes from each line of its source resolves each line
// once.
type callStack struct {
	pcs  [16]uintptr
	done atomic.Pointer[string]
}

func (c *callStack) site() string {
	if s := c.done.Load(); s != nil {
		return *s
	}
	k := 0
	for k < len(c.pcs) && c.pcs[k] != 0 {
		k++
	}
	s := siteFromPCs(c.pcs[:k])
	c.done.Store(&s)
	return s
}

var (
	stacksMu sync.RWMutex
	stacks   = map[[16]uintptr]*callStack{}
)

// maxStacks bounds the distinct stacks kept (as many as the program's
// call paths into the lazy API); past it, stacks are not shared.
const maxStacks = 1 << 14

// recentStacks is a direct-mapped cache in front of stacks, indexed by a
// mix of the return addresses: a traced function records every op's
// stack, most of them seen before, and a hit costs one comparison of the
// addresses instead of a hash of them, a map lookup and a lock.
var recentStacks [256]atomic.Pointer[callStack]

// stackSlot mixes the innermost frames (enough to tell a program's call
// sites apart; stacks that differ further out share slots and take turns).
func stackSlot(pcs *[16]uintptr) int {
	h := uint64(0)
	for _, pc := range pcs[:10] {
		h = (h ^ uint64(pc)) * 0x9e3779b97f4a7c15
	}
	return int(h >> 56)
}

// captureStack records the caller's call stack.
func captureStack() *callStack {
	var pcs [16]uintptr
	callers(pcs[:])
	slot := &recentStacks[stackSlot(&pcs)]
	if st := slot.Load(); st != nil && st.pcs == pcs {
		return st
	}
	st := sharedStack(&pcs)
	slot.Store(st)
	return st
}

// sharedStack returns the one callStack of pcs.
func sharedStack(p *[16]uintptr) *callStack {
	pcs := *p
	stacksMu.RLock()
	st := stacks[pcs]
	stacksMu.RUnlock()
	if st != nil {
		return st
	}
	st = &callStack{pcs: pcs}
	stacksMu.Lock()
	if old := stacks[pcs]; old != nil {
		st = old
	} else if len(stacks) < maxStacks {
		stacks[pcs] = st
	}
	stacksMu.Unlock()
	return st
}

func (n *Node) computeHash() {
	h := n.op.nameHasher()
	if n.data != nil {
		s := n.out[0]
		h.u64(uint64(s.DType))
		h.ints(s.Dims)
		if sh := n.data.sharding(); sh.IsTiled() {
			h.str(sh.String()) // other layouts, other programs
		}
		n.hash = h.sum()
		return
	}
	n.attrs.hashInto(&h)
	h.int(len(n.inputs))
	for _, in := range n.inputs {
		h.hash(in.Node.hash)
		h.int(in.Index)
	}
	n.hash = h.sum()
}

// newNode builds a node without operands, running the op's shape rule
// (which panics with an *Error on bad input).
func newNode(op *OpDef, attrs Attrs) *Node {
	out := inferOut(op, attrs, nil)
	n := &Node{}
	buildNode(n, op, attrs, nil, out)
	return n
}

// buildNode fills n with op applied to inputs, whose shape rule gave out
// (recording the call stack while sites are captured).
func buildNode(n *Node, op *OpDef, attrs Attrs, inputs []Value, out []Shape) {
	*n = Node{op: op, inputs: inputs, attrs: attrs, out: out, seq: nodeSeq.Add(1)}
	for _, in := range inputs {
		n.symbolic = n.symbolic || in.Node.symbolic
		in.Node.uses.Add(1)
	}
	if captureSites.Load() > 0 {
		n.stack = captureStack()
	}
	n.computeHash()
}

func newDataNode(d *deviceData, src *Tensor, s Shape) *Node {
	n := &Node{op: table[opDeviceData], out: []Shape{s}, data: d, src: src, seq: nodeSeq.Add(1), symbolic: d.buf == nil}
	n.computeHash()
	d.mu.Lock()
	x := d.more()
	x.leaves = append(x.leaves, n)
	d.mu.Unlock()
	return n
}

// DataID identifies the buffer of a device-data leaf (comparable with
// TensorState.DataID); nil for other nodes.
func (n *Node) DataID() any {
	if n.data == nil {
		return nil
	}
	return n.data
}
