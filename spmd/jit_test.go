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
