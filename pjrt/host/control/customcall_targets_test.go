package control_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func customCall(k *Blk, target string, operands []*hlo.Value, results []hlo.Type, attrs ...hlo.NamedAttr) *hlo.Op {
	return k.Op("stablehlo.custom_call", operands, results, append([]hlo.NamedAttr{Attr("call_target_name", hlo.StringAttr(target))}, attrs...)...)
}

// ProductOfElementaryHouseholderReflectors against the product of the
// reflectors written out as full m x m matrices, on random batched real
// and complex inputs.
func TestHouseholderProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 60; trial++ {
		dt := []hlo.DType{hlo.F32, hlo.F64, hlo.C64, hlo.C128}[trial%4]
		var batch []int64
		if trial%3 == 0 {
			batch = []int64{2}
		}
		n := 1 + r.IntN(4)
		m := n + r.IntN(3)
		k := r.IntN(n + 1)
		aDims := append(append([]int64{}, batch...), int64(m), int64(n))
		tDims := append(append([]int64{}, batch...), int64(k))
		a, taus := hlo.NewLiteral(dt, aDims...), hlo.NewLiteral(dt, tDims...)
		fill := func(l *hlo.Literal) {
			for i := range l.NumElements() {
				if dt.IsComplex() {
					l.SetComplex(i, complex(r.Float64()*2-1, r.Float64()*2-1))
				} else {
					l.SetFloat(i, r.Float64()*2-1)
				}
			}
		}
		fill(a)
		fill(taus)
		blkk := NewBlk(a.Type(), taus.Type())
		res := customCall(blkk, "ProductOfElementaryHouseholderReflectors", []*hlo.Value{blkk.Arg(0), blkk.Arg(1)}, []hlo.Type{a.Type()}).Results[0]
		blkk.Ret("func.return", res)
		out, _ := Run(t, Module(Fn("main", blkk)), a, taus)
		got := out[0].(*hlo.Literal)
		nb := 1
		if len(batch) > 0 {
			nb = int(batch[0])
		}
		tol := 1e-5
		if dt == hlo.F64 || dt == hlo.C128 {
			tol = 1e-12
		}
		for b := 0; b < nb; b++ {
			q := identity(m)
			for i := 0; i < k; i++ {
				v := make([]complex128, m)
				v[i] = 1
				for row := i + 1; row < m; row++ {
					v[row] = a.Complex(b*m*n + row*n + i)
				}
				h := identity(m)
				tau := taus.Complex(b*k + i)
				for x := 0; x < m; x++ {
					for y := 0; y < m; y++ {
						h[x][y] -= tau * v[x] * cmplx.Conj(v[y])
					}
				}
				q = matmul(q, h)
			}
			for row := 0; row < m; row++ {
				for col := 0; col < n; col++ {
					g := got.Complex(b*m*n + row*n + col)
					if cmplx.Abs(g-q[row][col]) > tol*(1+cmplx.Abs(q[row][col])) {
						t.Fatalf("%s a %s taus %s: Q[%d][%d] = %v, want %v", dt, a.ShapeString(), taus.ShapeString(), row, col, g, q[row][col])
					}
				}
			}
		}
	}
}

func identity(m int) [][]complex128 {
	q := make([][]complex128, m)
	for i := range q {
		q[i] = make([]complex128, m)
		q[i][i] = 1
	}
	return q
}

func matmul(a, b [][]complex128) [][]complex128 {
	m := len(a)
	c := make([][]complex128, m)
	for i := range c {
		c[i] = make([]complex128, m)
		for j := 0; j < m; j++ {
			for l := 0; l < m; l++ {
				c[i][j] += a[i][l] * b[l][j]
			}
		}
	}
	return c
}

