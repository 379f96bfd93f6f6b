package optim

import (
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
)

// TestSetLRDoesNotRetrace changes the learning rate between compiled steps
// by writing the device tensor: no retrace, and the update uses the new
// rate.
func TestSetLRDoesNotRetrace(t *testing.T) {
	p := lazy.FromSlice([]float32{1, 2})
	opt := NewSGD([]*lazy.Tensor{p}, 0.5)
	step := jit.Compile(func(opt *SGD, g *lazy.Tensor) { opt.Step([]*lazy.Tensor{g}) })
	g := lazy.FromSlice([]float32{1, 1})
	step(opt, g) // p = [0.5, 1.5]
	jittest.ExpectNoRecompile(t, step, func() {
		opt.SetLR(0.25)
		step(opt, g) // p = [0.25, 1.25]
	})
	if got := p.Float32s(); got[0] != 0.25 || got[1] != 1.25 {
		t.Errorf("parameters %v, want [0.25 1.25]", got)
	}
	if lr := opt.CurrentLR(); lr != 0.25 {
		t.Errorf("learning rate %g", lr)
	}
}

func TestOptimizerErrors(t *testing.T) {
	p := lazy.Zeros(lazy.F32, 2)
	cases := []struct {
		fn   func()
		want string
	}{
		{func() { NewSGD(nil, 0.1) }, "no parameters"},
		{func() { NewSGD([]*lazy.Tensor{p, p}, 0.1) }, "appears twice"},
		{func() { NewSGD([]*lazy.Tensor{lazy.Zeros(lazy.I32, 2)}, 0.1) }, "not floating point"},
		{func() { NewSGD([]*lazy.Tensor{p}, -1) }, "learning rate -1 must be a number >= 0"},
		{func() { NewSGD([]*lazy.Tensor{p}, math.NaN()) }, "learning rate NaN must be a number >= 0"}, // not "is negative"
		{func() { NewSGD([]*lazy.Tensor{p}, 0.1, Betas(0.9, 0.99)) }, "option Betas does not apply"},
		{func() { NewSGD([]*lazy.Tensor{p}, 0.1, Nesterov()) }, "Nesterov momentum requires a momentum"},
		{func() { NewAdam([]*lazy.Tensor{p}, 0.1, Betas(1, 0.9)) }, "beta1 1 must be in [0, 1)"},
		{func() { NewAdam([]*lazy.Tensor{p}, 0.1).Step(nil) }, "0 gradients for 1 parameters"},
		{func() { NewAdam([]*lazy.Tensor{p}, 0.1).Step([]*lazy.Tensor{lazy.Zeros(lazy.F32, 3)}) }, "gradient 0 does not match"},
		{func() { ValueAt(Cosine{Base: 1, Total: 5, Warmup: 5}, 0) }, "Warmup (5) < Total (5)"},
		{func() { ClipGradNorm(nil, 0) }, "must be positive"},
		// Pct*Total = 1: the warm-up has length 0, a NaN rate at update 0
		// (PyTorch 1.13's OneCycleLR raises ZeroDivisionError).
		{func() { ValueAt(OneCycle{Max: 1, Total: 10, Pct: 0.1}, 0) }, "warm-up of length 0"},
		{func() { ValueAt(OneCycle{Max: 1, Total: 4, Pct: 0.25}, 0) }, "warm-up of length 0"},
		{func() { ValueAt(nil, 0) }, "schedule is nil"}, // was a nil dereference
	}
	for _, c := range cases {
		err := lazy.Try(c.fn)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	// A failed Step changes nothing.
	o := NewAdam([]*lazy.Tensor{p}, 0.1)
	lazy.Try(func() { o.Step([]*lazy.Tensor{lazy.Zeros(lazy.F32, 3)}) })
	if n := o.StepCount(); n != 0 {
		t.Errorf("step count %d after a failed Step", n)
	}
}

func TestStateDictNames(t *testing.T) {
	a := NewAdam([]*lazy.Tensor{lazy.Zeros(lazy.F32, 2), lazy.Zeros(lazy.F32, 3)}, 0.1)
	sd := a.StateDict()
	for _, n := range []string{"lr", "step", "state.0.exp_avg", "state.1.exp_avg_sq", "state.0.step", "state.1.step"} {
		if sd[n] == nil {
			t.Errorf("Adam state dict lacks %s: %v", n, sd)
		}
	}
	if len(sd) != 8 {
		t.Errorf("Adam state dict has %d entries, want 8", len(sd))
	}
	if got := ValueAt(Constant{0.3}, 7); math.Abs(got-0.3) > 1e-7 {
		t.Errorf("Constant = %g", got)
	}
}
