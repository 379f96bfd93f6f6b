package lazy

// RecordOn is Record for an op that may take no tensor operands
// (constants, iotas): its results are on dev rather than the default
// device. With operands it is Record (they decide the device).
func RecordOn(dev *Device, op *OpDef, attrs Attrs, inputs ...*Tensor) []*Tensor {
	if len(inputs) > 0 || dev == nil {
		return Record(op, attrs, inputs...)
	}
	checkApply(op, attrs, inputs)
	if dev.dryOf != nil {
		return dryApply(op, attrs, nil, dev)
	}
	n := newNode(op, attrs)
	outs := make([]*Tensor, len(n.out))
	for i := range outs {
		outs[i] = newPending(Value{n, i}, dev)
	}
	return outs
}

// newNodeOf builds a node of op over inputs, running the shape rule (which
// panics with an *Error on bad input).
func newNodeOf(op *OpDef, attrs Attrs, inputs []Value) *Node {
	in := make([]Shape, len(inputs))
	for i, v := range inputs {
		in[i] = v.Shape()
	}
	out := inferOut(op, attrs, in)
	n := &Node{}
	buildNode(n, op, attrs, inputs, out, 4)
	return n
}
