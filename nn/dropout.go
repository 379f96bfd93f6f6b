package nn

import "github.com/xlajit/xlajit/lazy"

// Dropout zeroes each element with probability P in training mode and
// scales the others by 1/(1-P); in evaluation mode it is the identity. The
// mask comes from the device RNG, so every replay of a compiled step draws
// a new one.
type Dropout struct {
	P        float64
	Training bool
}

// NewDropout makes a Dropout layer in training mode.
func NewDropout(p float64) *Dropout {
	if !(p >= 0 && p <= 1) {
		throw("nn.NewDropout", nil, "p = %v must be in [0, 1]", p)
	}
	return &Dropout{P: p, Training: true}
}

// SetTraining switches dropout on or off.
func (d *Dropout) SetTraining(on bool) { d.Training = on }

// Forward applies dropout to x.
func (d *Dropout) Forward(x *lazy.Tensor) *lazy.Tensor { return x.Dropout(d.P, d.Training) }
