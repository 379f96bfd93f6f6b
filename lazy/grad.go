package lazy

// Grad returns the gradient of the scalar y with respect to each x
// (reverse-mode autodiff over the IR). Inputs y does not depend on get
// zeros. y and the xs must be floating-point tensors on one device.
func Grad(y *Tensor, xs ...*Tensor) []*Tensor {
	needTensors("Grad", "y", y)
	if y.Size() != 1 {
		throw("Grad", []Shape{y.shape}, "y must have one element (use GradWith for a seed)")
	}
	checkGradArgs("Grad", y, nil, xs)
	return gradWith("Grad", y, nil, xs)
}

// GradWith returns the vector-Jacobian product dy^T dy/dx for each x. It
// walks the pending IR of y, and through tensors that eager mode already
// computed (their recorded origin), down to the xs.
func GradWith(y, dy *Tensor, xs ...*Tensor) []*Tensor {
	needTensors("GradWith", "y,dy", y, dy)
	if !y.shape.Equal(dy.shape) {
		throw("GradWith", []Shape{y.shape, dy.shape}, "seed shape must equal y's")
	}
	checkGradArgs("GradWith", y, dy, xs)
	return gradWith("GradWith", y, dy, xs)
}

// gradWith builds the gradients (dy nil: a seed of ones). The whole
// gradient is first built on shape-only stand-ins, so that an op without
// a gradient rule is reported before any of the gradient's IR is recorded.
func gradWith(op string, y, dy *Tensor, xs []*Tensor) []*Tensor {
	if st := currentTrace(); st != nil {
		var ins []*Tensor
		for _, x := range xs {
			if x != nil && !st.created[x] && !st.locals[x] && !st.recorded(x.state()) {
				ins = append(ins, x)
			}
		}
		st.t.OnGrad(ins)
	}
	// The dry run looks the values up without making device-data leaves:
	// a tensor without a leaf is in no graph.
	peek := make(map[Value]bool, len(xs))
	for _, x := range xs {
		if v, ok := x.peekValue(); ok {
			peek[v] = true
		}
	}
	resolveDry := originResolver(peek)
	rootDry, ok := y.peekValue()
	if !ok && y.origin.Node != nil && !isOneOf(y, xs) {
		rootDry, ok = y.origin, true
	}
	if ok {
		rootDry = resolveDry(rootDry)
		shadow := y.dev.shadowOf()
		mk := func(v Value) *Tensor { return shapeOnly(v.Shape(), shadow) }
		peekOf := func(x *Tensor) Value { v, _ := x.peekValue(); return v }
		dryRun(func() {
			gradFrom(op, shapeOnly(y.shape, shadow), xs, peekOf, resolveDry, rootDry, postOrder(rootDry.Node, resolveDry), mk)
		})
	}

	if dy == nil {
		dy = OnesLike(y)
	}
	want := make(map[Value]bool, len(xs))
	for _, x := range xs {
		want[x.value()] = true
	}
	resolve := originResolver(want)
	root := resolve(y.value())
	order := postOrder(root.Node, resolve)
	mk := func(v Value) *Tensor { return newPending(v, y.dev) }
	return gradFrom(op, dy, xs, (*Tensor).value, resolve, root, order, mk)
}

func isOneOf(t *Tensor, ts []*Tensor) bool {
	for _, u := range ts {
		if u == t {
			return true
		}
	}
	return false
}

// checkGradArgs checks that y, dy (nil for Grad) and the xs are
// floating-point tensors on one device.
func checkGradArgs(op string, y, dy *Tensor, xs []*Tensor) {
	needList(op, "xs", xs, true)
	all := append([]*Tensor{y}, xs...)
	if !floating.accepts(y.DType()) {
		throw(op, shapesOf(all), "y must be a floating-point tensor, got %s", y.DType())
	}
	for i, x := range xs {
		if !floating.accepts(x.DType()) {
			throw(op, shapesOf(all), "xs[%d] must be a floating-point tensor, got %s", i, x.DType())
		}
		if x.dev != y.dev {
			throw(op, shapesOf(all), "xs[%d] is on %s, y on %s", i, x.dev, y.dev)
		}
	}
	if dy != nil && dy.dev != y.dev {
		throw(op, []Shape{y.shape, dy.shape}, "dy is on %s, y on %s", dy.dev, y.dev)
	}
}

// peekValue is t's IR value as an operand when it has one already (its
// pending value, or the device-data leaf made for its current data),
// without making a leaf.
func (t *Tensor) peekValue() (Value, bool) {
	if t.val.Node != nil {
		return t.val, true
	}
	if n := t.leaf.Load(); n != nil && n.data == t.data {
		return Value{n, 0}, true
	}
	return Value{}, false
}

