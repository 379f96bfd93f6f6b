package optim

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/jit/jittest"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// nilGradSteps are three updates of two parameters; parameter 1 has no
// gradient (PyTorch's p.grad = None) in the first.
var nilGradSteps = [][2][]float32{
	{{0.1, 0.2, -0.3}, nil},
	{{-0.2, 0.4, 0.1}, {0.3, -0.6}},
	{{0.05, -0.1, 0.2}, {-0.2, 0.1}},
}

func nilGradParams() []*lazy.Tensor {
	return []*lazy.Tensor{lazy.FromSlice([]float32{0.5, -1, 2}, 3), lazy.FromSlice([]float32{1, -0.5}, 2)}
}

func nilGradGrads(k int) []*lazy.Tensor {
	out := make([]*lazy.Tensor, 2)
	for i, g := range nilGradSteps[k] {
		if g != nil {
			out[i] = lazy.FromSlice(g, int64(len(g)))
		}
	}
	return out
}

func within(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Errorf("%s: got %v, want (PyTorch 1.13) %v", what, got, want)
			return
		}
	}
}

// TestNilGradientKeepsParamStep checks that step counts are per parameter
// and advance only with a gradient, as PyTorch's state[p]["step"] (and
// SGD's momentum buffer created on a parameter's first update): a
// parameter whose first gradient comes at the second update gets the
// first-update bias correction, learning-rate decay and undamped momentum.
// Expected values from PyTorch 1.13:
//
//	ps = [torch.tensor([0.5, -1, 2.], requires_grad=True), torch.tensor([1, -0.5], requires_grad=True)]
//	o = torch.optim.Adam(ps, 0.1)  # and the others below
//	for g0, g1 in steps: ps[0].grad = torch.tensor(g0); ps[1].grad = None if g1 is None else torch.tensor(g1); o.step()
func TestNilGradientKeepsParamStep(t *testing.T) {
	for _, c := range []struct {
		name         string
		mk           func(ps []*lazy.Tensor) Optimizer
		want0, want1 []float64
	}{
		{"adam", func(ps []*lazy.Tensor) Optimizer { return NewAdam(ps, 0.1) },
			[]float64{0.4502794146537781, -1.2553788423538208, 2.1319921016693115}, []float64{0.8855479955673218, -0.34614625573158264}},
		{"adamw", func(ps []*lazy.Tensor) Optimizer { return NewAdamW(ps, 0.1) },
			[]float64{0.44894421100616455, -1.2520854473114014, 2.125758171081543}, []float64{0.8836489915847778, -0.3452467620372772}},
		{"sgd momentum 0.9 dampening 0.5", func(ps []*lazy.Tensor) Optimizer { return NewSGD(ps, 0.1, Momentum(0.9), Dampening(0.5)) },
			[]float64{0.4893999993801117, -1.0871999263763428, 2.061800003051758}, []float64{0.9529999494552612, -0.39100000262260437}},
		{"adagrad lr_decay 0.5", func(ps []*lazy.Tensor) Optimizer { return NewAdagrad(ps, 0.1, LRDecay(0.5)) },
			[]float64{0.44871756434440613, -1.1487176418304443, 2.052191972732544}, []float64{0.9369800090789795, -0.410959929227829}},
		{"rmsprop centered momentum 0.5", func(ps []*lazy.Tensor) Optimizer { return NewRMSProp(ps, 0.1, Momentum(0.5), Centered()) },
			[]float64{-0.13398194313049316, -3.8932294845581055, 2.7432198524475098}, []float64{0.04927686229348183, 0.8417988419532776}},
	} {
		ps := nilGradParams()
		o := c.mk(ps)
		for k := range nilGradSteps {
			o.Step(nilGradGrads(k))
		}
		within(t, c.name+" parameter 0", ps[0].Float64s(), c.want0, 2e-6)
		within(t, c.name+" parameter 1", ps[1].Float64s(), c.want1, 2e-6)
		b := o.Shared()
		if n0, n1, n := b.ParamSteps[0].Item(), b.ParamSteps[1].Item(), b.StepCount(); n0 != 3 || n1 != 2 || n != 3 {
			t.Errorf("%s: parameter steps %v, %v and step %d, want 3, 2 and 3", c.name, n0, n1, n)
		}
		if sd := o.StateDict(); sd["state.1.step"] != b.ParamSteps[1] {
			t.Errorf("%s: the state dict does not name parameter 1's step count state.1.step", c.name)
		}
	}
}

