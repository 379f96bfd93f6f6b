package main

import (
	"math"

	"github.com/xlajit/xlajit/lazy"
)

// modelConfig sizes the model; DType makes it generic over the element type
// (the test checks gradients in f64).
type modelConfig struct {
	Vocab  int64
	SeqLen int64
	DModel int64
	Heads  int
	Hidden int64 // MLP width
	Layers int
	DType  lazy.DType
}

// block is one pre-norm transformer block: x + attn(ln1(x)), then
// x + mlp(ln2(x)).
type block struct {
	LN1W, LN1B *lazy.Tensor
	Wqkv, Bqkv *lazy.Tensor // [d, 3d]: queries, keys and values in one matmul
	Wo, Bo     *lazy.Tensor
	LN2W, LN2B *lazy.Tensor
	W1, B1     *lazy.Tensor
	W2, B2     *lazy.Tensor
}

// model is a decoder-only language model: token and position embeddings,
// blocks, a final layer norm and a linear head. Heads is a plain value, so
// it is part of the jit guard rather than a tensor.
type model struct {
	Heads      int
	Embed, Pos *lazy.Tensor
	Blocks     []*block
	LNFW, LNFB *lazy.Tensor
	Head       *lazy.Tensor
}

func newModel(c modelConfig) *model {
	dt, d := c.DType, c.DModel
	normal := func(std float64, dims ...int64) *lazy.Tensor { return lazy.RandN(dt, dims...).MulScalar(std) }
	std := 0.02
	// Scaled init of the residual projections keeps the residual stream's
	// variance independent of depth (GPT-2).
	resid := std / math.Sqrt(2*float64(c.Layers))
	m := &model{
		Heads: c.Heads,
		Embed: normal(std, c.Vocab, d),
		Pos:   normal(std, c.SeqLen, d),
		LNFW:  lazy.Ones(dt, d),
		LNFB:  lazy.Zeros(dt, d),
		Head:  normal(std, d, c.Vocab),
	}
	for range c.Layers {
		m.Blocks = append(m.Blocks, &block{
			LN1W: lazy.Ones(dt, d), LN1B: lazy.Zeros(dt, d),
			Wqkv: normal(std, d, 3*d), Bqkv: lazy.Zeros(dt, 3*d),
			Wo: normal(resid, d, d), Bo: lazy.Zeros(dt, d),
			LN2W: lazy.Ones(dt, d), LN2B: lazy.Zeros(dt, d),
			W1: normal(std, d, c.Hidden), B1: lazy.Zeros(dt, c.Hidden),
			W2: normal(resid, c.Hidden, d), B2: lazy.Zeros(dt, d),
		})
	}
	if err := lazy.Sync(m.params()...); err != nil {
		panic(err)
	}
	return m
}

// params lists every trainable tensor in a fixed order.
func (m *model) params() []*lazy.Tensor {
	ps := []*lazy.Tensor{m.Embed, m.Pos}
	for _, b := range m.Blocks {
		ps = append(ps, b.LN1W, b.LN1B, b.Wqkv, b.Bqkv, b.Wo, b.Bo, b.LN2W, b.LN2B, b.W1, b.B1, b.W2, b.B2)
	}
	return append(ps, m.LNFW, m.LNFB, m.Head)
}

// causalMask is true where query i may attend to key j (j <= i).
func causalMask(t int64) *lazy.Tensor {
	return lazy.Iota(lazy.I32, 0, t, t).Ge(lazy.Iota(lazy.I32, 1, t, t))
}

// attention is multi-head causal self-attention of x [b, t, d].
func (blk *block) attention(x *lazy.Tensor, heads int) *lazy.Tensor {
	b, t, d := x.Dim(0), x.Dim(1), x.Dim(2)
	h := int64(heads)
	dh := d / h
	qkv := x.MatMul(blk.Wqkv).Add(blk.Bqkv).Chunk(2, 3)
	split := func(z *lazy.Tensor) *lazy.Tensor { return z.Reshape(b, t, h, dh).Permute(0, 2, 1, 3) } // [b, h, t, dh]
	q, k, v := split(qkv[0]), split(qkv[1]), split(qkv[2])
	scores := q.MatMul(k.T()).MulScalar(1 / math.Sqrt(float64(dh))) // [b, h, t, t]
	scores = lazy.Where(causalMask(t), scores, lazy.Full(scores.DType(), math.Inf(-1)))
	out := scores.Softmax(-1).MatMul(v) // [b, h, t, dh]
	out = out.Permute(0, 2, 1, 3).Reshape(b, t, d)
	return out.MatMul(blk.Wo).Add(blk.Bo)
}

