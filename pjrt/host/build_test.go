package host

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// fb builds one function by hand (the tests do not depend on the parser).
type fb struct {
	fn *hlo.Func
}

func newFunc(name string, args ...hlo.Type) *fb {
	f := &hlo.Func{Name: name, Body: &hlo.Region{Blocks: []*hlo.Block{{}}}}
	for i, t := range args {
		f.Args = append(f.Args, &hlo.Value{Type: t, Index: i})
	}
	f.Body.Blocks[0].Args = f.Args
	return &fb{fn: f}
}

func (b *fb) arg(i int) *hlo.Value { return b.fn.Args[i] }

// op appends an op with one result of type out.
func (b *fb) op(name string, out hlo.Type, operands []*hlo.Value, attrs ...hlo.NamedAttr) *hlo.Value {
	op := hlo.NewOp(name, operands, []hlo.Type{out}, attrs...)
	blk := b.fn.Body.Blocks[0]
	blk.Ops = append(blk.Ops, op)
	return op.Results[0]
}

func (b *fb) constant(l *hlo.Literal) *hlo.Value {
	return b.op("stablehlo.constant", l.Type(), nil, hlo.NamedAttr{Name: "value", Value: &hlo.DenseElementsAttr{Type: l.Type(), Value: l}})
}

// splat broadcasts the rank-0 value v to dims.
func (b *fb) splat(v *hlo.Value, dims ...int64) *hlo.Value {
	return b.op("stablehlo.broadcast_in_dim", hlo.NewTensorType(v.TensorType().DType, dims...), []*hlo.Value{v},
		hlo.NamedAttr{Name: "broadcast_dimensions", Value: &hlo.DenseArrayAttr{DType: hlo.I64}})
}

// splatConstant is a constant of dims holding elem (rank 0) everywhere, as
// lowerings write it: a compact splat, or the element with the dims when
// there is one element.
func (b *fb) splatConstant(elem *hlo.Literal, dims ...int64) *hlo.Value {
	t := hlo.NewTensorType(elem.DType, dims...)
	a := hlo.NewSplatAttr(t, elem)
	if t.NumElements() == 1 {
		a = &hlo.DenseElementsAttr{Type: t, Value: &hlo.Literal{DType: elem.DType, Dims: t.Dims, Data: elem.Data}}
	}
	return b.op("stablehlo.constant", t, nil, hlo.NamedAttr{Name: "value", Value: a})
}

func (b *fb) ret(vals ...*hlo.Value) *hlo.Func {
	blk := b.fn.Body.Blocks[0]
	blk.Ops = append(blk.Ops, hlo.NewOp("func.return", vals, nil))
	for _, v := range vals {
		b.fn.ResultTypes = append(b.fn.ResultTypes, v.Type)
	}
	return b.fn
}

func module(fns ...*hlo.Func) *hlo.Module { return &hlo.Module{Funcs: fns} }

func mustCompile(t testing.TB, m *hlo.Module) *Program {
	t.Helper()
	p, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t testing.TB, p *Program, args ...*hlo.Literal) []*hlo.Literal {
	t.Helper()
	in := make([]kernel.Value, len(args))
	for i, a := range args {
		in[i] = a
	}
	res, err := p.Run(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*hlo.Literal, len(res))
	for i, r := range res {
		out[i] = r.(*hlo.Literal)
	}
	return out
}

func f32t(dims ...int64) *hlo.TensorType { return hlo.NewTensorType(hlo.F32, dims...) }
