package lazy

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

// apply records op code on the inputs and returns one tensor per output.
// Shape errors panic with an *Error naming the op, the operand shapes and
// the caller. In eager mode the outputs are computed at once.
func apply(code opCode, attrs Attrs, inputs ...*Tensor) []*Tensor {
	return applyOp(table[code], attrs, inputs, false)
}

func apply1(code opCode, attrs Attrs, inputs ...*Tensor) *Tensor {
	return applyOp(table[code], attrs, inputs, false)[0]
}

// Apply records op on the inputs (the generic entry used by composite
// ops). Host-only ops run at once (outside traces), and in eager mode the
// outputs are computed. A nil op or input, an attribute of a type Attrs
// cannot hold, operands on different devices and operands the op's shape
// rule rejects panic with an *Error, before anything is recorded.
func Apply(op *OpDef, attrs Attrs, inputs ...*Tensor) []*Tensor {
	checkApply(op, attrs, inputs)
	return applyOp(op, attrs, inputs, false)
}

// Record is Apply recording IR and nothing else: no host op runs and
// eager mode computes nothing. Graphs are rebuilt with it for lowering
// (the fx Interpreter over placeholders, capability trials).
func Record(op *OpDef, attrs Attrs, inputs ...*Tensor) []*Tensor {
	checkApply(op, attrs, inputs)
	return applyOp(op, attrs, inputs, true)
}

// checkApply checks what the op table cannot: a nil op, attribute types,
// the operand count.
func checkApply(op *OpDef, attrs Attrs, inputs []*Tensor) {
	if op == nil {
		throw("Apply", shapesOf(inputs), "op is nil")
	}
	if err := checkAttrs(attrs); err != nil {
		throw(op.Name, shapesOf(inputs), "%v", err)
	}
	if err := op.checkArity(len(inputs)); err != nil {
		throw(op.Name, shapesOf(inputs), "%v", err)
	}
}

// applyOp is Apply for ops of the table (record: Record). The shape rule
// runs before anything else (before external inputs of a trace are
// computed, before device-data leaves are made), so a rejected op changes
// nothing.
func applyOp(op *OpDef, attrs Attrs, inputs []*Tensor, record bool) []*Tensor {
	return applyOpOut(op, attrs, inputs, record, nil)
}

// applyOpOut is applyOp with the op's result shapes known (nil: run its
// shape rule), for callers that checked what the rule checks and keep
// the shapes (never edited) themselves.
func applyOpOut(op *OpDef, attrs Attrs, inputs []*Tensor, record bool, known []Shape) []*Tensor {
	dev, err := commonDevice(inputs)
	if err != nil {
		in := make([]Shape, len(inputs))
		for i, t := range inputs {
			if t != nil {
				in[i] = t.shape
			}
		}
		throw(op.Name, in, "%v", err)
	}
	if dev == nil {
		dev = DefaultDevice()
	}
	if dev.dryOf != nil {
		in := make([]Shape, len(inputs))
		for i, t := range inputs {
			in[i] = t.shape
		}
		return dryApply(op, attrs, in, dev)
	}
	// One allocation for the node, up to two operand values and their
	// shapes, and the first result tensor: IR building is allocation-bound.
	a := &nodeAlloc{}
	in := a.shapes[:0]
	if len(inputs) > len(a.shapes) {
		in = make([]Shape, 0, len(inputs))
	}
	for _, t := range inputs {
		in = append(in, t.shape)
	}
	out := known
	if out == nil {
		out = inferOut(op, attrs, in)
	}
	st := currentTrace()
	tracing := st != nil
	syncExternal(st, inputs)
	if !record && op.Lower == nil && op.GoKernel != nil && !(tracing && out != nil) {
		for i, t := range inputs {
			if t.symbolic() {
				throw(op.Name, in, "operand %d: %s", i, errSymbolic)
			}
		}
		return applyHost(op, attrs, inputs, in, dev)
	}
	vals := a.in[:0]
	if len(inputs) > len(a.in) {
		vals = make([]Value, 0, len(inputs))
	}
	for _, t := range inputs {
		vals = append(vals, t.value())
	}
	n := &a.n
	buildNode(n, op, attrs, vals, out)
	outs := a.outs[:]
	if len(n.out) != 1 {
		outs = make([]*Tensor, len(n.out))
	}
	for i := range n.out {
		v := Value{n, i}
		if i == 0 {
			v.Node.uses.Add(1)
			a.t = Tensor{shape: v.Shape(), dev: dev, val: v}
			outs[0] = &a.t
			continue
		}
		outs[i] = newPending(v, dev)
	}
	if !record && eager() && !n.symbolic && !tracing {
		mustSync("Eager", outs...)
	}
	if tracing && !record && op.Lower == nil {
		// A host op recorded without running (its output shapes are
		// declared): the trace keeps it even if nothing reads its
		// results, since the plain function runs it (it may fail).
		st.t.OnHostNode(Value{n, 0})
	}
	return outs
}

func commonDevice(inputs []*Tensor) (*Device, error) {
	var dev *Device
	for i, t := range inputs {
		if t == nil {
			return nil, fmt.Errorf("operand %d is nil", i)
		}
		if dev == nil {
			dev = t.dev
		} else if t.dev != dev {
			return nil, fmt.Errorf("operands are on different devices (%s and %s)", dev, t.dev)
		}
	}
	return dev, nil
}

