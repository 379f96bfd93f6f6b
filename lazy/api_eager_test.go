package lazy

import (
	"fmt"
	"math"
	"testing"
)

// Eager mode (a cut after every op) must give the numbers of lazy mode:
// the same ops run, only in separate graphs. Each program returns its
// outputs (gradients included); f32 results agree to 1e-5 relative (each
// op is rounded once in f32 either way; fusion across graph boundaries may
// only reorder a few roundings).

type eagerProgram struct {
	name string
	run  func() []*Tensor
}

func eagerPrograms() []eagerProgram {
	r := newRand(60)
	x := randND(r, -1, 1, 8, 6)
	w1 := randND(r, -0.5, 0.5, 6, 5)
	b1 := randND(r, -0.1, 0.1, 5)
	w2 := randND(r, -0.5, 0.5, 5, 4)
	labels := randInts(r, 0, 4, 8)
	img := randND(r, -1, 1, 2, 3, 6, 6)
	kern := randND(r, -0.5, 0.5, 4, 3, 3, 3)
	ln := randND(r, 0.5, 1.5, 3, 3)
	q := randND(r, -1, 1, 1, 2, 4, 3)
	k := randND(r, -1, 1, 1, 2, 5, 3)
	v := randND(r, -1, 1, 1, 2, 5, 3)
	s := randDistinct(r, -2, 2, 3, 6)
	return []eagerProgram{
		{"mlp", func() []*Tensor {
			xs, p1, c1, p2 := mkT(x, F32), mkT(w1, F32), mkT(b1, F32), mkT(w2, F32)
			h := xs.MatMul(p1).Add(c1).ReLU()
			loss := CrossEntropy(h.MatMul(p2), mkT(labels, I32))
			return append([]*Tensor{loss}, Grad(loss, p1, c1, p2)...)
		}},
		{"convnet", func() []*Tensor {
			xs, ks, g := mkT(img, F32), mkT(kern, F32), mkT(ln, F32)
			y := Conv2d(xs, ks, nil, Conv2dOpts{Padding: [2]int64{1, 1}, Stride: [2]int64{1, 1}})
			y = y.MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{})
			y = LayerNorm(y, 2, g, nil, 1e-5).GELU()
			out := y.Softmax(1).Mul(y).Mean()
			return append([]*Tensor{out}, Grad(out, xs, ks, g)...)
		}},
		{"attention", func() []*Tensor {
			qs, ks, vs := mkT(q, F32), mkT(k, F32), mkT(v, F32)
			a := Einsum("bhqd,bhkd->bhqk", qs, ks).DivScalar(math.Sqrt(3)).Softmax(-1)
			o := Einsum("bhqk,bhkd->bhqd", a, vs)
			l := o.Square().Sum()
			return append([]*Tensor{o}, Grad(l, qs, ks, vs)...)
		}},
		{"sort-scan-gather", func() []*Tensor {
			xs := mkT(s, F32)
			sv, si := xs.Sort(1, true)
			c := sv.Cumsum(1).Exp().Log1p()
			g := c.TakeAlong(1, si.Narrow(1, 0, 3)).Pad(1, 1).Flip(0)
			l := g.Sum().Add(xs.Prod(1).Sum())
			return []*Tensor{g, si, Grad(l, xs)[0]}
		}},
		{"random", func() []*Tensor {
			ManualSeed(11)
			a := RandN(F32, 4, 5)
			d := Ones(F32, 4, 5).Dropout(0.3, true)
			return []*Tensor{a, d, RandUniform(F32, -1, 2, 3).Mul(a.Narrow(1, 0, 3).Sum(0))}
		}},
	}
}

func TestEagerMatchesLazy(t *testing.T) {
	if Eager() {
		t.Skip("XLAJIT_EAGER is set")
	}
	var want [][]nd
	for _, p := range eagerPrograms() {
		outs := p.run()
		if err := Sync(outs...); err != nil {
			t.Fatal(err)
		}
		vals := make([]nd, len(outs))
		for i, o := range outs {
			vals[i] = valuesOf(o)
		}
		want = append(want, vals)
	}
	SetEager(true)
	defer SetEager(false)
	before := Counter(MetricGraphCutPrefix + "Eager")
	for pi, p := range eagerPrograms() {
		outs := p.run()
		for i, o := range outs {
			if o.IsPending() {
				t.Errorf("%s: output %d is pending in eager mode", p.name, i)
			}
			expectND(t, fmt.Sprintf("eager %s output %d", p.name, i), valuesOf(o), want[pi][i], tolerance{rel: 1e-5, abs: 1e-6})
		}
	}
	if Counter(MetricGraphCutPrefix+"Eager") == before {
		t.Errorf("eager mode made no eager cuts")
	}
}
