package nn

import (
	"math"

	"github.com/xlajit/xlajit/lazy"
)

// MultiHeadAttention is PyTorch's nn.MultiheadAttention with
// batch_first=True: query [B, L, E], key and value [B, S, E] (same
// embedding width), Heads heads of E/Heads features, one packed input
// projection and an output projection, under PyTorch's state-dict names.
type MultiHeadAttention struct {
	InProjWeight *lazy.Tensor `nn:"in_proj_weight"` // [3E, E]: query, key, value rows
	InProjBias   *lazy.Tensor `nn:"in_proj_bias"`   // [3E], or nil
	OutProj      *Linear      `nn:"out_proj"`
	Heads        int64
	Dropout      float64 // attention-weight dropout in training mode
	Training     bool
}

// AttnMask selects the masks of one attention call.
type AttnMask struct {
	// Causal lets position i attend to positions j <= i only.
	Causal bool
	// KeyPadding [B, S] bool: true marks keys to ignore (PyTorch's
	// key_padding_mask; [S] for unbatched inputs). nil: none.
	KeyPadding *lazy.Tensor
}

// NewMultiHeadAttention makes an attention layer of width embed with heads
// heads, initialised as PyTorch does: the input projection Xavier-uniform
// with zero bias, the output projection Linear's default weight with zero
// bias. Options: NoBias, DropoutP, DType.
func NewMultiHeadAttention(embed, heads int64, opts ...Option) *MultiHeadAttention {
	o := buildOptions(opts)
	if embed <= 0 || heads <= 0 || embed%heads != 0 {
		throw("nn.NewMultiHeadAttention", nil, "embedding width %d must be a positive multiple of the head count %d", embed, heads)
	}
	a := &MultiHeadAttention{
		InProjWeight: Xavier{}.Uniform(o.dtype, 3*embed, embed),
		OutProj:      NewLinear(embed, embed, opts...),
		Heads:        heads, Dropout: o.dropout, Training: true,
	}
	if !o.noBias {
		a.InProjBias = lazy.Zeros(o.dtype, 3*embed)
		a.OutProj.Bias = lazy.Zeros(o.dtype, embed)
	}
	sync(a.InProjWeight, a.InProjBias, a.OutProj.Bias)
	return a
}

// SetTraining switches attention dropout on or off.
func (a *MultiHeadAttention) SetTraining(on bool) { a.Training = on }

// Forward attends from q [B, L, E] to k, v [B, S, E] and returns [B, L, E]
// (or from an unbatched q [L, E] to k, v [S, E], returning [L, E]).
func (a *MultiHeadAttention) Forward(q, k, v *lazy.Tensor, mask AttnMask) *lazy.Tensor {
	y, _ := a.forward(q, k, v, mask, false)
	return y
}

// ForwardWeights is Forward that also returns the attention weights
// averaged over heads [B, L, S] (PyTorch's need_weights=True), after
// attention dropout in training mode as PyTorch 1.13 returns them.
func (a *MultiHeadAttention) ForwardWeights(q, k, v *lazy.Tensor, mask AttnMask) (out, weights *lazy.Tensor) {
	return a.forward(q, k, v, mask, true)
}

func (a *MultiHeadAttention) forward(q, k, v *lazy.Tensor, mask AttnMask, weights bool) (*lazy.Tensor, *lazy.Tensor) {
	const op = "nn.MultiHeadAttention"
	e := a.InProjWeight.Dim(1)
	ts := []*lazy.Tensor{q, k, v}
	if q.Rank() == 2 && k.Rank() == 2 && v.Rank() == 2 {
		// Unbatched q [L, E], k, v [S, E] and key padding [S], as PyTorch's.
		if q.Dim(1) != e || k.Dim(1) != e || v.Dim(1) != e || k.Dim(0) != v.Dim(0) {
			throw(op, ts, "want query [L, %d] and key, value [S, %d] (or a batch of them)", e, e)
		}
		if kp := mask.KeyPadding; kp != nil {
			if kp.Rank() != 1 || kp.Dim(0) != k.Dim(0) || kp.DType() != lazy.Bool {
				throw(op, []*lazy.Tensor{q, k, kp}, "key padding mask must be bool [%d]", k.Dim(0))
			}
			mask.KeyPadding = kp.Unsqueeze(0)
		}
		out, w := a.forward(q.Unsqueeze(0), k.Unsqueeze(0), v.Unsqueeze(0), mask, weights)
		if w != nil {
			w = w.Squeeze(0)
		}
		return out.Squeeze(0), w
	}
	if q.Rank() != 3 || k.Rank() != 3 || v.Rank() != 3 || q.Dim(2) != e || k.Dim(2) != e || v.Dim(2) != e ||
		k.Dim(0) != q.Dim(0) || v.Dim(0) != q.Dim(0) || k.Dim(1) != v.Dim(1) {
		throw(op, ts, "want query [B, L, %d] and key, value [B, S, %d]", e, e)
	}
	b, l, s, h := q.Dim(0), q.Dim(1), k.Dim(1), a.Heads
	if kp := mask.KeyPadding; kp != nil && (kp.Rank() != 2 || kp.Dim(0) != b || kp.Dim(1) != s || kp.DType() != lazy.Bool) {
		throw(op, []*lazy.Tensor{q, k, kp}, "key padding mask must be bool [%d, %d]", b, s)
	}
	d := e / h
	proj := func(x *lazy.Tensor, i int64, n int64) *lazy.Tensor {
		w := a.InProjWeight.Narrow(0, i*e, e)
		var bias *lazy.Tensor
		if a.InProjBias != nil {
			bias = a.InProjBias.Narrow(0, i*e, e)
		}
		// [B, n, E] -> [B, H, n, D]
		return lazy.Linear(x, w, bias).Reshape(b, n, h, d).Permute(0, 2, 1, 3)
	}
	qh, kh, vh := proj(q, 0, l), proj(k, 1, s), proj(v, 2, s)
	scores := qh.MulScalar(1 / math.Sqrt(float64(d))).MatMul(kh.Transpose(-2, -1)) // [B, H, L, S]
	negInf := lazy.FullOn(scores.Device(), scores.DType(), math.Inf(-1))
	if mask.Causal {
		future := lazy.IotaOn(q.Device(), lazy.I32, 1, l, s).Gt(lazy.IotaOn(q.Device(), lazy.I32, 0, l, s))
		scores = lazy.Where(future, negInf, scores)
	}
	if kp := mask.KeyPadding; kp != nil {
		scores = lazy.Where(kp.Reshape(b, 1, 1, s), negInf, scores)
	}
	attn := scores.Softmax(-1)
	if a.Training && a.Dropout > 0 {
		attn = attn.Dropout(a.Dropout, true)
	}
	// The head average of the weights after dropout, as PyTorch 1.13's
	// multi_head_attention_forward returns them (need_weights).
	var avg *lazy.Tensor
	if weights {
		avg = attn.Mean(1)
	}
	out := attn.MatMul(vh).Permute(0, 2, 1, 3).Reshape(b, l, e)
	return a.OutProj.Forward(out), avg
}

// CausalSelfAttention is a.Forward(x, x, x, AttnMask{Causal: true}).
func (a *MultiHeadAttention) CausalSelfAttention(x *lazy.Tensor) *lazy.Tensor {
	return a.Forward(x, x, x, AttnMask{Causal: true})
}