func (blk *block) mlp(x *lazy.Tensor) *lazy.Tensor {
	return x.MatMul(blk.W1).Add(blk.B1).GELU().MatMul(blk.W2).Add(blk.B2)
}

const lnEps = 1e-5

// logits maps tokens [b, t] (integers) to next-token logits [b, t, vocab].
func (m *model) logits(tokens *lazy.Tensor) *lazy.Tensor {
	b, t := tokens.Dim(0), tokens.Dim(1)
	x := m.Embed.IndexSelect(0, tokens.Flatten()).Reshape(b, t, -1)
	x = x.Add(m.Pos.Narrow(0, 0, t))
	for _, blk := range m.Blocks {
		x = x.Add(blk.attention(lazy.LayerNorm(x, 1, blk.LN1W, blk.LN1B, lnEps), m.Heads))
		x = x.Add(blk.mlp(lazy.LayerNorm(x, 1, blk.LN2W, blk.LN2B, lnEps)))
	}
	return lazy.LayerNorm(x, 1, m.LNFW, m.LNFB, lnEps).MatMul(m.Head)
}

// loss is the mean cross-entropy of predicting targets [b, t] from tokens.
func (m *model) loss(tokens, targets *lazy.Tensor) *lazy.Tensor {
	lg := m.logits(tokens)
	return lazy.CrossEntropy(lg.Reshape(-1, lg.Dim(-1)), targets.Flatten())
}

// adam is the optimizer state. The step count is a tensor: as a Go int
// argument it would be part of the guard and retrace every step.
type adam struct {
	Step *lazy.Tensor
	M, V []*lazy.Tensor
}

func newAdam(ps []*lazy.Tensor) *adam {
	o := &adam{Step: lazy.Zeros(ps[0].DType())}
	for _, p := range ps {
		o.M = append(o.M, lazy.ZerosLike(p))
		o.V = append(o.V, lazy.ZerosLike(p))
	}
	all := append(append([]*lazy.Tensor{o.Step}, o.M...), o.V...)
	if err := lazy.Sync(all...); err != nil {
		panic(err)
	}
	return o
}

// hyper holds the optimizer's constants (plain values: guarded, not traced).
type hyper struct{ LR, Beta1, Beta2, Eps float64 }

// trainStep runs forward and backward and one Adam update in place, and
// returns the batch loss.
func trainStep(m *model, o *adam, tokens, targets *lazy.Tensor, h hyper) *lazy.Tensor {
	loss := m.loss(tokens, targets)
	ps := m.params()
	grads := lazy.Grad(loss, ps...)
	t := o.Step.AddScalar(1)
	o.Step.Assign(t)
	dt := loss.DType()
	// Bias corrections 1 - beta^t.
	c1 := lazy.Full(dt, h.Beta1).Pow(t).Neg().AddScalar(1)
	c2 := lazy.Full(dt, h.Beta2).Pow(t).Neg().AddScalar(1)
	for i, p := range ps {
		g := grads[i]
		mi := o.M[i].MulScalar(h.Beta1).Add(g.MulScalar(1 - h.Beta1))
		vi := o.V[i].MulScalar(h.Beta2).Add(g.Square().MulScalar(1 - h.Beta2))
		o.M[i].Assign(mi)
		o.V[i].Assign(vi)
		upd := mi.Div(c1).Div(vi.Div(c2).Sqrt().AddScalar(h.Eps))
		p.Assign(p.Sub(upd.MulScalar(h.LR)))
	}
	return loss
}

// nextToken returns the most likely token after each sequence of tokens
// [b, t] (greedy decoding).
func nextToken(m *model, tokens *lazy.Tensor) *lazy.Tensor {
	lg := m.logits(tokens)
	return lg.Narrow(1, lg.Dim(1)-1, 1).Squeeze(1).ArgMax(-1, false)
}