// TestCompiledNilGradientStepReplays checks that per-parameter step
// counts are device tensors: a compiled Adam step that never has a
// gradient for one parameter traces once and replays, advancing only the
// other parameter's count.
func TestCompiledNilGradientStepReplays(t *testing.T) {
	ps := nilGradParams()
	o := NewAdam(ps, 0.1)
	step := jit.Compile(func(o *Adam, g *lazy.Tensor) { o.Step([]*lazy.Tensor{g, nil}) })
	g := lazy.FromSlice([]float32{0.1, 0.2, -0.3}, 3)
	step(o, g)
	step(o, g)
	jittest.ExpectStats(t, step, jit.Stats{Calls: 4, Replays: 4}, func() {
		for k := 0; k < 4; k++ {
			step(o, g)
		}
	})
	if n0, n1 := o.ParamSteps[0].Item(), o.ParamSteps[1].Item(); n0 != 6 || n1 != 0 {
		t.Errorf("parameter steps %v and %v, want 6 and 0", n0, n1)
	}
	within(t, "parameter 1", ps[1].Float64s(), []float64{1, -0.5}, 0)
}

// TestUpgradeCheckpointWithoutParamSteps checks that a checkpoint saved
// before per-parameter step counts (a shared "step" only) still loads:
// UpgradeCheckpoint gives every parameter the shared count.
func TestUpgradeCheckpointWithoutParamSteps(t *testing.T) {
	o := NewAdam(nilGradParams(), 0.1)
	o.Step(nilGradGrads(1))
	o.Step(nilGradGrads(1))
	lits := map[string]*lazy.Literal{}
	for n, ts := range nn.WithPrefix("optim.", o.StateDict()) {
		if n == "optim.state.0.step" || n == "optim.state.1.step" {
			continue // as the old format wrote it
		}
		l, err := ts.Literal()
		if err != nil {
			t.Fatal(err)
		}
		lits[n] = l
	}
	fresh := NewAdam(nilGradParams(), 0.1)
	dst := nn.WithPrefix("optim.", fresh.StateDict())
	if err := nn.AssignState(dst, lits); err == nil {
		t.Fatal("an old checkpoint loaded without UpgradeCheckpoint")
	}
	if !fresh.UpgradeCheckpoint(lits, "optim.") {
		t.Fatal("UpgradeCheckpoint added nothing")
	}
	if fresh.UpgradeCheckpoint(lits, "optim.") {
		t.Error("UpgradeCheckpoint changed a complete checkpoint")
	}
	if err := nn.AssignState(dst, lits); err != nil {
		t.Fatal(err)
	}
	if n0, n1 := fresh.ParamSteps[0].Item(), fresh.ParamSteps[1].Item(); n0 != 2 || n1 != 2 {
		t.Errorf("parameter steps %v and %v, want 2 and 2", n0, n1)
	}
}

