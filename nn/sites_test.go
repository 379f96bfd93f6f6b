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
		var y *lazy.Tensor
		if err := lazy.Try(func() { y = f() }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err := lazy.Try(func() { y.Float64s() })
		var le *lazy.Error
		if !errors.As(err, &le) || !strings.Contains(le.Error(), "out of range") {
			t.Fatalf("%s: %v, want an index out of range", name, err)
		}
		if strings.Contains(le.Error(), "nn/loss.go") || strings.Contains(le.Error(), "nn/linear.go") || strings.Count(le.Error(), "nn/sites_test.go:") != 2 {
			t.Errorf("%s: %v, want the site in sites_test.go", name, err)
		}
	}
}
