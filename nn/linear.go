package nn

import (
	"github.com/xlajit/xlajit/lazy"
)

// Linear is y = x W^T + b, with W [out, in] as in PyTorch (and lazy.Linear).
type Linear struct {
	Weight *lazy.Tensor `nn:"weight"` // [out, in]
	Bias   *lazy.Tensor `nn:"bias"`   // [out], or nil
}

// NewLinear makes a Linear layer initialised as PyTorch does: weight and
// bias from U(-1/sqrt(in), 1/sqrt(in)).
func NewLinear(in, out int64, opts ...Option) *Linear {
	o := buildOptions(opts)
	if in < 0 || out < 0 {
		throw("nn.NewLinear", nil, "negative size (in %d, out %d)", in, out)
	}
	l := &Linear{Weight: fanInUniform(o.dtype, in, out, in)}
	if !o.noBias {
		l.Bias = fanInUniform(o.dtype, in, out)
	}
	sync(l.Weight, l.Bias)
	return l
}

// Forward maps x [..., in] to [..., out].
func (l *Linear) Forward(x *lazy.Tensor) *lazy.Tensor {
	if x.Rank() < 1 || x.Dim(-1) != l.Weight.Dim(1) {
		throw("nn.Linear", []*lazy.Tensor{x, l.Weight}, "input's last axis must have %d features", l.Weight.Dim(1))
	}
	return lazy.Linear(x, l.Weight, l.Bias)
}

// Embedding looks up rows of a table by integer index.
type Embedding struct {
	Weight     *lazy.Tensor `nn:"weight"` // [num, dim]
	PaddingIdx int64        // -1: none
}

// NewEmbedding makes a table of num rows of dim features drawn from N(0, 1)
// (PyTorch's default); with PaddingIdx the padding row is zero.
func NewEmbedding(num, dim int64, opts ...Option) *Embedding {
	o := buildOptions(opts)
	e := &Embedding{Weight: lazy.RandN(o.dtype, num, dim), PaddingIdx: -1}
	if o.paddingIdx != nil {
		p := *o.paddingIdx
		if p < 0 {
			p += num
		}
		if p < 0 || p >= num {
			throw("nn.NewEmbedding", nil, "padding index %d out of range [0, %d)", *o.paddingIdx, num)
		}
		e.PaddingIdx = p
		e.Weight = e.Weight.Mul(e.rowMask(num, o.dtype))
	}
	sync(e.Weight)
	return e
}

// rowMask is [num, 1] ones with a zero at the padding row.
func (e *Embedding) rowMask(num int64, dt lazy.DType) *lazy.Tensor {
	return lazy.IotaOn(e.Weight.Device(), lazy.I64, 0, num, 1).NeScalar(float64(e.PaddingIdx)).Cast(dt)
}

// Forward maps i32 or i64 indices of any shape to [..., dim]. The padding
// row, if any, reads as stored (zeros from NewEmbedding) and receives no
// gradient.
func (e *Embedding) Forward(idx *lazy.Tensor) *lazy.Tensor {
	if dt := idx.DType(); dt != lazy.I32 && dt != lazy.I64 {
		throw("nn.Embedding", []*lazy.Tensor{idx, e.Weight}, "indices must be integers of type i32 or i64, got %s", dt)
	}
	w := e.Weight
	if e.PaddingIdx >= 0 {
		// The padding row reads as stored (zero unless loaded otherwise)
		// and gets no gradient, as PyTorch's embedding_backward masks it:
		// a select of w and detach(w), so the values are w's bits.
		keep := lazy.IotaOn(w.Device(), lazy.I64, 0, w.Dim(0), 1).NeScalar(float64(e.PaddingIdx)).BroadcastTo(w.Dims()...)
		w = lazy.Where(keep, w, w.Detach())
	}
	dims := append(append([]int64(nil), idx.Dims()...), w.Dim(1))
	return w.IndexSelect(0, idx.Reshape(idx.Size())).Reshape(dims...)
}

// Flatten reshapes x [N, d1, ...] (rank 2 or more) to [N, d1·...], as
// torch.nn.Flatten() (start_dim 1, which a 1-D tensor lacks).
func Flatten(x *lazy.Tensor) *lazy.Tensor {
	if x.Rank() < 2 {
		throw("nn.Flatten", []*lazy.Tensor{x}, "needs a batch axis and at least one more (rank 2 or more)")
	}
	// The product, not -1: an empty batch has no elements to infer from
	// (PyTorch's flatten of [0, 3, 2] is [0, 6]).
	rest := int64(1)
	for _, d := range x.Dims()[1:] {
		rest *= d
	}
	return x.Reshape(x.Dim(0), rest)
}