// gradGraph returns the nodes Grad walks below y (following origins).
func gradGraph(y *Tensor) []*Node {
	resolve := originResolver(nil)
	return postOrder(resolve(y.value()).Node, resolve)
}

// originResolver follows a device-data leaf to the IR that computed it,
// while its tensor still holds that data and the leaf is not wanted.
func originResolver(want map[Value]bool) func(Value) Value {
	return func(v Value) Value {
		for v.Node.data != nil && !want[v] {
			src := v.Node.src
			if src == nil || src.data != v.Node.data || src.origin.Node == nil {
				break
			}
			v = src.origin
		}
		return v
	}
}

// gradFrom builds the gradients of root (seeded with dy) down to the xs,
// visiting order in reverse; mk makes the tensor of an IR value given to a
// gradient rule and val the IR value of an x (stand-ins and peeked values
// in a dry run).
func gradFrom(op string, dy *Tensor, xs []*Tensor, val func(*Tensor) Value, resolve func(Value) Value, root Value, order []*Node, mk func(Value) *Tensor) []*Tensor {
	grads := map[Value]*Tensor{root: dy}
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		if n.data != nil || len(n.inputs) == 0 {
			continue
		}
		dys := make([]*Tensor, len(n.out))
		any := false
		for k := range n.out {
			if t := grads[Value{n, k}]; t != nil {
				dys[k] = t
				any = true
			}
		}
		if !any || n.op.NoGrad {
			continue
		}
		if n.op.VJP == nil {
			throw(op, nil, "op %s is not differentiable", n.op.Name)
		}
		xsT := make([]*Tensor, len(n.inputs))
		for k, in := range n.inputs {
			xsT[k] = mk(in)
		}
		ysT := make([]*Tensor, len(n.out))
		for k, s := range n.out {
			ysT[k] = mk(Value{n, k})
			// Missing gradients of float outputs are zeros; integer outputs
			// (indices) carry none.
			if dys[k] == nil && (s.DType.IsFloat() || s.DType.IsComplex()) {
				dys[k] = ZerosLike(ysT[k])
			}
		}
		dxs := n.op.VJP(xsT, ysT, dys, n.attrs)
		for k, dx := range dxs {
			if dx == nil || k >= len(n.inputs) {
				continue
			}
			in := resolve(n.inputs[k])
			if !in.Shape().DType.IsFloat() && !in.Shape().DType.IsComplex() {
				continue
			}
			if prev := grads[in]; prev != nil {
				grads[in] = prev.Add(dx)
			} else {
				grads[in] = dx
			}
		}
	}
	if stop := gradStoppedAt(grads, xs, val, order); stop != nil {
		throw(op, nil, "no x has a gradient path from y, and y's gradient reaches the result of a compiled program (graph %s), which keeps no history to differentiate: the gradient is unknown, not zero; take it inside the compiled function", stop.attrs.Str("graph"))
	}
	out := make([]*Tensor, len(xs))
	for i, x := range xs {
		if t := grads[val(x)]; t != nil {
			out[i] = t
		} else if dy.isDry() {
			out[i] = x.dry()
		} else {
			out[i] = ZerosLike(x)
		}
	}
	return out
}

// compiledResultOp names the origin of a compiled program's results
// (Executable.gradStop): a leaf for Grad.
var compiledResultOp = &OpDef{Name: "compiled_result", NoGrad: true}

// gradStoppedAt returns the compiled program's result node y's gradient
// reached when it reached one and no x got a gradient (the gradient was
// lost there: a compiled loss, or a tensor a replay wrote), else nil. When
// some x has a gradient, the others are taken as unused, as in the plain
// program: a compiled step that only prepared inputs, or updated a target
// network, is a constant to the model's parameters.
func gradStoppedAt(grads map[Value]*Tensor, xs []*Tensor, val func(*Tensor) Value, order []*Node) *Node {
	for _, x := range xs {
		if grads[val(x)] != nil {
			return nil
		}
	}
	for _, n := range order {
		if n.op != compiledResultOp {
			continue
		}
		for k := range n.out {
			if grads[Value{n, k}] != nil {
				return n
			}
		}
	}
	return nil
}

// postOrder lists the nodes below root (inputs resolved) in post-order.
func postOrder(root *Node, resolve func(Value) Value) []*Node {
	var order []*Node
	visited := map[*Node]bool{root: true}
	type frame struct {
		n    *Node
		next int
	}
	stack := []frame{{root, 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.n.inputs) {
			in := resolve(top.n.inputs[top.next]).Node
			top.next++
			if !visited[in] {
				visited[in] = true
				stack = append(stack, frame{in, 0})
			}
			continue
		}
		order = append(order, top.n)
		stack = stack[:len(stack)-1]
	}
	return order
}
