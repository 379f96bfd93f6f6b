package optim

import (
	"math"

	"github.com/xlajit/xlajit/lazy"
)

// Schedule gives the learning rate of update k (0-based, an f32 scalar on
// the device) as an f32 scalar. It is evaluated inside the training step's
// graph, so its own fields are constants of the graph (part of a compiled
// function's signature) and the changing value costs nothing.
type Schedule interface {
	LR(k *lazy.Tensor) *lazy.Tensor
}

// Constant is a fixed learning rate.
type Constant struct{ Value float64 }

// LR returns the value.
func (c Constant) LR(k *lazy.Tensor) *lazy.Tensor { return lazy.FullOn(k.Device(), lazy.F32, c.Value) }

// StepDecay multiplies Base by Gamma every Every updates (PyTorch's StepLR):
// Base · Gamma^floor(k/Every).
type StepDecay struct {
	Base, Gamma float64
	Every       int64
}

// LR evaluates the schedule.
func (s StepDecay) LR(k *lazy.Tensor) *lazy.Tensor {
	if s.Every <= 0 {
		throw("optim.StepDecay", nil, "Every = %d must be positive", s.Every)
	}
	n := k.DivScalar(float64(s.Every)).Floor()
	return powF64(s.Gamma, n).MulScalar(s.Base).Cast(lazy.F32)
}

// powF64 is γ^n in f64 (n an f32 count), as PyTorch's schedulers compute
// in Python floats: an f32 γ such as 0.999 is off by 5e-8, which its
// 5000th power turns into 6e-5 relative.
func powF64(gamma float64, n *lazy.Tensor) *lazy.Tensor {
	return lazy.FullOn(n.Device(), lazy.F64, gamma).Pow(n.Cast(lazy.F64))
}

// Exponential is Base · Gamma^k (PyTorch's ExponentialLR).
type Exponential struct{ Base, Gamma float64 }

// LR evaluates the schedule.
func (e Exponential) LR(k *lazy.Tensor) *lazy.Tensor {
	return powF64(e.Gamma, k).MulScalar(e.Base).Cast(lazy.F32)
}

// Cosine warms up linearly over Warmup updates from Base/Warmup to Base
// (none when Warmup is 0), then anneals from Base to Min along a half cosine
// reaching Min at update Total (PyTorch's CosineAnnealingLR with T_max =
// Total-Warmup after a LinearLR warm-up), and stays at Min after it.
type Cosine struct {
	Base, Min     float64
	Warmup, Total int64
}

// LR evaluates the schedule.
func (c Cosine) LR(k *lazy.Tensor) *lazy.Tensor {
	if c.Total <= c.Warmup || c.Warmup < 0 {
		throw("optim.Cosine", nil, "want 0 <= Warmup (%d) < Total (%d)", c.Warmup, c.Total)
	}
	span := float64(c.Total - c.Warmup)
	pos := k.SubScalar(float64(c.Warmup)).MaxScalar(0).MinScalar(span).DivScalar(span) // in [0, 1]
	cos := pos.MulScalar(math.Pi).Cos().AddScalar(1).MulScalar((c.Base - c.Min) / 2).AddScalar(c.Min)
	if c.Warmup == 0 {
		return cos
	}
	warm := k.AddScalar(1).DivScalar(float64(c.Warmup)).MulScalar(c.Base)
	return lazy.Where(k.LtScalar(float64(c.Warmup)), warm, cos)
}

// OneCycle is PyTorch's OneCycleLR with cosine annealing (two phases): from
// Max/Div up to Max over the first Pct of Total updates, then down to
// Max/Div/FinalDiv at update Total-1. Zero Pct, Div and FinalDiv mean
// PyTorch's defaults 0.3, 25 and 1e4.
type OneCycle struct {
	Max           float64
	Total         int64
	Pct           float64
	Div, FinalDiv float64
}

// LR evaluates the schedule.
func (o OneCycle) LR(k *lazy.Tensor) *lazy.Tensor {
	pct, div, fdiv := o.Pct, o.Div, o.FinalDiv
	if pct == 0 {
		pct = 0.3
	}
	if div == 0 {
		div = 25
	}
	if fdiv == 0 {
		fdiv = 1e4
	}
	if o.Total < 2 || !(pct > 0 && pct < 1) {
		throw("optim.OneCycle", nil, "want Total >= 2 and Pct in (0, 1), got %d and %v", o.Total, pct)
	}
	initial := o.Max / div
	minLR := initial / fdiv
	end1 := pct*float64(o.Total) - 1
	end2 := float64(o.Total - 1)
	if end1 == 0 {
		// The warm-up would end at update 0 and divide by its zero length
		// (NaN learning rate); PyTorch's OneCycleLR raises there.
		throw("optim.OneCycle", nil, "Pct %v of Total %d updates leaves a warm-up of length 0 (Pct*Total must not be 1)", pct, o.Total)
	}
	anneal := func(start, end float64, p *lazy.Tensor) *lazy.Tensor {
		// end + (start-end)/2 (cos(π p) + 1)
		return p.MinScalar(1).MulScalar(math.Pi).Cos().AddScalar(1).MulScalar((start - end) / 2).AddScalar(end)
	}
	up := anneal(initial, o.Max, k.DivScalar(end1))
	down := anneal(o.Max, minLR, k.SubScalar(end1).DivScalar(end2-end1))
	return lazy.Where(k.LeScalar(end1), up, down)
}

// ValueAt evaluates a schedule at update k on the host side of the device
// (for printing and tests; it runs a tiny program).
func ValueAt(s Schedule, k int64) float64 {
	if s == nil {
		throw("optim.ValueAt", nil, "schedule is nil")
	}
	return s.LR(lazy.Scalar(lazy.F32, float64(k))).Item()
}
