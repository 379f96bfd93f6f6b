package nn

import (
	"math"

	"github.com/xlajit/xlajit/lazy"
)

// GRUCell is one step of a gated recurrent unit (PyTorch's nn.GRUCell,
// gates in the order reset, update, new):
//
//	r = σ(W_ir x + b_ir + W_hr h + b_hr)
//	z = σ(W_iz x + b_iz + W_hz h + b_hz)
//	n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
//	h' = (1 - z) ⊙ n + z ⊙ h
type GRUCell struct {
	WeightIH *lazy.Tensor `nn:"weight_ih"` // [3H, I]
	WeightHH *lazy.Tensor `nn:"weight_hh"` // [3H, H]
	BiasIH   *lazy.Tensor `nn:"bias_ih"`   // [3H], or nil
	BiasHH   *lazy.Tensor `nn:"bias_hh"`   // [3H], or nil
}

// recurrentInit is PyTorch's RNN default: every weight and bias from
// U(-1/sqrt(hidden), 1/sqrt(hidden)).
func recurrentInit(dt lazy.DType, hidden int64, dims ...int64) *lazy.Tensor {
	b := 1 / math.Sqrt(float64(hidden))
	return lazy.RandUniform(dt, -b, b, dims...)
}

// NewGRUCell makes a GRU cell from in features to hidden units.
func NewGRUCell(in, hidden int64, opts ...Option) *GRUCell {
	o := buildOptions(opts)
	if in <= 0 || hidden <= 0 {
		throw("nn.NewGRUCell", nil, "want positive sizes, got in %d, hidden %d", in, hidden)
	}
	c := &GRUCell{WeightIH: recurrentInit(o.dtype, hidden, 3*hidden, in), WeightHH: recurrentInit(o.dtype, hidden, 3*hidden, hidden)}
	if !o.noBias {
		c.BiasIH, c.BiasHH = recurrentInit(o.dtype, hidden, 3*hidden), recurrentInit(o.dtype, hidden, 3*hidden)
	}
	sync(c.WeightIH, c.WeightHH, c.BiasIH, c.BiasHH)
	return c
}

// Hidden is the number of hidden units.
func (c *GRUCell) Hidden() int64 { return c.WeightHH.Dim(1) }

// Forward maps x [B, I] and h [B, H] (nil: zeros) to the next h [B, H],
// or an unbatched x [I] and h [H] to [H], as PyTorch's GRUCell.
func (c *GRUCell) Forward(x, h *lazy.Tensor) *lazy.Tensor {
	hn := c.Hidden()
	if x.Rank() == 1 {
		unbatchedState("nn.GRUCell", x, c.WeightIH, hn, h)
		return c.Forward(x.Unsqueeze(0), unsqueeze0(h)).Squeeze(0)
	}
	h = initialState("nn.GRUCell", x, h, c.WeightIH, hn)
	gi := lazy.Linear(x, c.WeightIH, c.BiasIH).Split(-1, hn, hn, hn)
	gh := lazy.Linear(h, c.WeightHH, c.BiasHH).Split(-1, hn, hn, hn)
	r := gi[0].Add(gh[0]).Sigmoid()
	z := gi[1].Add(gh[1]).Sigmoid()
	n := gi[2].Add(r.Mul(gh[2])).Tanh()
	return n.Add(z.Mul(h.Sub(n))) // (1-z) n + z h
}

// unbatchedState checks an unbatched input [I] and states [H] (nil ones
// are zeros) before they get a batch axis, so that errors name them.
func unbatchedState(op string, x, wih *lazy.Tensor, hidden int64, states ...*lazy.Tensor) {
	if x.Dim(0) != wih.Dim(1) {
		throw(op, []*lazy.Tensor{x, wih}, "want input [B, %d] or [%[1]d]", wih.Dim(1))
	}
	for _, h := range states {
		if h != nil && (h.Rank() != 1 || h.Dim(0) != hidden) {
			throw(op, []*lazy.Tensor{x, h}, "want state [%d] for an unbatched input", hidden)
		}
	}
}

// unsqueeze0 adds a batch axis to t (nil stays nil).
func unsqueeze0(t *lazy.Tensor) *lazy.Tensor {
	if t == nil {
		return nil
	}
	return t.Unsqueeze(0)
}

func initialState(op string, x, h, wih *lazy.Tensor, hidden int64) *lazy.Tensor {
	if x.Rank() != 2 || x.Dim(1) != wih.Dim(1) {
		throw(op, []*lazy.Tensor{x, wih}, "want input [B, %d] or [%[1]d]", wih.Dim(1))
	}
	if h == nil {
		return lazy.FullOn(x.Device(), x.DType(), 0, x.Dim(0), hidden)
	}
	if h.Rank() != 2 || h.Dim(0) != x.Dim(0) || h.Dim(1) != hidden {
		throw(op, []*lazy.Tensor{x, h}, "want state [%d, %d]", x.Dim(0), hidden)
	}
	return h
}

