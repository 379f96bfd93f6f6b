package lazy

// relabel returns a deferred handler for a composite op (one built from
// other ops): an *Error raised by an inner op becomes an error of the
// composite, with its name and the caller's operand shapes, the inner op
// kept in the message. The site is already the caller's. Use it as
//
//	defer relabel("Conv2d", x, w, b)()
func relabel(op string, ts ...*Tensor) func() {
	return func() {
		r := recover()
		if r == nil {
			return
		}
		e, ok := r.(*Error)
		if !ok || e.Op == op {
			panic(r)
		}
		panic(&Error{Op: op, Shapes: shapeStrings(shapesOf(ts)), Msg: e.Op + ": " + e.Msg, Site: e.Site})
	}
}

// shapesOf lists the shapes of the non-nil tensors.
func shapesOf(ts []*Tensor) []Shape {
	out := make([]Shape, 0, len(ts))
	for _, t := range ts {
		if t != nil {
			out = append(out, t.shape)
		}
	}
	return out
}
