package elementwise

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// constant returns its attribute's literal itself (shared, so not Fresh:
// the planner never writes into it or recycles it), except for a compact
// splat of more than SplatCompileBytes: that one is made at run time, a
// fresh tensor each execution, so that its memory is reserved (and can be
// refused) like any other result's and a program holding it costs nothing
// until it runs. iota fills a new tensor with each element's index along
// iota_dimension, converted to the element type as convert would.

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.constant", Compile: compileConstant, FreshOp: runtimeSplat, NoAlloc: true},
		kernel.Entry{Name: "stablehlo.iota", Compile: compileIota, Fresh: true},
	)
}

// SplatCompileBytes is the largest compact splat constant expanded once at
// compile time.
const SplatCompileBytes = 64 << 10

// ConstantSplat returns the repeated element of a stablehlo.constant whose
// value is one element for a result of several (a compact splat, or a
// one-element literal), as a rank-0 literal of the result's storage type,
// and the result type; ok is false for other constants.
func ConstantSplat(op *hlo.Op) (elem *hlo.Literal, rt *hlo.TensorType, ok bool) {
	if len(op.Results) != 1 {
		return nil, nil, false
	}
	a, isDense := op.Attr("value").(*hlo.DenseElementsAttr)
	rt = op.Results[0].TensorType()
	if !isDense || rt == nil || !rt.IsStatic() || rt.NumElements() == 1 {
		return nil, nil, false
	}
	dt := rt.DType
	if rt.Quant != nil {
		dt = rt.Quant.Storage
	}
	switch {
	case a.Splat != nil:
		elem = a.Splat
	case a.Value != nil && a.Value.NumElements() == 1:
		elem = &hlo.Literal{DType: a.Value.DType, Dims: []int64{}, Data: a.Value.Data}
	default:
		return nil, nil, false
	}
	if elem.DType != dt || len(elem.Data) != dt.Size() {
		return nil, nil, false
	}
	return elem, rt, true
}

// runtimeSplat reports a constant made at run time: a splat of more than
// SplatCompileBytes.
func runtimeSplat(op *hlo.Op) bool {
	e, rt, ok := ConstantSplat(op)
	if !ok {
		return false
	}
	n, fits := hlo.ByteSize(e.DType, rt.Dims)
	return !fits || n > SplatCompileBytes
}

// ConstantValue returns the literal a stablehlo.constant op produces, with
// the result type's shape (a splat is expanded to it). A splat of more
// than SplatCompileBytes is an error here: it is made at run time.
func ConstantValue(op *hlo.Op) (*hlo.Literal, error) {
	fail := func(msg string) error { return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: msg} }
	if len(op.Results) != 1 {
		return nil, fail("expected one result")
	}
	rt := op.Results[0].TensorType()
	a, ok := op.Attr("value").(*hlo.DenseElementsAttr)
	if !ok || a.Value == nil && a.Splat == nil {
		return nil, fail("missing dense value attribute")
	}
	if elem, rt, ok := ConstantSplat(op); ok {
		if runtimeSplat(op) {
			return nil, fail("splat value of " + rt.String() + " is made at run time")
		}
		out := hlo.NewLiteral(elem.DType, rt.Dims...)
		kernel.Fill(out.Data, elem.Data)
		return out, nil
	}
	if a.Value == nil {
		return nil, fail("splat value " + hlo.AttrString(a) + " does not match result " + hlo.Type(op.Results[0].Type).String())
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
	if int64(lit.NumElements()) != rt.NumElements() {
		return nil, fail("value " + lit.ShapeString() + " does not fill result " + rt.String())
	}
	if !slices.Equal(lit.Dims, rt.Dims) {
		lit = &hlo.Literal{DType: lit.DType, Dims: append([]int64(nil), rt.Dims...), Data: lit.Data}
	}
	return lit, nil
}

func compileConstant(c *kernel.OpCtx) (kernel.RunFn, error) {
	if runtimeSplat(c.Op) {
		elem, rt, _ := ConstantSplat(c.Op)
		dt, dims := elem.DType, rt.Dims
		if err := hlo.CheckSize(dt, dims); err != nil {
			return nil, c.Errorf("%v", err)
		}
		return func(x *kernel.Ctx, args, results []kernel.Value) error {
			out := x.NewLiteralUninit(dt, dims)
			kernel.Fill(out.Data, elem.Data)
			results[0] = out
			return nil
		}, nil
	}
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
	// row holds 0..n-1 converted to dt, as convert from i64 would (no
	// larger than the result, so a row that does not fit means no run can).
	if err := c.CheckAlloc(hlo.I64, []int64{n, 2}); err != nil {
		return nil, err
	}
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