// LSTMCell is one step of a long short-term memory unit (PyTorch's
// nn.LSTMCell, gates in the order input, forget, cell, output):
//
//	i, f, o = σ(...), g = tanh(...) over W_i* x + b_i* + W_h* h + b_h*
//	c' = f ⊙ c + i ⊙ g,  h' = o ⊙ tanh(c')
type LSTMCell struct {
	WeightIH *lazy.Tensor `nn:"weight_ih"` // [4H, I]
	WeightHH *lazy.Tensor `nn:"weight_hh"` // [4H, H]
	BiasIH   *lazy.Tensor `nn:"bias_ih"`   // [4H], or nil
	BiasHH   *lazy.Tensor `nn:"bias_hh"`   // [4H], or nil
}

// NewLSTMCell makes an LSTM cell from in features to hidden units.
func NewLSTMCell(in, hidden int64, opts ...Option) *LSTMCell {
	o := buildOptions(opts)
	if in <= 0 || hidden <= 0 {
		throw("nn.NewLSTMCell", nil, "want positive sizes, got in %d, hidden %d", in, hidden)
	}
	c := &LSTMCell{WeightIH: recurrentInit(o.dtype, hidden, 4*hidden, in), WeightHH: recurrentInit(o.dtype, hidden, 4*hidden, hidden)}
	if !o.noBias {
		c.BiasIH, c.BiasHH = recurrentInit(o.dtype, hidden, 4*hidden), recurrentInit(o.dtype, hidden, 4*hidden)
	}
	sync(c.WeightIH, c.WeightHH, c.BiasIH, c.BiasHH)
	return c
}

// Hidden is the number of hidden units.
func (c *LSTMCell) Hidden() int64 { return c.WeightHH.Dim(1) }

// Forward maps x [B, I] and the state (h, c) [B, H] each (nil: zeros) to the
// next state, or an unbatched x [I] and states [H] to [H], as PyTorch's
// LSTMCell.
func (c *LSTMCell) Forward(x, h, cell *lazy.Tensor) (hNext, cNext *lazy.Tensor) {
	hn := c.Hidden()
	if x.Rank() == 1 {
		unbatchedState("nn.LSTMCell", x, c.WeightIH, hn, h, cell)
		hNext, cNext = c.Forward(x.Unsqueeze(0), unsqueeze0(h), unsqueeze0(cell))
		return hNext.Squeeze(0), cNext.Squeeze(0)
	}
	h = initialState("nn.LSTMCell", x, h, c.WeightIH, hn)
	cell = initialState("nn.LSTMCell", x, cell, c.WeightIH, hn)
	g := lazy.Linear(x, c.WeightIH, c.BiasIH).Add(lazy.Linear(h, c.WeightHH, c.BiasHH)).Split(-1, hn, hn, hn, hn)
	i, f, gg, o := g[0].Sigmoid(), g[1].Sigmoid(), g[2].Tanh(), g[3].Sigmoid()
	cNext = f.Mul(cell).Add(i.Mul(gg))
	return o.Mul(cNext.Tanh()), cNext
}

// UnrollGRU runs the cell over xs [B, T, I] from h0 (nil: zeros) and
// returns every step's state [B, T, H] and the last one [B, H]. The loop is
// Go code, so a compiled step holds T copies of the cell (one graph per
// sequence length).
func UnrollGRU(c *GRUCell, xs, h0 *lazy.Tensor) (outputs, last *lazy.Tensor) {
	if xs.Rank() != 3 || xs.Dim(1) < 1 {
		throw("nn.UnrollGRU", []*lazy.Tensor{xs}, "want a sequence [B, T, I] with T >= 1")
	}
	h := h0
	steps := make([]*lazy.Tensor, xs.Dim(1))
	for t := range steps {
		h = c.Forward(xs.Narrow(1, int64(t), 1).Squeeze(1), h)
		steps[t] = h
	}
	return lazy.Stack(1, steps...), h
}

// UnrollLSTM runs the cell over xs [B, T, I] from (h0, c0) (nil: zeros) and
// returns every step's h [B, T, H] and the last state.
func UnrollLSTM(c *LSTMCell, xs, h0, c0 *lazy.Tensor) (outputs, hLast, cLast *lazy.Tensor) {
	if xs.Rank() != 3 || xs.Dim(1) < 1 {
		throw("nn.UnrollLSTM", []*lazy.Tensor{xs}, "want a sequence [B, T, I] with T >= 1")
	}
	h, cell := h0, c0
	steps := make([]*lazy.Tensor, xs.Dim(1))
	for t := range steps {
		h, cell = c.Forward(xs.Narrow(1, int64(t), 1).Squeeze(1), h, cell)
		steps[t] = h
	}
	return lazy.Stack(1, steps...), h, cell
}
