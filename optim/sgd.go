package optim

import "github.com/xlajit/xlajit/lazy"

// SGD is stochastic gradient descent with optional momentum (plain or
// Nesterov), dampening and L2 weight decay, as torch.optim.SGD:
//
//	g += wd p;  b = μ b + (1-τ) g (b = g on the first step);
//	g = g + μ b (Nesterov) or b;  p -= lr g
type SGD struct {
	Base
	Momentum, Dampening, WeightDecay float64
	Nesterov                         bool
	MomentumBuffer                   []*lazy.Tensor // nil without momentum
}

// NewSGD makes an SGD optimizer. Options: Momentum, Dampening, Nesterov,
// WeightDecay, WithSchedule.
func NewSGD(params []*lazy.Tensor, lr float64, opts ...Option) *SGD {
	const op = "optim.NewSGD"
	o := buildOptions(op, "Momentum Dampening Nesterov WeightDecay", opts, options{})
	if o.nesterov && (o.momentum <= 0 || o.dampening != 0) {
		throw(op, nil, "Nesterov momentum requires a momentum and zero dampening")
	}
	s := &SGD{Base: newBase(op, params, lr, &o), Momentum: o.momentum, Dampening: o.dampening, WeightDecay: o.wd, Nesterov: o.nesterov}
	if s.Momentum != 0 {
		s.MomentumBuffer = zerosLike(s.Params, 0)
	}
	materialise(&s.Base, s.MomentumBuffer)
	return s
}

// Step applies one update.
func (s *SGD) Step(grads []*lazy.Tensor) {
	lr := s.begin("optim.SGD.Step", grads)
	for i, p := range s.Params {
		g := grads[i]
		if g == nil {
			continue
		}
		t := s.paramStep(i)
		if s.WeightDecay != 0 {
			g = g.Add(p.MulScalar(s.WeightDecay))
		}
		if s.Momentum != 0 {
			buf := s.MomentumBuffer[i]
			nb := buf.MulScalar(s.Momentum).Add(g.MulScalar(1 - s.Dampening))
			if s.Dampening != 0 {
				// The parameter's first update takes the gradient undamped
				// (PyTorch: no momentum buffer yet).
				nb = lazy.Where(t.EqScalar(1), g, nb)
			}
			buf.Assign(nb)
			if s.Nesterov {
				g = g.Add(nb.MulScalar(s.Momentum))
			} else {
				g = nb
			}
		}
		update(p, p.Sub(g.Mul(as(lr, p))))
	}
}

// StateDict names the learning rate, step count and momentum buffers.
func (s *SGD) StateDict() map[string]*lazy.Tensor {
	return s.stateDict(map[string][]*lazy.Tensor{"momentum_buffer": s.MomentumBuffer})
}