// nodeAlloc is a node allocated with up to two operands and their shapes,
// its first result, and the result list of a one-result op.
type nodeAlloc struct {
	n      Node
	in     [2]Value
	shapes [2]Shape
	t      Tensor
	outs   [1]*Tensor
}

// applyHost runs a host-only op at once: its inputs are computed (a cut),
// copied to the host, the Go kernel runs, and the results go back to the
// device. HostFallback.<op> counts it.
func applyHost(op *OpDef, attrs Attrs, inputs []*Tensor, in []Shape, dev *Device) []*Tensor {
	before := make([]Value, len(inputs))
	for i, t := range inputs {
		before[i] = t.value()
	}
	if err := syncTensors("internal:HostOp", inputs); err != nil {
		throw(op.Name, in, "%v", err)
	}
	lits := make([]*hlo.Literal, len(inputs))
	for i, t := range inputs {
		l, err := t.data.buf.ToHost()
		if err != nil {
			throw(op.Name, in, "%v", err)
		}
		cFromDevice.add(1)
		lits[i] = l
	}
	res, err := op.GoKernel(lits, attrs)
	if err != nil {
		throw(op.Name, in, "%v", err)
	}
	getCounter(MetricHostFallbackPrefix + op.Name).add(1)
	outs := make([]*Tensor, len(res))
	// The results remember the host op that computed them, so Grad can
	// differentiate through it (or say it cannot).
	n := &Node{op: op, inputs: before, attrs: attrs, seq: nodeSeq.Add(1)}
	for _, in := range before {
		in.Node.uses.Add(1)
	}
	for i, l := range res {
		outs[i] = FromLiteralOn(dev, l)
		n.out = append(n.out, outs[i].shape)
	}
	n.computeHash()
	for i, t := range outs {
		t.origin = Value{n, i}
	}
	if st := currentTrace(); st != nil {
		for _, t := range outs {
			st.computed[t.data] = true
		}
		st.t.OnHostOp(op, attrs, before, outs)
	}
	return outs
}

// RunGoKernel runs op's Go kernel on literals (for the fallback stages
// between device programs). An op without a Go kernel is an error.
func RunGoKernel(op *OpDef, attrs Attrs, in []*hlo.Literal) ([]*hlo.Literal, error) {
	if op == nil {
		return nil, fmt.Errorf("lazy: RunGoKernel: op is nil")
	}
	if op.GoKernel != nil {
		return op.GoKernel(in, attrs)
	}
	return nil, fmt.Errorf("lazy: op %s has no Go kernel", op.Name)
}

// RunGoKernelTensors runs op's Go kernel on ins: their values are copied to
// the host (computing pending ones), the kernel runs, and the results come
// back to dev. HostFallback.<op> counts it.
func RunGoKernelTensors(dev *Device, op *OpDef, attrs Attrs, ins []*Tensor) ([]*Tensor, error) {
	if dev == nil || op == nil {
		return nil, &Error{Op: "RunGoKernelTensors", Msg: "device or op is nil", Site: callerSite()}
	}
	for i, t := range ins {
		if t == nil {
			return nil, &Error{Op: op.Name, Msg: fmt.Sprintf("input %d is nil", i), Site: callerSite()}
		}
		if t.symbolic() {
			return nil, &Error{Op: op.Name, Shapes: []string{t.shape.String()}, Msg: fmt.Sprintf("input %d: %s", i, errSymbolic), Site: callerSite()}
		}
	}
	if err := syncTensors("internal:HostOp", ins); err != nil {
		return nil, err
	}
	lits := make([]*hlo.Literal, len(ins))
	for i, t := range ins {
		l, err := t.data.buf.ToHost()
		if err != nil {
			return nil, err
		}
		cFromDevice.add(1)
		lits[i] = l
	}
	res, err := RunGoKernel(op, attrs, lits)
	if err != nil {
		return nil, err
	}
	getCounter(MetricHostFallbackPrefix + op.Name).add(1)
	outs := make([]*Tensor, len(res))
	for i, l := range res {
		outs[i] = FromLiteralOn(dev, l)
	}
	return outs, nil
}

// computeHostNodes runs host-only nodes that pending IR depends on (a
// lazy.HostFunc recorded inside a trace, whose result a data-dependent op
// now needs): in order, each node's inputs are computed (a cut), its Go
// kernel runs and its results are kept on the node, so the cut that needs
// them reads them as device data.
func computeHostNodes(nodes []*Node, dev *Device) error {
	for _, n := range nodes {
		if n.computed.Load() != nil {
			continue
		}
		ins := make([]*Tensor, len(n.inputs))
		for i, v := range n.inputs {
			ins[i] = &Tensor{shape: v.Shape(), dev: dev, val: v}
		}
		outs, err := RunGoKernelTensors(dev, n.op, n.attrs, ins)
		if err != nil {
			return &Error{Op: n.op.Name, Shapes: shapeStrings(n.out), Msg: err.Error(), Site: n.Site()}
		}
		for i, t := range outs {
			t.origin = Value{n, i}
		}
		n.computed.CompareAndSwap(nil, &outs)
	}
	return nil
}
