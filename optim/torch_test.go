package optim

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// Reference values from scripts/torch_reference.py (PyTorch 1.13): two f32
// parameters updated three times from recorded gradients per optimizer
// configuration, learning-rate schedules over 20-30 updates, and global-norm
// clipping.

type refCase struct {
	Name string         `json:"name"`
	Kind string         `json:"kind"`
	Args map[string]any `json:"args"`
}

func readRef(t *testing.T) (map[string]*lazy.Literal, map[string]string) {
	t.Helper()
	lits, meta, err := nn.ReadFile("testdata/torch_optim.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	return lits, meta
}

func num(a map[string]any, k string) (float64, bool) {
	v, ok := a[k]
	if !ok {
		return 0, false
	}
	f, ok := v.(float64)
	return f, ok
}

func closeTo(t *testing.T, what string, got []float64, want *lazy.Literal, rtol, atol float64) {
	t.Helper()
	if len(got) != want.NumElements() {
		t.Fatalf("%s: %d elements, want %d", what, len(got), want.NumElements())
	}
	for i, g := range got {
		w := want.Float(i)
		if d := math.Abs(g - w); !(d <= atol+rtol*math.Abs(w)) {
			t.Errorf("%s: element %d is %.9g, want %.9g (|diff| %.3g)", what, i, g, w, d)
			return
		}
	}
}

// build makes the optimizer of a case, with extra options after the case's.
func build(t *testing.T, c refCase, params []*lazy.Tensor, extra ...Option) Optimizer {
	a := c.Args
	lr, _ := num(a, "lr")
	var opts []Option
	if v, ok := num(a, "momentum"); ok {
		opts = append(opts, Momentum(v))
	}
	if v, ok := num(a, "dampening"); ok {
		opts = append(opts, Dampening(v))
	}
	if v, ok := a["nesterov"].(bool); ok && v {
		opts = append(opts, Nesterov())
	}
	if v, ok := num(a, "weight_decay"); ok {
		opts = append(opts, WeightDecay(v))
	}
	if b, ok := a["betas"].([]any); ok {
		opts = append(opts, Betas(b[0].(float64), b[1].(float64)))
	}
	if v, ok := num(a, "eps"); ok {
		opts = append(opts, Eps(v))
	}
	if v, ok := a["amsgrad"].(bool); ok && v {
		opts = append(opts, AMSGrad())
	}
	if v, ok := num(a, "alpha"); ok {
		opts = append(opts, Alpha(v))
	}
	if v, ok := a["centered"].(bool); ok && v {
		opts = append(opts, Centered())
	}
	if v, ok := num(a, "lr_decay"); ok {
		opts = append(opts, LRDecay(v))
	}
	if v, ok := num(a, "initial_accumulator_value"); ok {
		opts = append(opts, InitialAccumulator(v))
	}
	opts = append(opts, extra...)
	switch c.Kind {
	case "sgd":
		return NewSGD(params, lr, opts...)
	case "adam":
		return NewAdam(params, lr, opts...)
	case "adamw":
		return NewAdamW(params, lr, opts...)
	case "rmsprop":
		return NewRMSProp(params, lr, opts...)
	case "adagrad":
		return NewAdagrad(params, lr, opts...)
	}
	t.Fatalf("unknown optimizer %q", c.Kind)
	return nil
}

func TestOptimizersMatchPyTorch(t *testing.T) {
	lits, meta := readRef(t)
	var cases []refCase
	if err := json.Unmarshal([]byte(meta["cases"]), &cases); err != nil || len(cases) == 0 {
		t.Fatalf("cases: %v", err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			params := []*lazy.Tensor{lazy.FromLiteral(lits["p0.0"]), lazy.FromLiteral(lits["p0.1"])}
			o := build(t, c, params)
			for s := 0; s < 3; s++ {
				grads := []*lazy.Tensor{lazy.FromLiteral(lits[fmt.Sprintf("grad.%d.0", s)]), lazy.FromLiteral(lits[fmt.Sprintf("grad.%d.1", s)])}
				o.Step(grads)
				for i, p := range params {
					closeTo(t, fmt.Sprintf("step %d param %d", s, i), p.Float64s(), lits[fmt.Sprintf("%s.step%d.%d", c.Name, s, i)], 2e-6, 2e-7)
				}
			}
			if n := o.Shared().StepCount(); n != 3 {
				t.Errorf("step count %d, want 3", n)
			}
		})
	}
}

func TestSchedulesMatchPyTorch(t *testing.T) {
	lits, meta := readRef(t)
	var cases []struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}
	if err := json.Unmarshal([]byte(meta["schedules"]), &cases); err != nil || len(cases) == 0 {
		t.Fatalf("schedules: %v", err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			a := c.Args
			f := func(k string) float64 { v, _ := num(a, k); return v }
			var s Schedule
			switch a["kind"] {
			case "step":
				s = StepDecay{Base: f("base"), Gamma: f("gamma"), Every: int64(f("every"))}
			case "exp":
				s = Exponential{Base: f("base"), Gamma: f("gamma")}
			case "cosine":
				s = Cosine{Base: f("base"), Min: f("min"), Warmup: int64(f("warmup")), Total: int64(f("total"))}
			case "onecycle":
				s = OneCycle{Max: f("max"), Total: int64(f("total")), Pct: f("pct"), Div: f("div"), FinalDiv: f("final_div")}
			default:
				t.Fatalf("unknown schedule %v", a["kind"])
			}
			want := lits["sched."+c.Name]
			got := make([]float64, want.NumElements())
			for k := range got {
				got[k] = ValueAt(s, int64(k))
			}
			closeTo(t, "lr", got, want, 2e-6, 1e-9)
		})
	}
}

func TestClipGradNormMatchesPyTorch(t *testing.T) {
	lits, _ := readRef(t)
	g := []*lazy.Tensor{lazy.FromLiteral(lits["clip.in.0"]), nil, lazy.FromLiteral(lits["clip.in.1"])}
	out, norm := ClipGradNorm(g, 2)
	closeTo(t, "norm", norm.Float64s(), lits["clip.norm"], 1e-6, 0)
	closeTo(t, "grad 0", out[0].Float64s(), lits["clip.out.0"], 1e-6, 1e-7)
	closeTo(t, "grad 1", out[2].Float64s(), lits["clip.out.1"], 1e-6, 1e-7)
	if out[1] != nil {
		t.Error("a nil gradient came back non-nil")
	}
}
