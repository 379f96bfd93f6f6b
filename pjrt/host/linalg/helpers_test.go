package linalg_test

import (
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// singleOpModule builds `func @main(args...) { %r = op(args) attrs; return %r }`.
func singleOpModule(name string, argTypes []hlo.Type, resultTypes []hlo.Type, attrs ...hlo.NamedAttr) *hlo.Module {
	f := &hlo.Func{Name: "main", Body: &hlo.Region{Blocks: []*hlo.Block{{}}}}
	for i, t := range argTypes {
		f.Args = append(f.Args, &hlo.Value{Type: t, Index: i})
	}
	f.Body.Blocks[0].Args = f.Args
	op := hlo.NewOp(name, f.Args, resultTypes, attrs...)
	ret := hlo.NewOp("func.return", op.Results, nil)
	f.Body.Blocks[0].Ops = []*hlo.Op{op, ret}
	f.ResultTypes = resultTypes
	return &hlo.Module{Funcs: []*hlo.Func{f}}
}

// runOp compiles and runs a single-op module on the embedded device.
func runOp(name string, args []*hlo.Literal, resultTypes []hlo.Type, attrs ...hlo.NamedAttr) ([]*hlo.Literal, error) {
	var types []hlo.Type
	var vals []kernel.Value
	for _, a := range args {
		types = append(types, a.Type())
		vals = append(vals, a)
	}
	p, err := host.Compile(singleOpModule(name, types, resultTypes, attrs...))
	if err != nil {
		return nil, err
	}
	res, err := p.Run(nil, vals)
	if err != nil {
		return nil, err
	}
	out := make([]*hlo.Literal, len(res))
	for i, r := range res {
		out[i] = r.(*hlo.Literal)
	}
	return out, nil
}

func mustRun(t *testing.T, name string, args []*hlo.Literal, resultTypes []hlo.Type, attrs ...hlo.NamedAttr) []*hlo.Literal {
	t.Helper()
	out, err := runOp(name, args, resultTypes, attrs...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// randLiteral fills a literal of type dt with small random values (ints in
// [-4, 4], unsigned in [0, 8], floats in [-1, 1), bools random).
func randLiteral(r *rand.Rand, dt hlo.DType, dims ...int64) *hlo.Literal {
	l := hlo.NewLiteral(dt, dims...)
	for i := 0; i < l.NumElements(); i++ {
		switch {
		case dt.IsBool():
			l.SetInt(i, int64(r.IntN(2)))
		case dt.IsUnsigned():
			l.SetInt(i, int64(r.IntN(9)))
		case dt.IsInt():
			l.SetInt(i, int64(r.IntN(9)-4))
		case dt.IsComplex():
			l.SetComplex(i, complex(r.Float64()*2-1, r.Float64()*2-1))
		default:
			l.SetFloat(i, r.Float64()*2-1)
		}
	}
	return l
}

func tt(dt hlo.DType, dims ...int64) *hlo.TensorType { return hlo.NewTensorType(dt, dims...) }

// unravel turns a flat row-major index into a multi-index.
func unravel(i int, dims []int64) []int64 {
	idx := make([]int64, len(dims))
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = int64(i) % dims[d]
			i /= int(dims[d])
		}
	}
	return idx
}

func ravel(idx, dims []int64) int {
	off := 0
	for d := range dims {
		off = off*int(dims[d]) + int(idx[d])
	}
	return off
}

// closeTo compares got with a float64/complex128 reference per element,
// within atol + rtol*scale[i] (scale nil: |want|).
func closeTo(t *testing.T, what string, got *hlo.Literal, want []complex128, scale []float64, atol, rtol float64) {
	t.Helper()
	if got.NumElements() != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, got.NumElements(), len(want))
	}
	for i, w := range want {
		g := got.Complex(i)
		s := cmplx.Abs(w)
		if scale != nil {
			s = scale[i]
		}
		if cmplx.IsNaN(g) || cmplx.Abs(g-w) > atol+rtol*s {
			t.Fatalf("%s: element %d (%v) = %v, want %v", what, i, unravel(i, got.Dims), g, w)
		}
	}
}

// ulpTol is a relative tolerance matching the precision of dt.
func ulpTol(dt hlo.DType) float64 {
	switch dt {
	case hlo.F16:
		return 2e-3
	case hlo.BF16:
		return 1.6e-2
	case hlo.F32, hlo.C64:
		return 1e-5
	case hlo.F64, hlo.C128:
		return 1e-13
	}
	return 0
}
