package elementwise

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// constant returns its attribute's literal itself (shared, so not Fresh:
// the planner never writes into it or recycles it). iota fills a new
// tensor with each element's index along iota_dimension, converted to the
// element type as convert would.

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.constant", Compile: compileConstant},
		kernel.Entry{Name: "stablehlo.iota", Compile: compileIota, Fresh: true},
	)
}

// ConstantValue returns the literal a stablehlo.constant op produces, with
// the result type's shape (a one-element attribute is splat to it).
func ConstantValue(op *hlo.Op) (*hlo.Literal, error) {
	fail := func(msg string) error { return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: msg} }
	if len(op.Results) != 1 {
		return nil, fail("expected one result")
	}
	rt := op.Results[0].TensorType()
	a, ok := op.Attr("value").(*hlo.DenseElementsAttr)
	if !ok || a.Value == nil {
		return nil, fail("missing dense value attribute")
	}
	lit := a.Value
	if rt == nil {
		return lit, nil
	}
	dt := rt.DType
	if rt.Quant != nil {
		dt = rt.Quant.Storage
	}
	if lit.DType != dt {
		return nil, fail("value of type " + lit.ShapeString() + " does not match result " + rt.String())
	}
	if !rt.IsStatic() {
		return lit, nil
	}
	n := int(rt.NumElements())
	switch {
	case lit.NumElements() == n:
		if !slices.Equal(lit.Dims, rt.Dims) {
			lit = &hlo.Literal{DType: lit.DType, Dims: append([]int64(nil), rt.Dims...), Data: lit.Data}
		}
	case lit.NumElements() == 1:
		out := hlo.NewLiteral(dt, rt.Dims...)
		kernel.Fill(out.Data, lit.Data)
		lit = out
	default:
		return nil, fail("value " + lit.ShapeString() + " does not fill result " + rt.String())
	}
	return lit, nil
}

func compileConstant(c *kernel.OpCtx) (kernel.RunFn, error) {
	lit, err := ConstantValue(c.Op)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		results[0] = lit
		return nil
	}, nil
}

func compileIota(c *kernel.OpCtx) (kernel.RunFn, error) {
	out := c.OutTensor(0)
	if out == nil || len(c.Out) != 1 || len(c.In) != 0 {
		return nil, c.Errorf("expected no operands and one tensor result, got %s -> %s", typesString(c.In), typesString(c.Out))
	}
	if !out.IsStatic() {
		return nil, c.Errorf("result %s must have a static shape", out)
	}
	dim, ok := c.Int("iota_dimension")
	if !ok || dim < 0 || int(dim) >= len(out.Dims) {
		return nil, c.Errorf("iota_dimension %d out of range for %s", dim, out)
	}
	dt := out.DType
	if out.Quant != nil {
		return nil, c.Errorf("quantized result %s is not supported", out)
	}
	n := out.Dims[dim]
	// row holds 0..n-1 converted to dt, as convert from i64 would.
	idx := hlo.NewLiteral(hlo.I64, n)
	for i := range idx.I64() {
		idx.I64()[i] = int64(i)
	}
	cvt := convertTile(hlo.I64, dt)
	if cvt == nil {
		return nil, c.Errorf("element type %s is not supported", dt)
	}
	row := hlo.NewLiteral(dt, n)
	cvt(row, []*hlo.Literal{idx}, 0, int(n))
	outer := int(hlo.NumElements(out.Dims[:dim]))
	inner := int(hlo.NumElements(out.Dims[dim+1:]))
	s := dt.Size()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		dst := x.NewLiteralUninit(dt, out.Dims)
		block := int(n) * inner * s
		if len(dst.Data) > 0 {
			first := dst.Data[:block]
			for k := 0; k < int(n); k++ {
				kernel.Fill(first[k*inner*s:(k+1)*inner*s], row.Data[k*s:(k+1)*s])
			}
			for o := 1; o < outer; o++ {
				copy(dst.Data[o*block:(o+1)*block], first)
			}
		}
		results[0] = dst
		return nil
	}, nil
}
