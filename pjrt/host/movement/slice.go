package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func compileSlice(c *kernel.OpCtx) (kernel.RunFn, error) {
	start, err := reqInts(c, "start_indices")
	if err != nil {
		return nil, err
	}
	limit, err := reqInts(c, "limit_indices")
	if err != nil {
		return nil, err
	}
	strides, ok, err := intsAttr(c, "strides")
	if err != nil {
		return nil, err
	}
	if !ok {
		strides = make([]int64, len(start))
		for i := range strides {
			strides[i] = 1
		}
	}
	inT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	es := inT.DType.Size()
	return compileBoxOp(c, func(in []int64) (*boxPlan, error) {
		return slicePlan(in, start, limit, strides, es)
	})
}

// slicePlan is the strided slice [start:limit:stride] of each dimension.
func slicePlan(in, start, limit, strides []int64, es int) (*boxPlan, error) {
	r := len(in)
	if len(start) != r || len(limit) != r || len(strides) != r {
		return nil, fmt.Errorf("start_indices %v, limit_indices %v and strides %v must each have %d entries", start, limit, strides, r)
	}
	inS := stridesInt(in)
	out := make([]int64, r)
	sS := make([]int, r)
	off := 0
	for d := 0; d < r; d++ {
		if start[d] < 0 || start[d] > limit[d] || limit[d] > in[d] || strides[d] <= 0 {
			return nil, fmt.Errorf("dimension %d: slice [%d:%d:%d] of size %d needs 0 <= start <= limit <= size and stride > 0", d, start[d], limit[d], strides[d], in[d])
		}
		if limit[d] > start[d] { // ceil((limit-start)/stride) without overflowing for strides near 2^63
			out[d] = (limit[d]-start[d]-1)/strides[d] + 1
		}
		sS[d] = inS[d] // one element (or none) never steps: as stride 1, where a huge stride would overflow
		if out[d] > 1 {
			sS[d] = int(strides[d]) * inS[d]
		}
		off += int(start[d]) * inS[d]
	}
	return &boxPlan{outDims: out, b: newBox(out, stridesInt(out), sS, es), sOff: off}, nil
}

// windowOffset reads the start indices of a window of sizes in an operand
// of dims (dynamic_slice and dynamic_update_slice: one 0-d integer tensor
// per dimension from args[first], or, in the older form, one 1-D tensor),
// clamps each so that the window fits, and returns the window's element
// offset in the row-major operand.
func windowOffset(op *hlo.Op, args []kernel.Value, first int, dims, sizes []int64) (int, error) {
	r := len(dims)
	var vec *hlo.Literal
	if len(args) == first+1 && r != 0 {
		if l, ok := args[first].(*hlo.Literal); ok && len(l.Dims) == 1 {
			if int(l.Dims[0]) != r {
				return 0, runErr(op, "start index vector %s needs %d entries", l.ShapeString(), r)
			}
			vec = l
		}
	}
	if vec == nil && len(args)-first != r {
		return 0, runErr(op, "has %d start indices for an operand of rank %d", len(args)-first, r)
	}
	off := 0
	for d := 0; d < r; d++ {
		var start int64
		if vec != nil {
			start = readIndex(vec, d)
		} else {
			l, err := lit(op, args, first+d)
			if err != nil {
				return 0, err
			}
			if len(l.Data) < l.DType.Size() || !(l.DType.IsInt() || l.DType.IsBool()) {
				return 0, runErr(op, "start index %d has shape %s, want a 0-d integer tensor", d, l.ShapeString())
			}
			start = readIndex(l, 0)
		}
		off = off*int(dims[d]) + int(clampI(start, 0, dims[d]-sizes[d]))
	}
	return off, nil
}

func checkStartTypes(c *kernel.OpCtx, first int) error {
	for i := first; i < len(c.In); i++ {
		t := c.InTensor(i)
		if t == nil || !(t.DType.IsInt()) || t.Rank() > 1 {
			return c.Errorf("start index operand %d has type %s, want a 0-d integer tensor", i, shapeOf(c.In[i]))
		}
	}
	return nil
}