// TestPowersInF64MatchPyTorch checks that Adam's bias corrections and the
// exponential and step schedules raise β and γ to a power in f64, as
// PyTorch does in Python floats (an f32 β2 = 0.9999 is off by 2e-5 of
// 1-β2; an f32 γ = 0.999 drifts 6e-5 by update 5000). From PyTorch 1.13:
//
//	p = torch.ones(4, requires_grad=True); o = torch.optim.Adam([p], 1e-3, betas=(0.9, 0.9999))
//	for _ in range(10): p.grad = torch.tensor([1e-3, 1, -0.5, 2]); o.step()
//	ExponentialLR(o, 0.999) and StepLR(o, 10, 0.99) from lr 1, read after 5000 scheduler steps
func TestPowersInF64MatchPyTorch(t *testing.T) {
	p := lazy.FromSlice([]float32{1, 1, 1, 1}, 4)
	o := NewAdam([]*lazy.Tensor{p}, 1e-3, Betas(0.9, 0.9999))
	for i := 0; i < 10; i++ {
		o.Step([]*lazy.Tensor{lazy.FromSlice([]float32{1e-3, 1, -0.5, 2}, 4)})
	}
	within(t, "adam betas (0.9, 0.9999)", p.Float64s(), []float64{0.9900001287460327, 0.9900001287460327, 1.010000467300415, 0.9900001287460327}, 1e-7)
	for _, c := range []struct {
		s    Schedule
		k    int64
		want float64
	}{
		{Exponential{Base: 1, Gamma: 0.999}, 5000, 0.006721111959865607},
		{StepDecay{Base: 1, Gamma: 0.99, Every: 10}, 5000, 0.006570483042414605},
		{StepDecay{Base: 1, Gamma: 0.99, Every: 10}, 4999, 0.006636851557994551},
	} {
		if got := ValueAt(c.s, c.k); math.Abs(got/c.want-1) > 1e-7 {
			t.Errorf("%+v at %d: %.9g, PyTorch %.9g (relative %.2g)", c.s, c.k, got, c.want, got/c.want-1)
		}
	}
}

// TestClipGradNormF64 checks that f64 gradients are clipped with an f64
// coefficient, as PyTorch computes it in the gradients' type: an f32 one
// was off by 1e-8 relative, and a norm of 5e20 overflowed f32 and zeroed
// the gradients. The returned norm stays an f32 scalar. PyTorch 1.13:
//
//	p = torch.zeros(2, dtype=torch.float64, requires_grad=True); p.grad = torch.tensor([3e20, 4e20], dtype=torch.float64)
//	torch.nn.utils.clip_grad_norm_([p], 1.0), p.grad  # 5e20, [0.6, 0.7999999999999999]
func TestClipGradNormF64(t *testing.T) {
	for _, c := range []struct {
		g, want []float64
		max     float64
		norm    float64
	}{
		{[]float64{3e20, 4e20}, []float64{0.6, 0.7999999999999999}, 1, 5e20},
		{[]float64{0.1, 0.2, 0.3}, []float64{0.026726052762861913, 0.053452105525723825, 0.08017815828858574}, 0.1, 0.37416573867739417},
	} {
		out, norm := ClipGradNorm([]*lazy.Tensor{lazy.FromSlice(c.g, int64(len(c.g))), nil}, c.max)
		within(t, "clipped", out[0].Float64s(), c.want, 1e-16)
		if norm.DType() != lazy.F32 || math.Abs(norm.Item()/c.norm-1) > 1e-7 {
			t.Errorf("norm %v %s, want %v as f32", norm.Item(), norm.DType(), c.norm)
		}
	}
}

// TestAdagradDecayInF64 checks that Adagrad's decayed learning rate
// lr/(1+(t-1)·decay) is computed in f64 as PyTorch does in Python floats
// (in f32 it was off by 1e-8 relative for f64 parameters). PyTorch 1.13:
//
//	lr = float(numpy.float32(0.1))  # the learning rate is an f32 tensor here
//	p = torch.zeros(4, dtype=torch.float64, requires_grad=True); o = torch.optim.Adagrad([p], lr=lr, lr_decay=0.3)
//	for _ in range(3): p.grad = torch.tensor([0.5, -1., 2., 1e-3], dtype=torch.float64); o.step()
func TestAdagradDecayInF64(t *testing.T) {
	p := lazy.Zeros(lazy.F64, 4)
	o := NewAdagrad([]*lazy.Tensor{p}, 0.1, LRDecay(0.3))
	for k := 0; k < 3; k++ {
		o.Step([]*lazy.Tensor{lazy.FromSlice([]float64{0.5, -1, 2, 1e-3}, 4)})
	}
	want := []float64{-0.19047722395286654, 0.19047722396879602, -0.19047722397676076, -0.1904772080552395}
	within(t, "parameters", p.Float64s(), want, 1e-16)
}
