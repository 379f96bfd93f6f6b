package spmd

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

type linModel struct{ W, B *lazy.Tensor }

func linStep(m *linModel, x, y *lazy.Tensor) *lazy.Tensor {
	d := x.MatMul(m.W).Add(m.B).Sub(y)
	loss := d.Mul(d).Mean()
	g := lazy.Grad(loss, m.W, m.B)
	m.W.Assign(m.W.Sub(g[0].MulScalar(0.1)))
	m.B.Assign(m.B.Sub(g[1].MulScalar(0.1)))
	return loss
}

func TestJitShardedStepTracesOnceAndRetracesOnReshard(t *testing.T) {
	dev := spmdDevice(4)
	plain := lazy.DevicesOf(dev.Client())[0]
	mesh := MustMesh(ids(4), []int{4}, "data")
	newModel := func(d *lazy.Device) *linModel {
		return &linModel{W: lazy.FromLiteralOn(d, randLit(10, 8, 3)), B: lazy.FromLiteralOn(d, randLit(11, 3))}
	}
	ms, mp := newModel(dev), newModel(plain)
	step := jit.Compile(linStep)
	ref := jit.Compile(linStep)
	for i := 0; i < 4; i++ {
		xl, yl := randLit(20+i, 10, 8), randLit(40+i, 10, 3)
		x := lazy.FromLiteralOn(dev, xl)
		y := lazy.FromLiteralOn(dev, yl)
		MustMark(x, mesh, "data", nil)
		MustMark(y, mesh, "data", nil)
		got := step(ms, x, y).Item()
		want := ref(mp, lazy.FromLiteralOn(plain, xl), lazy.FromLiteralOn(plain, yl)).Item()
		if d := got - want; d > 1e-5 || d < -1e-5 {
			t.Fatalf("step %d: loss %v, unsharded %v", i, got, want)
		}
	}
	if got, want := ms.W.MustLiteral().F32(), mp.W.MustLiteral().F32(); !closeSlices(got, want, 1e-5) {
		t.Fatalf("weights after 4 steps %v, unsharded %v", got, want)
	}
	if s := jit.StatsOf(step); s.Traces != 1 || s.Replays != 4 {
		t.Fatalf("stats %s, want one trace (every call replays the program)", s)
	}
	// Another sharding of x: one more trace, named by Explain.
	for i := 0; i < 2; i++ {
		x := lazy.FromLiteralOn(dev, randLit(60+i, 10, 8))
		y := lazy.FromLiteralOn(dev, randLit(70+i, 10, 3))
		MustMark(x, mesh, nil, "data")
		MustMark(y, mesh, "data", nil)
		step(ms, x, y).Item()
	}
	if s := jit.StatsOf(step); s.Traces != 2 || s.Replays != 6 {
		t.Fatalf("stats %s, want two traces", s)
	}
	ex := jit.Explain(step)
	if !strings.Contains(ex, "arg 1: sharding {devices=[4,1]0,1,2,3} -> {devices=[1,4]0,1,2,3}") {
		t.Errorf("Explain does not name the sharding change:\n%s", ex)
	}
}

// An op the partitioner cannot run on its operand's layout (flipping the
// cut dimension) is resharded: counted per op and listed by Explain.
func TestJitExplainsReshards(t *testing.T) {
	dev := spmdDevice(4)
	mesh := MustMesh(ids(4), []int{4}, "data")
	f := jit.Compile(func(x *lazy.Tensor) *lazy.Tensor { return x.Flip(0).MulScalar(2) })
	before := lazy.Counter(lazy.MetricSPMDReshardPrefix + "stablehlo.reverse")
	x := MustMark(lazy.FromLiteralOn(dev, randLit(1, 8, 3)), mesh, "data", nil)
	got := f(x).MustLiteral().F32()
	want := lazy.FromLiteral(randLit(1, 8, 3)).Flip(0).MulScalar(2).MustLiteral().F32()
	if !closeSlices(got, want, 0) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if d := lazy.Counter(lazy.MetricSPMDReshardPrefix+"stablehlo.reverse") - before; d != 1 {
		t.Errorf("SPMDReshard.stablehlo.reverse grew by %d, want 1", d)
	}
	ex := jit.Explain(f)
	if !strings.Contains(ex, "spmd reshard") || !strings.Contains(ex, "stablehlo.reverse") || !strings.Contains(ex, "all-gather") {
		t.Errorf("Explain does not list the reshard:\n%s", ex)
	}
	t.Log(ex)
}
