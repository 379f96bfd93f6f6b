package spmd

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

func randLit(seed int, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(hlo.F32, dims...)
	x := uint32(seed*7919 + 17)
	for i := range l.F32() {
		x = x*1664525 + 1013904223
		l.F32()[i] = float32(int(x>>24)%17-8) / 8
	}
	return l
}

func closeSlices(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol*(1+math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

func TestMLPOnSPMDDevice(t *testing.T) {
	dev := spmdDevice(4)
	mesh := MustMesh(ids(4), []int{4}, "model")
	xl, w1l, w2l := randLit(1, 6, 8), randLit(2, 8, 12), randLit(3, 12, 5)
	forward := func(x, w1, w2 *lazy.Tensor) *lazy.Tensor {
		return x.MatMul(w1).Relu().MatMul(w2)
	}
	want := forward(lazy.FromLiteral(xl), lazy.FromLiteral(w1l), lazy.FromLiteral(w2l)).MustLiteral().F32()

	x := lazy.FromLiteralOn(dev, xl)
	w1 := lazy.FromLiteralOn(dev, w1l)
	w2 := lazy.FromLiteralOn(dev, w2l)
	MustMark(w1, mesh, nil, "model")
	MustMark(w2, mesh, "model", nil)
	y := forward(x, w1, w2)
	got := y.MustLiteral().F32()
	if !closeSlices(got, want, 1e-5) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if s := y.Sharding(); !s.IsReplicated() {
		t.Errorf("output sharding %s", s)
	}
}
