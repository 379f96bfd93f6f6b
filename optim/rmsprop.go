package optim

import "github.com/xlajit/xlajit/lazy"

// RMSProp is torch.optim.RMSprop:
//
//	g += wd p;  s = α s + (1-α) g²;  (centered: ḡ = α ḡ + (1-α) g, s̃ = s - ḡ²)
//	d = sqrt(s̃) + eps;  b = μ b + g/d, p -= lr b (momentum) or p -= lr g/d
type RMSProp struct {
	Base
	Alpha, Eps, WeightDecay, Momentum float64
	Centered                          bool
	SquareAvg, GradAvg, MomentumBuf   []*lazy.Tensor
}

// NewRMSProp makes an RMSProp optimizer (α 0.99, eps 1e-8). Options: Alpha,
// Eps, WeightDecay, Momentum, Centered, WithSchedule.
func NewRMSProp(params []*lazy.Tensor, lr float64, opts ...Option) *RMSProp {
	const op = "optim.NewRMSProp"
	o := buildOptions(op, "Alpha Eps WeightDecay Momentum Centered", opts, options{alpha: 0.99, eps: 1e-8})
	r := &RMSProp{Base: newBase(op, params, lr, &o), Alpha: o.alpha, Eps: o.eps, WeightDecay: o.wd,
		Momentum: o.momentum, Centered: o.centered}
	r.SquareAvg = zerosLike(r.Params, 0)
	if r.Centered {
		r.GradAvg = zerosLike(r.Params, 0)
	}
	if r.Momentum > 0 {
		r.MomentumBuf = zerosLike(r.Params, 0)
	}
	materialise(&r.Base, r.SquareAvg, r.GradAvg, r.MomentumBuf)
	return r
}

// Step applies one update.
func (r *RMSProp) Step(grads []*lazy.Tensor) {
	lr := r.begin("optim.RMSProp.Step", grads)
	for i, p := range r.Params {
		g := grads[i]
		if g == nil {
			continue
		}
		r.paramStep(i) // kept as PyTorch does; the update does not read it
		if r.WeightDecay != 0 {
			g = g.Add(p.MulScalar(r.WeightDecay))
		}
		s := r.SquareAvg[i].MulScalar(r.Alpha).Add(g.Square().MulScalar(1 - r.Alpha))
		r.SquareAvg[i].Assign(s)
		var avg *lazy.Tensor
		if r.Centered {
			ga := r.GradAvg[i].MulScalar(r.Alpha).Add(g.MulScalar(1 - r.Alpha))
			r.GradAvg[i].Assign(ga)
			avg = s.Sub(ga.Square()).Sqrt().AddScalar(r.Eps)
		} else {
			avg = s.Sqrt().AddScalar(r.Eps)
		}
		upd := g.Div(avg)
		if r.Momentum > 0 {
			b := r.MomentumBuf[i].MulScalar(r.Momentum).Add(upd)
			r.MomentumBuf[i].Assign(b)
			upd = b
		}
		update(p, p.Sub(upd.Mul(as(lr, p))))
	}
}

// StateDict names the learning rate, step count and running averages.
func (r *RMSProp) StateDict() map[string]*lazy.Tensor {
	return r.stateDict(map[string][]*lazy.Tensor{"square_avg": r.SquareAvg, "grad_avg": r.GradAvg, "momentum_buffer": r.MomentumBuf})
}

// Adagrad is torch.optim.Adagrad:
//
//	g += wd p;  lr_t = lr / (1 + (t-1) decay);  s += g²;  p -= lr_t g / (sqrt(s) + eps)
//
// with t the parameter's own step count (ParamSteps).
type Adagrad struct {
	Base
	LRDecay, WeightDecay, Eps float64
	Sum                       []*lazy.Tensor
}

// NewAdagrad makes an Adagrad optimizer (eps 1e-10). Options: LRDecay,
// WeightDecay, InitialAccumulator, Eps, WithSchedule.
func NewAdagrad(params []*lazy.Tensor, lr float64, opts ...Option) *Adagrad {
	const op = "optim.NewAdagrad"
	o := buildOptions(op, "LRDecay WeightDecay InitialAccumulator Eps", opts, options{eps: 1e-10})
	a := &Adagrad{Base: newBase(op, params, lr, &o), LRDecay: o.lrDecay, WeightDecay: o.wd, Eps: o.eps}
	a.Sum = zerosLike(a.Params, o.initialAccumulator)
	materialise(&a.Base, a.Sum)
	return a
}

// Step applies one update.
func (a *Adagrad) Step(grads []*lazy.Tensor) {
	lr := a.begin("optim.Adagrad.Step", grads)
	for i, p := range a.Params {
		g := grads[i]
		if g == nil {
			continue
		}
		// The decayed rate in f64, as PyTorch computes it in Python floats
		// (and Adam its step size): in f32 it was rounded twice.
		t := a.paramStep(i).Cast(lazy.F64)
		clr := lr.Cast(lazy.F64).Div(t.SubScalar(1).MulScalar(a.LRDecay).AddScalar(1))
		if a.WeightDecay != 0 {
			g = g.Add(p.MulScalar(a.WeightDecay))
		}
		s := a.Sum[i].Add(g.Square())
		a.Sum[i].Assign(s)
		update(p, p.Sub(g.Div(s.Sqrt().AddScalar(a.Eps)).Mul(as(clr, p))))
	}
}

// StateDict names the learning rate, step count and sums of squares.
func (a *Adagrad) StateDict() map[string]*lazy.Tensor {
	return a.stateDict(map[string][]*lazy.Tensor{"sum": a.Sum})
}