func compileDynamicSlice(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	sizes, err := reqInts(c, "slice_sizes")
	if err != nil {
		return nil, err
	}
	if err := checkStartTypes(c, 1); err != nil {
		return nil, err
	}
	r := inT.Rank()
	if len(sizes) != r {
		return nil, c.Errorf("slice_sizes %v has %d entries for operand %s", sizes, len(sizes), inT.ShapeString())
	}
	if err := matchDims(outT, sizes); err != nil {
		return nil, c.Errorf("slice_sizes %v: %v", sizes, err)
	}
	check := func(in []int64) error {
		for d := range sizes {
			if sizes[d] < 0 || sizes[d] > in[d] {
				return fmt.Errorf("slice_sizes %v exceed operand %s in dimension %d", sizes, hlo.ShapeString(inT.DType, in), d)
			}
		}
		return nil
	}
	es := inT.DType.Size()
	var static *box
	if inT.IsStatic() {
		if err := check(inT.Dims); err != nil {
			return nil, c.Errorf("%v", err)
		}
		static = sliceBox(sizes, inT.Dims, es)
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		if len(in.Dims) != r {
			return runErr(op, "operand %s has rank %d, want %d", in.ShapeString(), len(in.Dims), r)
		}
		b := static
		if b == nil {
			if err := check(in.Dims); err != nil {
				return runErr(op, "%v", err)
			}
			b = sliceBox(sizes, in.Dims, es)
		}
		off, err := windowOffset(op, args, 1, in.Dims, sizes)
		if err != nil {
			return err
		}
		out := newOut(x, in.DType, sizes)
		b.run(out.Data, in.Data, 0, off)
		results[0] = out
		return nil
	}, nil
}

// sliceBox copies a sizes-shaped window of a row-major operand of dims
// into a dense result.
func sliceBox(sizes, dims []int64, es int) *box {
	return newBox(sizes, stridesInt(sizes), stridesInt(dims), es)
}

func compileDynamicUpdateSlice(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	updT, err := tensorIn(c, 1)
	if err != nil {
		return nil, err
	}
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if err := checkStartTypes(c, 2); err != nil {
		return nil, err
	}
	if inT.DType != outT.DType || updT.DType != inT.DType {
		return nil, c.Errorf("operand %s, update %s and result %s must have one element type", inT.ShapeString(), updT.ShapeString(), outT.ShapeString())
	}
	r := inT.Rank()
	if updT.Rank() != r {
		return nil, c.Errorf("update %s and operand %s differ in rank", updT.ShapeString(), inT.ShapeString())
	}
	check := func(in, upd []int64) error {
		for d := 0; d < r; d++ {
			if upd[d] > in[d] {
				return fmt.Errorf("update %s exceeds operand %s in dimension %d", hlo.ShapeString(inT.DType, upd), hlo.ShapeString(inT.DType, in), d)
			}
		}
		return nil
	}
	es := inT.DType.Size()
	var static *box
	if allStatic(inT, updT) {
		if err := check(inT.Dims, updT.Dims); err != nil {
			return nil, c.Errorf("%v", err)
		}
		static = newBox(updT.Dims, stridesInt(inT.Dims), stridesInt(updT.Dims), es)
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		upd, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		if len(in.Dims) != r || len(upd.Dims) != r {
			return runErr(op, "operand %s and update %s must have rank %d", in.ShapeString(), upd.ShapeString(), r)
		}
		b := static
		if b == nil {
			if err := check(in.Dims, upd.Dims); err != nil {
				return runErr(op, "%v", err)
			}
			b = newBox(upd.Dims, stridesInt(in.Dims), stridesInt(upd.Dims), es)
		}
		off, err := windowOffset(op, args, 2, in.Dims, upd.Dims)
		if err != nil {
			return err
		}
		out := newOut(x, in.DType, in.Dims)
		copy(out.Data, in.Data)
		b.run(out.Data, upd.Data, off, 0)
		results[0] = out
		return nil
	}, nil
}

func compileRealDynamicSlice(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	if len(c.In) != 4 {
		return nil, c.Errorf("takes operand, start_indices, limit_indices and strides, has %d operands", len(c.In))
	}
	for i, name := range []string{"start_indices", "limit_indices", "strides"} {
		if err := checkShapeOperand(c, i+1, name); err != nil {
			return nil, err
		}
	}
	op := c.Op
	es := inT.DType.Size()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		var ls [4]*hlo.Literal
		if err := lits(op, args, ls[:]); err != nil {
			return err
		}
		in := ls[0]
		start, err := readShape(op, "start_indices", ls[1])
		if err != nil {
			return err
		}
		limit, err := readShape(op, "limit_indices", ls[2])
		if err != nil {
			return err
		}
		strides, err := readShape(op, "strides", ls[3])
		if err != nil {
			return err
		}
		p, err := slicePlan(in.Dims, start, limit, strides, es)
		if err != nil {
			return runErr(op, "%v (operand %s)", err, in.ShapeString())
		}
		if err := matchDims(outT, p.outDims); err != nil {
			return runErr(op, "%v (operand %s)", err, in.ShapeString())
		}
		if err := x.CheckAlloc(op, in.DType, p.outDims); err != nil {
			return err
		}
		out := newOut(x, in.DType, p.outDims)
		p.b.run(out.Data, in.Data, 0, p.sOff)
		results[0] = out
		return nil
	}, nil
}
