package optim

import "github.com/xlajit/xlajit/lazy"

// Adam is torch.optim.Adam (and AdamW when Decoupled):
//
//	g += wd p (Adam) or p *= 1 - lr wd (AdamW)
//	m = β1 m + (1-β1) g;  v = β2 v + (1-β2) g²  (v̂ = max(v̂, v) with AMSGrad)
//	p -= lr/(1-β1^t) · m / (sqrt(v)/sqrt(1-β2^t) + eps)
//
// with t the parameter's own step count (ParamSteps).
type Adam struct {
	Base
	Beta1, Beta2, Eps, WeightDecay float64
	AMSGrad, Decoupled             bool
	ExpAvg, ExpAvgSq, MaxExpAvgSq  []*lazy.Tensor
}

func newAdam(op string, params []*lazy.Tensor, lr float64, opts []Option, decoupled bool) *Adam {
	def := options{beta1: 0.9, beta2: 0.999, eps: 1e-8}
	if decoupled {
		def.wd = 0.01
	}
	o := buildOptions(op, "Betas Eps WeightDecay AMSGrad", opts, def)
	a := &Adam{Base: newBase(op, params, lr, &o), Beta1: o.beta1, Beta2: o.beta2, Eps: o.eps,
		WeightDecay: o.wd, AMSGrad: o.amsgrad, Decoupled: decoupled}
	a.ExpAvg, a.ExpAvgSq = zerosLike(a.Params, 0), zerosLike(a.Params, 0)
	if a.AMSGrad {
		a.MaxExpAvgSq = zerosLike(a.Params, 0)
	}
	materialise(&a.Base, a.ExpAvg, a.ExpAvgSq, a.MaxExpAvgSq)
	return a
}

// NewAdam makes an Adam optimizer (β 0.9, 0.999, eps 1e-8, no weight
// decay). Options: Betas, Eps, WeightDecay, AMSGrad, WithSchedule.
func NewAdam(params []*lazy.Tensor, lr float64, opts ...Option) *Adam {
	return newAdam("optim.NewAdam", params, lr, opts, false)
}

// NewAdamW makes an AdamW optimizer: Adam with decoupled weight decay
// (default 0.01).
func NewAdamW(params []*lazy.Tensor, lr float64, opts ...Option) *Adam {
	return newAdam("optim.NewAdamW", params, lr, opts, true)
}

// Step applies one update.
func (a *Adam) Step(grads []*lazy.Tensor) {
	lr := a.begin("optim.Adam.Step", grads)
	for i, p := range a.Params {
		g := grads[i]
		if g == nil {
			continue
		}
		// Bias corrections 1 - β^t in f64, as PyTorch computes them in
		// Python floats: in f32, β2 = 0.9999 alone is off by 2e-5 of 1-β2.
		t := a.paramStep(i).Cast(lazy.F64)
		bc1 := biasCorrection(a.Beta1, t)
		bc2Sqrt := biasCorrection(a.Beta2, t).Sqrt()
		stepSize := lr.Cast(lazy.F64).Div(bc1)
		pv := p
		if a.WeightDecay != 0 {
			if a.Decoupled {
				pv = p.Mul(as(lr, p).MulScalar(-a.WeightDecay).AddScalar(1))
			} else {
				g = g.Add(p.MulScalar(a.WeightDecay))
			}
		}
		m := a.ExpAvg[i].MulScalar(a.Beta1).Add(g.MulScalar(1 - a.Beta1))
		v := a.ExpAvgSq[i].MulScalar(a.Beta2).Add(g.Square().MulScalar(1 - a.Beta2))
		a.ExpAvg[i].Assign(m)
		a.ExpAvgSq[i].Assign(v)
		if a.AMSGrad {
			v = a.MaxExpAvgSq[i].Max(v)
			a.MaxExpAvgSq[i].Assign(v)
		}
		denom := v.Sqrt().Div(as(bc2Sqrt, p)).AddScalar(a.Eps)
		update(p, pv.Sub(m.Div(denom).Mul(as(stepSize, p))))
	}
}

// biasCorrection is 1 - β^t (f64 scalars; t an f64 step count).
func biasCorrection(beta float64, t *lazy.Tensor) *lazy.Tensor {
	return lazy.FullOn(t.Device(), lazy.F64, beta).Pow(t).Neg().AddScalar(1)
}

// StateDict names the learning rate, step count and moment estimates.
func (a *Adam) StateDict() map[string]*lazy.Tensor {
	return a.stateDict(map[string][]*lazy.Tensor{"exp_avg": a.ExpAvg, "exp_avg_sq": a.ExpAvgSq, "max_exp_avg_sq": a.MaxExpAvgSq})
}
