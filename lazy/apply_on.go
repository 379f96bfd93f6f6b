package lazy

// ApplyOn is Apply for an op that may take no tensor operands (constants,
// iotas): its results are on dev rather than the default device. With
// operands it is Apply (they decide the device, which must be dev).
func ApplyOn(dev *Device, op *OpDef, attrs Attrs, inputs ...*Tensor) []*Tensor {
	if len(inputs) > 0 || dev == nil {
		return Apply(op, attrs, inputs...)
	}
	if op.Lower == nil && op.Host != nil {
		return applyHost(op, attrs, inputs, dev)
	}
	n := newNode(op, attrs, nil)
	outs := make([]*Tensor, len(n.out))
	for i := range outs {
		outs[i] = newPending(Value{n, i}, dev)
	}
	if eager() && !n.symbolic && !Tracing() {
		mustSync("Eager", outs...)
	}
	return outs
}
