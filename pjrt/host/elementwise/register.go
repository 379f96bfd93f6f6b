package elementwise

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Prepare returns an elementwise op's tile function for the op's operand
// and result types, or an error when they are unsupported
// (kernel.Elementwise.Prepare).
type Prepare = func(c *kernel.OpCtx) (kernel.TileFn, error)

type prepFn = Prepare

// Costs relative to an f32 add, for the planner's parallel chunk sizes.
const (
	costCheap = 1  // arithmetic, bitwise, compare, select, convert
	costDiv   = 4  // division, remainder, sqrt
	costMath  = 16 // exp, log, tanh, logistic (fast float32 paths)
	costLib   = 40 // library transcendental functions, complex math
)

// Row declares an elementwise op of any dialect (name is the full op name,
// "stablehlo.add", "chlo.erf"): one tile function, from prep, runs both
// standalone (Entry.Compile: a new result filled in parallel chunks) and
// fused by the planner (Elementwise.Prepare), so both give the same bits.
// Every elementwise row of the embedded device is made here.
func Row(name string, cost int, prep Prepare) kernel.Entry {
	e := &kernel.Elementwise{Prepare: prep, Cost: cost}
	return kernel.Entry{
		Name:        name,
		Fresh:       true,
		Elementwise: e,
		Compile:     func(c *kernel.OpCtx) (kernel.RunFn, error) { return compileTile(c, e) },
	}
}

// ew declares a StableHLO row: Row with per-tensor quantized operands
// dequantized, computed and quantized back.
func ew(name string, cost int, prep prepFn) kernel.Entry {
	return Row("stablehlo."+name, cost, quantAware(prep))
}

// compileTile makes the standalone runner of an elementwise op: allocate
// the result and run the tile function over it, in parallel chunks when
// large.
func compileTile(c *kernel.OpCtx, e *kernel.Elementwise) (kernel.RunFn, error) {
	fn, err := e.Prepare(c)
	if err != nil {
		return nil, err
	}
	out := c.OutTensor(0)
	if out == nil || len(c.Out) != 1 {
		return nil, c.Errorf("expected one tensor result, got %s", typesString(c.Out))
	}
	grain := kernel.ElementGrain(e.Cost)
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		srcs := make([]*hlo.Literal, len(args))
		dims := out.Dims
		for i, a := range args {
			l, ok := a.(*hlo.Literal)
			if !ok {
				return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("operand %d is a %T, not a tensor", i, a)}
			}
			srcs[i] = l
		}
		if !out.IsStatic() {
			dims = dynamicDims(out, srcs)
		}
		n := int(hlo.NumElements(dims))
		for i, l := range srcs {
			if m := l.NumElements(); m != n && !(m == 1 && e.ScalarOperands) {
				return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("operand %d is %s, result needs %d elements", i, l.ShapeString(), n)}
			}
		}
		dst := x.NewLiteralUninit(out.DType, dims)
		if n <= grain {
			fn(dst, srcs, 0, n)
		} else {
			kernel.ParallelFor(n, grain, func(lo, hi int) { fn(dst, srcs, lo, hi) })
		}
		results[0] = dst
		return nil
	}, nil
}

// dynamicDims takes a result's dynamic dimensions from the operand of the
// same rank (elementwise ops keep their operands' shape).
func dynamicDims(out *hlo.TensorType, srcs []*hlo.Literal) []int64 {
	for _, l := range srcs {
		if len(l.Dims) == len(out.Dims) && (len(l.Dims) > 0 || l.NumElements() == 1) {
			return l.Dims
		}
	}
	return out.Dims
}

func typesString(ts []hlo.Type) string {
	s := "("
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.String()
	}
	return s + ")"
}

// operandDType returns operand i's element type, rejecting non-tensors and
// quantized tensors.
func operandDType(c *kernel.OpCtx, i int) (hlo.DType, error) {
	if i >= len(c.In) {
		return 0, c.Errorf("expected at least %d operands, got %d", i+1, len(c.In))
	}
	t := c.InTensor(i)
	if t == nil {
		return 0, c.Errorf("operand %d is %s, not a tensor", i, c.In[i])
	}
	if t.Quant != nil {
		return 0, c.Errorf("quantized operand %s is not supported", t)
	}
	return t.DType, nil
}

// resultDType returns the single result's element type.
func resultDType(c *kernel.OpCtx) (hlo.DType, error) {
	if len(c.Out) != 1 || c.OutTensor(0) == nil {
		return 0, c.Errorf("expected one tensor result, got %s", typesString(c.Out))
	}
	t := c.OutTensor(0)
	if t.Quant != nil {
		return 0, c.Errorf("quantized result %s is not supported", t)
	}
	return t.DType, nil
}

// sameOperandTypes checks that there are n operands of one element type
// and returns it.
func sameOperandTypes(c *kernel.OpCtx, n int) (hlo.DType, error) {
	if len(c.In) != n {
		return 0, c.Errorf("expected %d operands, got %d", n, len(c.In))
	}
	dt, err := operandDType(c, 0)
	if err != nil {
		return 0, err
	}
	for i := 1; i < n; i++ {
		d, err := operandDType(c, i)
		if err != nil {
			return 0, err
		}
		if d != dt {
			return 0, c.Errorf("operand types differ: %s", typesString(c.In))
		}
	}
	return dt, nil
}

// sameTypes checks that the n operands and the result share one element
// type and returns it.
func sameTypes(c *kernel.OpCtx, n int) (hlo.DType, error) {
	dt, err := sameOperandTypes(c, n)
	if err != nil {
		return 0, err
	}
	rt, err := resultDType(c)
	if err != nil {
		return 0, err
	}
	if rt != dt {
		return 0, c.Errorf("result type %s differs from operand type %s", c.Out[0], c.In[0])
	}
	return dt, nil
}

// unsupported is the error for an element type an op does not accept.
func unsupported(c *kernel.OpCtx, dt hlo.DType) error {
	return c.Errorf("element type %s is not supported (operands %s)", dt, typesString(c.In))
}

// unaryOp declares a same-type unary op from its per-type kernels.
func unaryOp(name string, cost int, fs func(dt hlo.DType) *fns1) kernel.Entry {
	return ew(name, cost, func(c *kernel.OpCtx) (kernel.TileFn, error) {
		dt, err := sameTypes(c, 1)
		if err != nil {
			return nil, err
		}
		if f := tile1(dt, fs(dt)); f != nil {
			return f, nil
		}
		return nil, unsupported(c, dt)
	})
}

// binaryOp declares a same-type binary op from its per-type kernels.
func binaryOp(name string, cost int, fs func(dt hlo.DType) *fns2) kernel.Entry {
	return ew(name, cost, func(c *kernel.OpCtx) (kernel.TileFn, error) {
		dt, err := sameTypes(c, 2)
		if err != nil {
			return nil, err
		}
		if f := tile2(dt, fs(dt)); f != nil {
			return f, nil
		}
		return nil, unsupported(c, dt)
	})
}

// fixed returns a kernel set independent of the element type.
func fixed1(f *fns1) func(hlo.DType) *fns1 { return func(hlo.DType) *fns1 { return f } }
func fixed2(f *fns2) func(hlo.DType) *fns2 { return func(hlo.DType) *fns2 { return f } }
