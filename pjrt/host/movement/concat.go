package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// concatPlan copies input i with boxes[i] at element offset offs[i] of the
// result.
type concatPlan struct {
	outDims []int64
	boxes   []*box
	offs    []int
}

func newConcatPlan(ins [][]int64, dim int, es int) (*concatPlan, error) {
	r := len(ins[0])
	if dim < 0 || dim >= r {
		return nil, fmt.Errorf("dimension %d out of range for rank %d", dim, r)
	}
	out := append([]int64(nil), ins[0]...)
	out[dim] = 0
	for i, in := range ins {
		if len(in) != r {
			return nil, fmt.Errorf("input %d has rank %d, input 0 has rank %d", i, len(in), r)
		}
		for d := range in {
			if d != dim && in[d] != ins[0][d] {
				return nil, fmt.Errorf("input %d differs from input 0 in dimension %d (%d vs %d), which is not the concatenation dimension %d", i, d, in[d], ins[0][d], dim)
			}
		}
		out[dim] += in[dim]
	}
	p := &concatPlan{outDims: out}
	outS := stridesInt(out)
	at := 0
	for _, in := range ins {
		p.boxes = append(p.boxes, newBox(in, outS, stridesInt(in), es))
		p.offs = append(p.offs, at*outS[dim])
		at += int(in[dim])
	}
	return p, nil
}

func compileConcatenate(c *kernel.OpCtx) (kernel.RunFn, error) {
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if len(c.In) == 0 {
		return nil, c.Errorf("needs at least one input")
	}
	dim64, err := intAttr(c, -1, "dimension")
	if err != nil {
		return nil, err
	}
	ins := make([]*hlo.TensorType, len(c.In))
	static := true
	for i := range c.In {
		t, err := tensorIn(c, i)
		if err != nil {
			return nil, err
		}
		if t.DType != outT.DType {
			return nil, c.Errorf("input %d %s and result %s differ in element type", i, t.ShapeString(), outT.ShapeString())
		}
		ins[i] = t
		static = static && t.IsStatic()
	}
	dim := int(dim64)
	es := outT.DType.Size()
	describe := func() string {
		s := ""
		for i, t := range ins {
			if i > 0 {
				s += ", "
			}
			s += t.ShapeString()
		}
		return s
	}
	var plan *concatPlan
	if static {
		dims := make([][]int64, len(ins))
		for i, t := range ins {
			dims[i] = t.Dims
		}
		if plan, err = newConcatPlan(dims, dim, es); err != nil {
			return nil, c.Errorf("%v (inputs %s)", err, describe())
		}
		if err := matchDims(outT, plan.outDims); err != nil {
			return nil, c.Errorf("%v", err)
		}
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		p := plan
		if p == nil {
			dims := make([][]int64, len(args))
			for i := range args {
				l, err := lit(op, args, i)
				if err != nil {
					return err
				}
				dims[i] = l.Dims
			}
			var err error
			if p, err = newConcatPlan(dims, dim, es); err != nil {
				return runErr(op, "%v", err)
			}
		}
		out := newOut(x, outT.DType, p.outDims)
		for i, b := range p.boxes {
			in, err := lit(op, args, i)
			if err != nil {
				return err
			}
			b.run(out.Data, in.Data, p.offs[i], 0)
		}
		results[0] = out
		return nil
	}, nil
}
