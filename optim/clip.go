package optim

import (
	"github.com/xlajit/xlajit/lazy"
)

// ClipGradNorm scales grads so that their global L2 norm is at most maxNorm
// (torch.nn.utils.clip_grad_norm_: coefficient min(maxNorm/(norm+1e-6), 1))
// and returns the clipped gradients and the norm before clipping (an f32
// scalar). The norm and the coefficient are computed in f64 when a gradient
// is f64 (as PyTorch computes them in the gradients' type: in f32 an f64
// gradient would be scaled by an f32-rounded coefficient, and one of norm
// 1e20 would overflow to a zero gradient), in f32 otherwise. Nil gradients
// stay nil. Everything stays on the device.
func ClipGradNorm(grads []*lazy.Tensor, maxNorm float64) (clipped []*lazy.Tensor, norm *lazy.Tensor) {
	if !(maxNorm > 0) {
		throw("optim.ClipGradNorm", nil, "max norm %v must be positive", maxNorm)
	}
	acc := lazy.F32
	for _, g := range grads {
		if g != nil && g.DType() == lazy.F64 {
			acc = lazy.F64
		}
	}
	var sq *lazy.Tensor
	for _, g := range grads {
		if g == nil {
			continue
		}
		s := g.Cast(acc).Square().Sum()
		if sq == nil {
			sq = s
		} else {
			sq = sq.Add(s)
		}
	}
	clipped = make([]*lazy.Tensor, len(grads))
	if sq == nil {
		return clipped, lazy.Scalar(lazy.F32, 0)
	}
	norm = sq.Sqrt()
	coef := norm.AddScalar(1e-6).Reciprocal().MulScalar(maxNorm).MinScalar(1)
	for i, g := range grads {
		if g != nil {
			clipped[i] = g.Mul(coef.Cast(g.DType()))
		}
	}
	return clipped, norm.Cast(lazy.F32)
}

// ClipGradValue clamps every gradient element to [-v, v].
func ClipGradValue(grads []*lazy.Tensor, v float64) []*lazy.Tensor {
	if !(v > 0) {
		throw("optim.ClipGradValue", nil, "clip value %v must be positive", v)
	}
	out := make([]*lazy.Tensor, len(grads))
	for i, g := range grads {
		if g != nil {
			out[i] = g.Clamp(-v, v)
		}
	}
	return out
}
