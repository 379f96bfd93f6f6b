package jit_test

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// A function that takes a gradient sees its arguments as leaves in its
// graph; the plain function differentiates through the IR that computed
// an argument before the call, as PyTorch does. Where that history reaches
// a tensor the gradient is taken with respect to (another argument, a
// capture), the compiled function runs the plain one for the call, so both
// agree; where it does not (it reaches only tensors the graph reads, or
// nothing), calls replay.
func TestGradThroughArgumentHistory(t *testing.T) {
	w := lazy.FromSlice([]float32{0.5, -1})
	cases := []struct {
		name string
		fn   func(a, x *lazy.Tensor) *lazy.Tensor
		// args makes a call's arguments; reach says whether a's history
		// reaches a tensor the graph reads.
		args  func(sync bool) (a, x *lazy.Tensor)
		reach bool
	}{
		{"argument from argument", func(a, x *lazy.Tensor) *lazy.Tensor { return lazy.Grad(a.Mul(x).Sum(), x)[0] },
			func(bool) (*lazy.Tensor, *lazy.Tensor) {
				x := lazy.FromSlice([]float32{3, 2})
				return x.MulScalar(2), x
			}, true},
		{"argument from capture", func(a, x *lazy.Tensor) *lazy.Tensor { return lazy.Grad(a.Mul(w).Sum(), w)[0].Add(x) },
			func(bool) (*lazy.Tensor, *lazy.Tensor) {
				return w.Square(), lazy.FromSlice([]float32{1, 1})
			}, true},
		{"argument from unrelated data", func(a, x *lazy.Tensor) *lazy.Tensor { return lazy.Grad(a.Mul(x).Sum(), x)[0] },
			func(bool) (*lazy.Tensor, *lazy.Tensor) {
				return lazy.FromSlice([]float32{4, 5}).MulScalar(2), lazy.FromSlice([]float32{3, 2})
			}, false},
		{"argument from a capture not differentiated", func(a, x *lazy.Tensor) *lazy.Tensor { return lazy.Grad(a.Mul(x).Mul(w).Sum(), x)[0] },
			func(bool) (*lazy.Tensor, *lazy.Tensor) {
				return w.Square(), lazy.FromSlice([]float32{3, 2})
			}, false},
		{"detached argument", func(a, x *lazy.Tensor) *lazy.Tensor { return lazy.Grad(a.Mul(x).Sum(), x)[0] },
			func(bool) (*lazy.Tensor, *lazy.Tensor) {
				x := lazy.FromSlice([]float32{3, 2})
				return x.MulScalar(2).Detach(), x
			}, false},
	}
	for _, c := range cases {
		for _, synced := range []bool{false, true} {
			name := fmt.Sprintf("%s/synced=%v", c.name, synced)
			f := jit.Compile(c.fn)
			for call := range 3 {
				a, x := c.args(synced)
				pa, px := c.args(synced)
				if synced {
					lazy.Sync(a, x, pa, px)
				}
				got, want := fmt.Sprint(f(a, x).Float32s()), fmt.Sprint(c.fn(pa, px).Float32s())
				if got != want {
					t.Errorf("%s call %d: compiled %s, plain %s", name, call, got, want)
				}
			}
			s := jit.StatsOf(f)
			if s.Traces != 1 {
				t.Errorf("%s: %s, want one trace", name, s)
			}
			if replays := int64(3); c.reach {
				if s.Replays != 0 {
					t.Errorf("%s: %s, want every call to run the function", name, s)
				}
			} else if s.Replays != replays {
				t.Errorf("%s: %s, want every call replayed", name, s)
			}
		}
	}
}

// Without a gradient in the graph, an argument's history does not matter:
// a pending argument computed from a capture replays.
func TestArgumentHistoryWithoutGradReplays(t *testing.T) {
	w := lazy.FromSlice([]float32{0.5, -1})
	f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return a.Mul(w) })
	for range 3 {
		f(w.Square()).Float32s()
	}
	if s := jit.StatsOf(f); s.Replays != 3 {
		t.Errorf("%s, want every call replayed", s)
	}
}
