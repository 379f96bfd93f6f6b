package optim

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// Steps whose parameters stay pending between them (only the loss is read)
// must update as steps after a Sync and as the compiled step do: with the
// first parameter skipped by a nil gradient, the second one's pending
// value was computed from it, and a Grad through that history added a
// gradient PyTorch (whose step runs under no_grad) never sees.
func TestPendingStepsKeepNoHistory(t *testing.T) {
	opts := map[string]func(ps []*lazy.Tensor) Optimizer{
		"SGD":      func(ps []*lazy.Tensor) Optimizer { return NewSGD(ps, 0.01) },
		"momentum": func(ps []*lazy.Tensor) Optimizer { return NewSGD(ps, 0.01, Momentum(0.9)) },
		"Adam":     func(ps []*lazy.Tensor) Optimizer { return NewAdam(ps, 0.01) },
		"RMSProp":  func(ps []*lazy.Tensor) Optimizer { return NewRMSProp(ps, 0.01) },
		"Adagrad":  func(ps []*lazy.Tensor) Optimizer { return NewAdagrad(ps, 0.01) },
	}
	step := func(o Optimizer, skip bool) *lazy.Tensor {
		w, v := o.Shared().Params[0], o.Shared().Params[1]
		loss := w.Mul(v).Square().Sum()
		g := lazy.Grad(loss, w, v)
		if skip {
			g[0] = nil
		}
		o.Step(g)
		return loss
	}
	run := func(mk func([]*lazy.Tensor) Optimizer, mode string) string {
		o := mk([]*lazy.Tensor{lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{3, -1})})
		f := step
		if mode == "compiled" {
			f = jit.Compile(step)
		}
		s := ""
		for i := range 5 {
			s += fmt.Sprint(f(o, i%2 == 1).Float32s())
			if mode == "synced" {
				lazy.Sync(o.Shared().Params...)
			}
		}
		return s + fmt.Sprint(o.Shared().Params[0].Float32s(), o.Shared().Params[1].Float32s())
	}
	for name, mk := range opts {
		pending, synced, compiled := run(mk, "pending"), run(mk, "synced"), run(mk, "compiled")
		if pending != synced || compiled != synced {
			t.Errorf("%s: losses and parameters\npending  %s\nsynced   %s\ncompiled %s", name, pending, synced, compiled)
		}
	}
}
