package jit_test

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// tiedLayer is a layer that a model reaches twice (tied weights).
type tiedLayer struct{ W *lazy.Tensor }

type tiedModel struct{ Enc, Dec *tiedLayer }

// A place reached twice from the arguments (tied weights, one struct
// passed for two parameters, one slice's array twice) holds the trace's
// stand-in once: the function reads the argument, replays see new data,
// writes land in the caller's tensor, and the caller's struct holds its
// tensor again after the trace.
func TestTiedWeightsAreOneArgument(t *testing.T) {
	step := func(m *tiedModel, x *lazy.Tensor) *lazy.Tensor {
		y := x.Mul(m.Enc.W).Add(m.Dec.W)
		m.Dec.W.Assign(m.Dec.W.MulScalar(2))
		return y
	}
	run := func(f func(*tiedModel, *lazy.Tensor) *lazy.Tensor) (outs []string, w string, same bool) {
		l := &tiedLayer{W: lazy.FromSlice([]float32{1, 2})}
		w0 := l.W
		m := &tiedModel{Enc: l, Dec: l}
		for k := range 3 {
			x := lazy.FromSlice([]float32{float32(k), 1})
			outs = append(outs, fmt.Sprint(f(m, x).Float32s()))
		}
		return outs, fmt.Sprint(l.W.Float32s()), l.W == w0
	}
	wantOuts, wantW, _ := run(step)
	f := jit.Compile(step)
	gotOuts, gotW, same := run(f)
	if fmt.Sprint(gotOuts) != fmt.Sprint(wantOuts) || gotW != wantW {
		t.Errorf("compiled: results %v, weight %s; plain: %v, %s", gotOuts, gotW, wantOuts, wantW)
	}
	if !same {
		t.Error("the caller's layer holds another tensor after the calls (a stand-in was left in it)")
	}
	if st := jit.StatsOf(f); st.Compiles != 1 {
		t.Errorf("stats %s, want one compile", st)
	}

	twice := jit.Compile(func(a, b []*lazy.Tensor) { b[0].Assign(b[0].MulScalar(2).AddScalar(1)) })
	s := []*lazy.Tensor{lazy.FromSlice([]float32{1, 3})}
	x0 := s[0]
	twice(s, s)
	twice(s, s)
	if got := fmt.Sprint(x0.Float32s()); got != "[7 15]" || s[0] != x0 {
		t.Errorf("one slice passed twice: %s (same tensor: %v), want [7 15] in the caller's tensor", got, s[0] == x0)
	}
}

// holder is a struct holding a tensor, returned inside a result that holds
// no tensor of its own.
type holder struct{ W *lazy.Tensor }

type wrapped struct{ H *holder }

// A result holding the call's own argument, and no tensor beside it,
// holds that argument on every call: not a copy made during the trace.
func TestResultHoldingOnlyAnArgument(t *testing.T) {
	f := jit.Compile(func(h *holder) wrapped { return wrapped{H: h} })
	for k := range 2 {
		h := &holder{W: lazy.FromSlice([]float32{float32(k)})}
		w := h.W
		r := f(h)
		if r.H != h || h.W != w {
			t.Errorf("call %d: result holds %p (argument %p), argument's tensor replaced: %v", k, r.H, h, h.W != w)
		}
	}
}

// withHidden is a result struct with an unexported non-tensor field.
type withHidden struct {
	H *holder
	Y *lazy.Tensor
	k int
}

// Unexported non-tensor fields of a rebuilt result struct are the traced
// call's, as in a copied result, not zero.
func TestResultUnexportedFieldsKept(t *testing.T) {
	f := jit.Compile(func(h *holder) withHidden { return withHidden{H: h, Y: h.W.AddScalar(1), k: 7} })
	for call := range 2 {
		h := &holder{W: lazy.FromSlice([]float32{float32(call)})}
		r := f(h)
		if r.k != 7 || r.H != h || fmt.Sprint(r.Y.Float32s()) != fmt.Sprint([]float32{float32(call) + 1}) {
			t.Errorf("call %d: k = %d, H is the argument: %v, Y = %v", call, r.k, r.H == h, r.Y.Float32s())
		}
	}
}
