package movement

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The dynamic-shape ops take their result shape (or slice sizes, padding)
// from operand values; result types may have '?' dimensions, which the
// computed shape fills in.

func checkShapeOperand(c *kernel.OpCtx, i int, name string) error {
	t := c.InTensor(i)
	if t == nil || t.Rank() != 1 || !t.DType.IsInt() {
		var typ hlo.Type
		if i < len(c.In) {
			typ = c.In[i]
		}
		return c.Errorf("%s has type %s, want a 1-D integer tensor", name, shapeOf(typ))
	}
	return nil
}

// readOutShape reads a result shape operand and checks it against the
// result type.
func readOutShape(op *hlo.Op, name string, l *hlo.Literal, outT *hlo.TensorType) ([]int64, error) {
	dims, err := readShape(op, name, l)
	if err != nil {
		return nil, err
	}
	for d, v := range dims {
		if v < 0 {
			return nil, runErr(op, "%s %v has a negative size in dimension %d", name, dims, d)
		}
	}
	if err := hlo.CheckSize(outT.DType, dims); err != nil {
		return nil, runErr(op, "%s %v: %v", name, dims, err)
	}
	if err := matchDims(outT, dims); err != nil {
		return nil, runErr(op, "%s %v: %v", name, dims, err)
	}
	return dims, nil
}

func compileDynamicBroadcastInDim(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	if err := checkShapeOperand(c, 1, "output_dimensions"); err != nil {
		return nil, err
	}
	bd, err := reqInts(c, "broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	es := inT.DType.Size()
	var static *boxPlan
	if allStatic(inT, outT) {
		if static, err = broadcastPlan(inT.Dims, outT.Dims, bd, es); err != nil {
			return nil, c.Errorf("%v (operand %s, result %s)", err, inT.ShapeString(), outT.ShapeString())
		}
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		sh, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		dims, err := readOutShape(op, "output_dimensions", sh, outT)
		if err != nil {
			return err
		}
		p := static
		if p == nil || !slices.Equal(in.Dims, inT.Dims) {
			if p, err = broadcastPlan(in.Dims, dims, bd, es); err != nil {
				return runErr(op, "%v (operand %s, output_dimensions %v)", err, in.ShapeString(), dims)
			}
		}
		if err := x.CheckAlloc(op, in.DType, dims); err != nil {
			return err
		}
		out := newOut(x, in.DType, dims)
		p.b.run(out.Data, in.Data, 0, p.sOff)
		results[0] = out
		return nil
	}, nil
}

func compileDynamicReshape(c *kernel.OpCtx) (kernel.RunFn, error) {
	_, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	if err := checkShapeOperand(c, 1, "output_shape"); err != nil {
		return nil, err
	}
	if c.InTensor(1).Dims[0] >= 0 && c.InTensor(1).Dims[0] != int64(outT.Rank()) {
		return nil, c.Errorf("output_shape %s has %d entries for result %s", c.InTensor(1).ShapeString(), c.InTensor(1).Dims[0], outT.ShapeString())
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		sh, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		dims, err := readOutShape(op, "output_shape", sh, outT)
		if err != nil {
			return err
		}
		if numel(dims) != in.NumElements() {
			return runErr(op, "output_shape %v has %d elements, operand %s has %d", dims, numel(dims), in.ShapeString(), in.NumElements())
		}
		results[0] = viewOf(in.DType, dims, in.Data)
		return nil
	}, nil
}

func compileDynamicIota(c *kernel.OpCtx) (kernel.RunFn, error) {
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if err := checkShapeOperand(c, 0, "output_shape"); err != nil {
		return nil, err
	}
	dim, err := intAttr(c, -1, "iota_dimension", "dimension")
	if err != nil {
		return nil, err
	}
	if dim < 0 || dim >= int64(outT.Rank()) {
		return nil, c.Errorf("iota_dimension %d out of range for result %s", dim, outT.ShapeString())
	}
	dt := outT.DType
	if !(dt.IsInt() || dt.IsFloat() || dt.IsComplex()) {
		return nil, c.Errorf("result %s must have an integer, float or complex element type", outT.ShapeString())
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		sh, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		dims, err := readOutShape(op, "output_shape", sh, outT)
		if err != nil {
			return err
		}
		if err := x.CheckAlloc(op, dt, dims); err != nil {
			return err
		}
		out := newOut(x, dt, dims)
		stride := stridesInt(dims)[dim]
		size := int(dims[dim])
		// One element per index value, then replicate it over its run.
		es := dt.Size()
		for e, n := 0, out.NumElements(); e < n; e += stride {
			v := (e / stride) % size
			switch {
			case dt.IsInt():
				out.SetInt(e, int64(v))
			case dt.IsFloat():
				out.SetFloat(e, float64(v))
			default:
				out.SetComplex(e, complex(float64(v), 0))
			}
			kernel.Fill(out.Data[e*es:(e+stride)*es], out.Data[e*es:e*es+es])
		}
		results[0] = out
		return nil
	}, nil
}

func compileGetDimensionSize(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	dim, err := intAttr(c, -1, "dimension")
	if err != nil {
		return nil, err
	}
	if dim < 0 || dim >= int64(inT.Rank()) {
		return nil, c.Errorf("dimension %d out of range for operand %s", dim, inT.ShapeString())
	}
	if outT.Rank() != 0 || !outT.DType.IsInt() {
		return nil, c.Errorf("result %s must be a 0-d integer tensor", outT.ShapeString())
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		if int(dim) >= len(in.Dims) {
			return runErr(op, "dimension %d out of range for operand %s", dim, in.ShapeString())
		}
		out := newOut(x, outT.DType, nil)
		out.SetInt(0, in.Dims[dim])
		results[0] = out
		return nil
	}, nil
}
