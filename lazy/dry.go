package lazy

// Dry runs. An op made of several inner ops (Linear, Softmax, Conv2d,
// Grad, ...) could find bad input only at its third inner op, after the
// first two recorded IR, counted uses, made device-data leaves or, in
// eager mode, executed programs. So a composite op first runs its own body
// on shape-only stand-ins of its operands: tensors on the operands' shadow
// device, for which every op only runs its shape rule. The dry run records
// nothing, executes nothing, reads no tensor and leaves the RNG alone; when
// it fails, the op fails with the same *Error before anything happened, and
// when it passes, the real run cannot fail on shapes.

// shadowOf returns d's shadow device (made once): the device of the
// stand-ins of d's tensors. It has d's client and ordinal, so it prints as
// d and two real devices have two distinct shadows.
func (d *Device) shadowOf() *Device {
	if d.dryOf != nil {
		return d
	}
	if s := d.shadow.Load(); s != nil {
		return s
	}
	d.shadow.CompareAndSwap(nil, &Device{client: d.client, ord: d.ord, cidx: d.cidx, state: d.state, dryOf: d})
	return d.shadow.Load()
}

// isDry reports whether t is a shape-only stand-in.
func (t *Tensor) isDry() bool { return t != nil && t.dev != nil && t.dev.dryOf != nil }

// dry returns a shape-only stand-in for t (t itself when it is one; nil
// for nil).
func (t *Tensor) dry() *Tensor {
	if t == nil || t.isDry() {
		return t
	}
	return &Tensor{shape: t.shape, dev: t.dev.shadowOf()}
}

// dryAll returns stand-ins for ts.
func dryAll(ts []*Tensor) []*Tensor {
	out := make([]*Tensor, len(ts))
	for i, t := range ts {
		out[i] = t.dry()
	}
	return out
}

// shapeOnly makes a stand-in of shape s on the shadow device dev.
func shapeOnly(s Shape, dev *Device) *Tensor { return &Tensor{shape: s, dev: dev} }

// dryApply is Apply on stand-ins: the shape rule only. A data-dependent
// result (NonZero, Unique, MaskedSelect) has no size before its data
// exists, so the dry run stops there: what follows it is checked by the
// real run (which computes that data, a cut, anyway).
func dryApply(op *OpDef, attrs Attrs, in []Shape, dev *Device) []*Tensor {
	out := inferOut(op, attrs, in)
	if out == nil {
		panic(dryStop{})
	}
	ts := make([]*Tensor, len(out))
	for i, s := range out {
		ts[i] = shapeOnly(s, dev)
	}
	return ts
}

// dryStop ends a dry run early (see dryApply).
type dryStop struct{}

// dryRun runs body, an op applied to stand-ins; an *Error it panics with
// goes on to the caller, a dryStop ends it quietly.
func dryRun(body func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(dryStop); !ok {
				panic(r)
			}
		}
	}()
	body()
}
