package lazy

// Grad returns the gradient of the scalar y with respect to each x
// (reverse-mode autodiff over the IR). Inputs y does not depend on get
// zeros.
func Grad(y *Tensor, xs ...*Tensor) []*Tensor {
	if y.Size() != 1 {
		throw("Grad", []Shape{y.shape}, "y must have one element (use GradWith for a seed)")
	}
	return GradWith(y, OnesLike(y), xs...)
}

// GradWith returns the vector-Jacobian product dy^T dy/dx for each x. It
// walks the pending IR of y, and through tensors that eager mode already
// computed (their recorded origin), down to the xs.
func GradWith(y, dy *Tensor, xs ...*Tensor) []*Tensor {
	if !y.shape.Equal(dy.shape) {
		throw("GradWith", []Shape{y.shape, dy.shape}, "seed shape must equal y's")
	}
	want := make(map[Value]bool, len(xs))
	for _, x := range xs {
		want[x.value()] = true
	}
	resolve := originResolver(want)
	root := resolve(y.value())
	order := postOrder(root.Node, resolve)
	return gradFrom(y, dy, xs, want, resolve, root, order)
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

func gradFrom(y, dy *Tensor, xs []*Tensor, want map[Value]bool, resolve func(Value) Value, root Value, order []*Node) []*Tensor {
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
			throw("Grad", nil, "op %s is not differentiable", n.op.Name)
		}
		xsT := make([]*Tensor, len(n.inputs))
		for k, in := range n.inputs {
			xsT[k] = newPending(in, y.dev)
		}
		ysT := make([]*Tensor, len(n.out))
		for k, s := range n.out {
			ysT[k] = newPending(Value{n, k}, y.dev)
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
	out := make([]*Tensor, len(xs))
	for i, x := range xs {
		if t := grads[x.value()]; t != nil {
			out[i] = t
		} else {
			out[i] = ZerosLike(x)
		}
	}
	return out
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