func TestHouseholderProductErrors(t *testing.T) {
	for _, c := range []struct {
		a, taus, out *hlo.TensorType
		want         string
	}{
		{TT(hlo.F32, 2, 3), TT(hlo.F32, 1), TT(hlo.F32, 2, 3), "need m >= n >= k"},
		{TT(hlo.F32, 3, 2), TT(hlo.F32, 3), TT(hlo.F32, 3, 2), "need m >= n >= k"},
		{TT(hlo.I32, 3, 2), TT(hlo.I32, 1), TT(hlo.I32, 3, 2), "float or complex"},
		{TT(hlo.F32, 3, 2), TT(hlo.F64, 1), TT(hlo.F32, 3, 2), "share the element type"},
		{TT(hlo.F32, 2, 3, 2), TT(hlo.F32, 3, 1), TT(hlo.F32, 2, 3, 2), "batch dimensions"},
		{TT(hlo.F32, 3, 2), TT(hlo.F32, 1), TT(hlo.F32, 3, 3), "must have the type of a"},
	} {
		k := NewBlk(c.a, c.taus)
		customCall(k, "ProductOfElementaryHouseholderReflectors", []*hlo.Value{k.Arg(0), k.Arg(1)}, []hlo.Type{c.out})
		k.Ret("func.return")
		_, err := host.Compile(Module(Fn("main", k)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want an error containing %q", c.a, c.taus, err, c.want)
		}
	}
}

// shape_assertion passes when its predicate holds and fails with its
// message, placeholders filled from its inputs, when it does not.
func TestShapeAssertion(t *testing.T) {
	build := func() *hlo.Module {
		k := NewBlk(I1, TT(hlo.I32), I64)
		customCall(k, "shape_assertion", []*hlo.Value{k.Arg(0), k.Arg(1), k.Arg(2)}, nil,
			Attr("error_message", hlo.StringAttr("dimension {0} is {1}, want {1} {x}")), Attr("has_side_effect", hlo.BoolAttr(true)))
		k.Ret("func.return")
		return Module(Fn("main", k))
	}
	p, err := host.Compile(build())
	if err != nil {
		t.Fatal(err)
	}
	pred := func(b bool) *hlo.Literal {
		l := hlo.NewLiteral(hlo.Bool)
		if b {
			l.Data[0] = 1
		}
		return l
	}
	d := hlo.NewLiteral(hlo.I32)
	d.SetInt(0, 3)
	if _, err := p.Run(&kernel.Ctx{}, []kernel.Value{pred(true), d, Scalar(5)}); err != nil {
		t.Fatalf("holding assertion: %v", err)
	}
	_, err = p.Run(&kernel.Ctx{}, []kernel.Value{pred(false), d, Scalar(5)})
	if err == nil || !strings.Contains(err.Error(), "shape_assertion: dimension 3 is 5, want 5 {x}") || !strings.Contains(err.Error(), "test.mlir:") {
		t.Fatalf("failing assertion: %v", err)
	}
	for _, c := range []struct {
		in   []hlo.Type
		msg  hlo.Attr
		want string
	}{
		{[]hlo.Type{TT(hlo.Bool, 4)}, hlo.StringAttr("m"), "boolean scalar tensor<i1>, got tensor<4xi1>"},
		{[]hlo.Type{I1, TT(hlo.I16)}, hlo.StringAttr("m"), "must be a tensor<i32> or tensor<i64>, got tensor<i16>"},
		{[]hlo.Type{I1}, nil, "needs an error_message"},
		{[]hlo.Type{I1, I64}, hlo.StringAttr("{0} {1}"), "placeholder {1} names no input (1 inputs)"},
	} {
		k := NewBlk(c.in...)
		var args []*hlo.Value
		for i := range c.in {
			args = append(args, k.Arg(i))
		}
		var attrs []hlo.NamedAttr
		if c.msg != nil {
			attrs = append(attrs, Attr("error_message", c.msg))
		}
		customCall(k, "shape_assertion", args, nil, attrs...)
		k.Ret("func.return")
		if _, err := host.Compile(Module(Fn("main", k))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
