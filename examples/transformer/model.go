package main

import (
	"math"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
	"github.com/xlajit/xlajit/optim"
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
	LN1  *nn.LayerNorm
	Attn *nn.MultiHeadAttention
	LN2  *nn.LayerNorm
	FC1  *nn.Linear
	FC2  *nn.Linear
}

// model is a decoder-only language model: token and position embeddings,
// blocks, a final layer norm and a linear head.
type model struct {
	Embed  *nn.Embedding
	Pos    *lazy.Tensor // [SeqLen, DModel]
	Blocks []*block
	LNF    *nn.LayerNorm
	Head   *nn.Linear
}

func newModel(c modelConfig) *model {
	dt, d := nn.DType(c.DType), c.DModel
	std := 0.02
	// Scaled init of the residual projections keeps the residual stream's
	// variance independent of depth (GPT-2).
	resid := std / math.Sqrt(2*float64(c.Layers))
	m := &model{
		Embed: nn.NewEmbedding(c.Vocab, d, dt),
		Pos:   nn.Normal(c.DType, 0, std, c.SeqLen, d),
		LNF:   nn.NewLayerNorm([]int64{d}, dt),
		Head:  nn.NewLinear(d, c.Vocab, dt, nn.NoBias()),
	}
	m.Embed.Weight = nn.Normal(c.DType, 0, std, c.Vocab, d)
	m.Head.Weight = nn.Normal(c.DType, 0, std, c.Vocab, d)
	for range c.Layers {
		b := &block{
			LN1: nn.NewLayerNorm([]int64{d}, dt), Attn: nn.NewMultiHeadAttention(d, int64(c.Heads), dt),
			LN2: nn.NewLayerNorm([]int64{d}, dt), FC1: nn.NewLinear(d, c.Hidden, dt), FC2: nn.NewLinear(c.Hidden, d, dt),
		}
		b.Attn.OutProj.Weight = nn.Normal(c.DType, 0, resid, d, d)
		b.FC2.Weight = nn.Normal(c.DType, 0, resid, d, c.Hidden)
		m.Blocks = append(m.Blocks, b)
	}
	if err := lazy.Sync(nn.Params(m).Tensors()...); err != nil {
		panic(err)
	}
	return m
}

func (b *block) forward(x *lazy.Tensor) *lazy.Tensor {
	x = x.Add(b.Attn.CausalSelfAttention(b.LN1.Forward(x)))
	return x.Add(b.FC2.Forward(b.FC1.Forward(b.LN2.Forward(x)).GELU()))
}

// logits maps tokens [b, t] (integers) to next-token logits [b, t, vocab].
func (m *model) logits(tokens *lazy.Tensor) *lazy.Tensor {
	x := m.Embed.Forward(tokens).Add(m.Pos.Narrow(0, 0, tokens.Dim(1)))
	for _, blk := range m.Blocks {
		x = blk.forward(x)
	}
	return m.Head.Forward(m.LNF.Forward(x))
}

// loss is the mean cross-entropy of predicting targets [b, t] from tokens.
func (m *model) loss(tokens, targets *lazy.Tensor) *lazy.Tensor {
	lg := m.logits(tokens)
	return nn.CrossEntropy(lg.Reshape(-1, lg.Dim(-1)), targets.Reshape(-1))
}

// trainStep runs forward and backward and one Adam update in place, and
// returns the batch loss.
func trainStep(m *model, opt *optim.Adam, tokens, targets *lazy.Tensor) *lazy.Tensor {
	loss := m.loss(tokens, targets)
	opt.Step(lazy.Grad(loss, opt.Params...))
	return loss
}

// nextToken returns the most likely token after each sequence of tokens
// [b, t] (greedy decoding).
func nextToken(m *model, tokens *lazy.Tensor) *lazy.Tensor {
	lg := m.logits(tokens)
	return lg.Narrow(1, lg.Dim(1)-1, 1).Squeeze(1).ArgMax(-1)
}
