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
			var out *lazy.Tensor
			switch c.Kind {
			case "ce":
				out = CrossEntropy(x, y, opts...)
			case "nll":
				out = NLL(x, y, opts...)
			case "bce":
				out = BCEWithLogits(x, y, opts...)
			case "mse":
				out = MSE(x, y, opts...)
			case "l1":
				out = L1(x, y, opts...)
			case "huber":
				out = Huber(x, y, opts...)
			case "smoothl1":
				out = SmoothL1(x, y, opts...)
			case "kl":
				out = KLDiv(x, y, opts...)
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
			closeTo(t, "loss", out, lits[p+"out"], 1e-10, 1e-12)
			g := lazy.GradWith(out, lazy.FromLiteral(lits[p+"seed"]), x)[0]
			closeTo(t, "grad", g, lits[p+"grad"], 1e-9, 1e-12)
		})
	}
}
