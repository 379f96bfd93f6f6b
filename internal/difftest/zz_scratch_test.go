package difftest

import (
	"fmt"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f()
	return nil
}

func TestZZ(t *testing.T) {
	// 2 jit-eager
	{
		f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return lazy.RandN(lazy.F32, a.Dims()...) })
		lazy.SetEager(true)
		err := try(func() { f(lazy.FromSlice([]float32{1, 2})) })
		lazy.SetEager(false)
		t.Logf("2 jit-eager RandN: %v", err)
		g := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { return a.AddScalar(1) })
		lazy.SetEager(true)
		err = try(func() { g(lazy.FromSlice([]float32{1, 2})) })
		lazy.SetEager(false)
		t.Logf("2b jit-eager AddScalar: %v", err)
	}
	// 3 capture assigned an argument
	{
		c := lazy.FromSlice([]float32{1})
		f := jit.Compile(func(a *lazy.Tensor) { c.Assign(a) })
		t.Logf("3 c.Assign(a): %v", try(func() { f(lazy.FromSlice([]float32{2})) }))
	}
	// 4 ManualSeed inside
	{
		f := jit.Compile(func(a *lazy.Tensor) *lazy.Tensor { lazy.ManualSeed(7); return a.AddScalar(1) })
		t.Logf("4 ManualSeed inside: %v", try(func() { f(lazy.FromSlice([]float32{2})) }))
		g := jit.Compile(func(n int) { lazy.ManualSeed(7) })
		t.Logf("4b ManualSeed only: %v", try(func() { g(1) }))
	}
	// 5 capture passed as argument
	{
		c := lazy.FromSlice([]float32{30})
		f := jit.Compile(func(a *lazy.Tensor, n int) *lazy.Tensor { return c.Rsqrt() })
		r0 := f(c, 1)
		x := lazy.FromSlice([]float32{4})
		r1 := f(x, 1)
		t.Logf("5 capture as arg: %v then %v (want both %v)", r0.Float32s(), r1.Float32s(), c.Rsqrt().Float32s())
		g := jit.Compile(func(a *lazy.Tensor, n int) *lazy.Tensor { return c })
		g(c, 1)
		t.Logf("5b returns c: call 2 returns c? %v, returns the argument? %v", g(x, 1) == c, g(x, 1) == x)
	}
	// 6 constant returned
	{
		f := jit.Compile(func(n int) *lazy.Tensor { return lazy.FromSlice([]float32{1, 2}) })
		r0, r1 := f(1), f(1)
		t.Logf("6 FromSlice returned: same object on two calls: %v", r0 == r1)
		r0.Assign(lazy.FromSlice([]float32{9, 9}))
		t.Logf("6 after r0.Assign(9s), third call returns %v (want [1 2])", f(1).Float32s())
	}
	// 7 local assigned, returned
	{
		c := lazy.FromSlice([]float32{1, 2})
		f := jit.Compile(func(n int) *lazy.Tensor { x := c.MulScalar(2); x.Assign(x.AddScalar(1)); return x })
		r0, r1 := f(1), f(1)
		t.Logf("7 assigned local returned: same object: %v; values %v %v", r0 == r1, r0.Float32s(), r1.Float32s())
	}
	// 8 constant assigned
	{
		f := jit.Compile(func(n int) *lazy.Tensor {
			t0 := lazy.FromSlice([]float32{1.5, 2})
			t1 := t0.Square()
			t0.Assign(t1)
			return t1
		})
		t.Logf("8 constant assigned: %v %v %v (want [2.25 4] each)", f(1).Float32s(), f(1).Float32s(), f(1).Float32s())
	}
	// 9 failing host func unused
	{
		fail := func(in []*hlo.Literal) ([]*hlo.Literal, error) { return nil, fmt.Errorf("boom") }
		plain := func(a *lazy.Tensor) *lazy.Tensor {
			lazy.HostFunc("zz.fail", fail, a.Shape())(a)
			return a.AddScalar(1)
		}
		f := jit.Compile(plain)
		t.Logf("9 unused failing HostFunc: plain %v; jit %v", try(func() { plain(lazy.FromSlice([]float32{1})) }), try(func() { f(lazy.FromSlice([]float32{1})) }))
	}
	// 10 local assigned an argument's value
	{
		plain := func(a0, a1 *lazy.Tensor) *lazy.Tensor {
			t2 := a0.Sub(a1)
			t2.Assign(a0)
			return t2.Atan2(a1)
		}
		f := jit.Compile(plain)
		x := lazy.FromSlice([]float32{-2.125, -0.375}, 1, 1, 2)
		f(x, lazy.FromLiteral(hlo.ScalarLiteral(lazy.F32, 2.25)))
		y := lazy.FromLiteral(hlo.ScalarLiteral(lazy.F32, 2))
		t.Logf("10 t.Assign(a0): jit %v, plain %v", f(x, y).Float32s(), plain(x, y).Float32s())
	}
	// 12 aliasing + hash collision
	{
		plain := func(a0, a1, a2 *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor) { return a1.Gt(a0), a1.Add(a2) }
		f := jit.Compile(plain)
		x, y := lazy.FromSlice([]float32{1}), lazy.FromSlice([]float32{2})
		f(x, y, y)
		u, v := lazy.FromSlice([]float32{10}), lazy.FromSlice([]float32{20})
		_, j := f(u, v, u)
		_, p := plain(u, v, u)
		t.Logf("12 f(u, v, u): jit %v, plain %v", j.Float32s(), p.Float32s())
	}
}
