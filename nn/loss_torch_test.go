package nn

import (
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

func TestLossesMatchPyTorch(t *testing.T) {
	lits, cases, _ := readRef(t, "testdata/torch_losses.safetensors")
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			p := c.Name + "."
			a := c.Args
			x := lazy.FromLiteral(lits[p+"x"])
			y := lazy.FromLiteral(lits[p+"y"])
			var opts []LossOption
			switch a["reduction"] {
			case "sum":
				opts = append(opts, Reduce(Sum))
			case "none":
				opts = append(opts, Reduce(None))
			case "batchmean":
				opts = append(opts, Reduce(BatchMean))
			}
			if flag(a, "weight") && lits[p+"w"] != nil {
				opts = append(opts, ClassWeights(lazy.FromLiteral(lits[p+"w"])))
			}
			if _, ok := a["ignore"]; ok {
				opts = append(opts, IgnoreIndex(int64(num(a, "ignore"))))
			}
			if s := num(a, "smoothing"); s != 0 {
				opts = append(opts, LabelSmoothing(s))
			}
			if d := num(a, "delta"); d != 0 {
				opts = append(opts, Delta(d))
			}
			if flag(a, "log_target") {
				opts = append(opts, LogTarget())
			}
			if flag(a, "pos_weight") {
				opts = append(opts, PosWeight(lazy.FromLiteral(lits[p+"pw"])), ClassWeights(lazy.FromLiteral(lits[p+"ew"])))
			}
			out := lossByKind(t, c.Kind, x, y, opts...)
			closeTo(t, "loss", out, lits[p+"out"], 1e-10, 1e-12)
			g := lazy.GradWith(out, lazy.FromLiteral(lits[p+"seed"]), x)[0]
			closeTo(t, "grad", g, lits[p+"grad"], 1e-9, 1e-12)
		})
	}
}

// lossByKind computes the loss the reference files name kind.
func lossByKind(t *testing.T, kind string, x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor {
	t.Helper()
	losses := map[string]func(x, y *lazy.Tensor, opts ...LossOption) *lazy.Tensor{
		"ce": CrossEntropy, "nll": NLL, "bce": BCEWithLogits, "mse": MSE, "l1": L1,
		"huber": Huber, "smoothl1": SmoothL1, "kl": KLDiv,
	}
	f := losses[kind]
	if f == nil {
		t.Fatalf("unknown loss kind %q", kind)
	}
	return f(x, y, opts...)
}
