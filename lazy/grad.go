package lazy

// Grad returns the gradient of the scalar y with respect to each x
// (reverse-mode autodiff over the pending IR). Inputs y does not depend on
// get zeros.
func Grad(y *Tensor, xs ...*Tensor) []*Tensor {
	if y.Size() != 1 {
		throw("Grad", []Shape{y.shape}, "y must have one element (use GradWith for a seed)")
	}
	return GradWith(y, OnesLike(y), xs...)
}

// GradWith returns the vector-Jacobian product dy^T dy/dx for each x.
func GradWith(y, dy *Tensor, xs ...*Tensor) []*Tensor {
	if !y.shape.Equal(dy.shape) {
		throw("GradWith", []Shape{y.shape, dy.shape}, "seed shape must equal y's")
	}
	root := y.value()
	want := make(map[Value]bool, len(xs))
	for _, x := range xs {
		want[x.value()] = true
	}
	g := CollectGraph([]Value{root})
	grads := map[Value]*Tensor{root: dy}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
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
			in := n.inputs[k]
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
