package lazy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestOpsMaskedScatter(t *testing.T) {
	v := FromSlice([]float32{1, 2, 3})
	m := FromSlice([]bool{false, true, true, false, true})
	got := apply1(opMaskedScatter, nil, v, m).Float32s()
	if fmt.Sprint(got) != "[0 1 2 0 3]" {
		t.Errorf("got %v", got)
	}
	if err := Try(func() { apply1(opMaskedScatter, nil, FromSlice([]float32{1}), m).Float32s() }); err == nil {
		t.Error("count mismatch accepted")
	}
}

// Gradients flow through host ops that have a rule (MaskedSelect), also
// after the loss was read (a cut), and Grad through one without a rule is
// an error, not zeros.
func TestGradThroughHostOps(t *testing.T) {
	x := FromSlice([]float32{1, 2, -3})
	s := x.MaskedSelect(x.GtScalar(0))
	loss := s.Mul(s).Sum()
	if l := loss.Item(); l != 5 {
		t.Fatalf("loss %v", l)
	}
	if g := Grad(loss, x)[0].Float32s(); fmt.Sprint(g) != "[2 4 0]" {
		t.Errorf("grad through MaskedSelect after a cut = %v, want [2 4 0]", g)
	}
	id := func(in []*hlo.Literal) ([]*hlo.Literal, error) { return []*hlo.Literal{in[0].Clone()}, nil }
	h := HostFunc("test.id", id, x.Shape())(x)[0]
	err := Try(func() { Grad(h.Sum(), x) })
	if err == nil || !strings.Contains(err.Error(), "HostFunc is not differentiable") {
		t.Errorf("Grad through HostFunc: %v", err)
	}
}

// Grad works after the loss was computed by a cut (torch's loss.item()
// then backward()).
func TestGradAfterCut(t *testing.T) {
	x := FromSlice([]float32{1, 2, 3})
	loss := x.Mul(x).Sum()
	_ = loss.Item()
	if g := Grad(loss, x)[0].Float32s(); fmt.Sprint(g) != "[2 4 6]" {
		t.Errorf("grad after a cut = %v", g)
	}
}

// SetData replaces a tensor's contents and the history they came from:
// Grad no longer follows the computation of the data it held before.
func TestSetDataDropsHistory(t *testing.T) {
	a := FromSlice([]float32{1, 2, 3})
	x := a.MulScalar(2)
	if err := Sync(x); err != nil {
		t.Fatal(err)
	}
	if g := Grad(x.Sum(), a)[0].Float32s(); g[0] != 2 {
		t.Fatalf("before SetData: %v, want [2 2 2]", g)
	}
	b := FromSlice([]float32{5, 6, 7})
	if err := Sync(b); err != nil {
		t.Fatal(err)
	}
	x.SetData(b.State().data.buf)
	if g := Grad(x.Sum(), a)[0].Float32s(); g[0] != 0 {
		t.Errorf("after SetData: %v, want [0 0 0] (x no longer depends on a)", g)
	}
}
