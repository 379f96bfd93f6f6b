package nn_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/nn"
)

// TestInnerErrorsNameTheCaller: an error that a lazy op inside a layer or
// loss finds (a run-time check of a label or an embedding index, read
// later) names the user's line that called nn, not a line of nn's own
// files (it named nn/loss.go and nn/linear.go).
func TestInnerErrorsNameTheCaller(t *testing.T) {
	lg := lazy.FromSlice([]float32{1, 2, 3, 1}, 2, 2)
	cases := map[string]func() *lazy.Tensor{
		"label":     func() *lazy.Tensor { return nn.CrossEntropy(lg, lazy.FromSlice([]int64{5, 0}, 2)) },
		"nll label": func() *lazy.Tensor { return nn.NLL(lg, lazy.FromSlice([]int64{0, -1}, 2)) },
		"embedding": func() *lazy.Tensor { return nn.NewEmbedding(3, 2).Forward(lazy.FromSlice([]int64{5, 0}, 2)) },
	}
	for name, f := range cases {
		// Lazy mode fails the read, naming the call's line too; eager mode
		// fails the call.
		err := lazy.Try(func() { f().Float64s() })
		var le *lazy.Error
		if !errors.As(err, &le) || !strings.Contains(le.Error(), "out of range") {
			t.Fatalf("%s: %v, want an index out of range", name, err)
		}
		if strings.Contains(le.Error(), "nn/loss.go") || strings.Contains(le.Error(), "nn/linear.go") || !strings.Contains(le.Error(), "nn/sites_test.go:") {
			t.Errorf("%s: %v, want the site in sites_test.go", name, err)
		}
	}
}

// TestLossInputsCheckedUpFront: losses refuse integer inputs (PyTorch has
// no integer kernels for them: BCEWithLogits and KLDiv computed a value,
// MSE failed in Mean at loss.go) and BCEWithLogits weights that do not
// broadcast to the input (the error named Mul at loss.go), with an error
// naming the loss and the caller's line.
func TestLossInputsCheckedUpFront(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2, 3, 1}, 2, 2)
	xi := x.Cast(lazy.I32)
	for name, c := range map[string]struct {
		f    func()
		want string
	}{
		"MSE":         {func() { nn.MSE(xi, xi) }, "nn.MSE(i32[2,2], i32[2,2]): input and target must be floating point"},
		"L1":          {func() { nn.L1(xi, xi) }, "nn.L1(i32[2,2], i32[2,2]): input and target must be floating point"},
		"Huber":       {func() { nn.Huber(xi, xi) }, "nn.Huber(i32[2,2], i32[2,2]): input and target must be floating point"},
		"SmoothL1":    {func() { nn.SmoothL1(xi, xi) }, "nn.SmoothL1(i32[2,2], i32[2,2]): input and target must be floating point"},
		"KLDiv":       {func() { nn.KLDiv(xi, xi) }, "nn.KLDiv(i32[2,2], i32[2,2]): input and target must be floating point"},
		"BCE":         {func() { nn.BCEWithLogits(xi, xi) }, "nn.BCEWithLogits(i32[2,2], i32[2,2]): input and target must be floating point"},
		"PosWeight":   {func() { nn.BCEWithLogits(x, x, nn.PosWeight(lazy.Ones(lazy.F32, 3))) }, "nn.BCEWithLogits(f32[2,2], f32[3]): PosWeight must"},
		"ClassWeight": {func() { nn.BCEWithLogits(x, x, nn.ClassWeights(lazy.Ones(lazy.F32, 3, 1, 1))) }, "nn.BCEWithLogits(f32[2,2], f32[3,1,1]): ClassWeights must"},
		"IntWeight":   {func() { nn.BCEWithLogits(x, x, nn.ClassWeights(lazy.Ones(lazy.I32, 2))) }, "ClassWeights must be floating point"},
	} {
		err := lazy.Try(c.f)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "nn/sites_test.go:") {
			t.Errorf("%s: %v, want an error at sites_test.go containing %q", name, err, c.want)
		}
	}
	var l *lazy.Tensor
	err := lazy.Try(func() {
		l = nn.BCEWithLogits(x, x, nn.PosWeight(lazy.Ones(lazy.F32, 2)), nn.ClassWeights(lazy.Ones(lazy.F32, 2, 1)))
	})
	if err != nil || l.Rank() != 0 {
		t.Errorf("BCEWithLogits with broadcasting weights: %v", err)
	}
}
