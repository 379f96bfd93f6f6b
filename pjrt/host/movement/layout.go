package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// boxPlan is a unary data-movement op prepared for one operand shape: the
// result is a fresh literal of outDims filled by one box copy.
type boxPlan struct {
	outDims []int64
	b       *box
	sOff    int
}

// planFn prepares a box op for the operand dims; its errors name the
// attribute at fault (the caller adds op, location and shapes).
type planFn func(in []int64) (*boxPlan, error)

// compileBoxOp is the compile step shared by the unary box ops: the plan
// is built now when the operand shape is static, else on every run.
func compileBoxOp(c *kernel.OpCtx, plan planFn) (kernel.RunFn, error) {
	inT, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	var static *boxPlan
	if inT.IsStatic() {
		p, err := plan(inT.Dims)
		if err != nil {
			return nil, c.Errorf("%v (operand %s, result %s)", err, inT.ShapeString(), outT.ShapeString())
		}
		if err := matchDims(outT, p.outDims); err != nil {
			return nil, c.Errorf("%v (operand %s)", err, inT.ShapeString())
		}
		static = p
	}
	op := c.Op
	dt := outT.DType
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		p := static
		if p == nil {
			if p, err = plan(in.Dims); err != nil {
				return runErr(op, "%v (operand %s)", err, in.ShapeString())
			}
			if err := matchDims(outT, p.outDims); err != nil {
				return runErr(op, "%v (operand %s)", err, in.ShapeString())
			}
		}
		out := newOut(x, dt, p.outDims)
		p.b.run(out.Data, in.Data, 0, p.sOff)
		results[0] = out
		return nil
	}, nil
}

// matchDims checks computed result dims against the declared result type
// (dynamic dims match anything).
func matchDims(t *hlo.TensorType, dims []int64) error {
	ok := len(t.Dims) == len(dims)
	for i := 0; ok && i < len(dims); i++ {
		ok = t.Dims[i] < 0 || t.Dims[i] == dims[i]
	}
	if !ok {
		return fmt.Errorf("result type %s does not match the computed shape %s", t.ShapeString(), hlo.ShapeString(t.DType, dims))
	}
	return nil
}

func compileBroadcastInDim(c *kernel.OpCtx) (kernel.RunFn, error) {
	outT, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if !outT.IsStatic() {
		return nil, c.Errorf("result %s must be static (use dynamic_broadcast_in_dim)", outT.ShapeString())
	}
	bd, err := reqInts(c, "broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	es := outT.DType.Size()
	return compileBoxOp(c, func(in []int64) (*boxPlan, error) {
		return broadcastPlan(in, outT.Dims, bd, es)
	})
}

// broadcastPlan maps operand dim i to result dim bd[i]; operand dims of
// size 1 broadcast.
func broadcastPlan(in, out, bd []int64, es int) (*boxPlan, error) {
	if len(bd) != len(in) {
		return nil, fmt.Errorf("broadcast_dimensions %v has %d entries for an operand of rank %d", bd, len(bd), len(in))
	}
	if !uniqueIn(bd, len(out)) {
		return nil, fmt.Errorf("broadcast_dimensions %v must be unique and in [0, %d)", bd, len(out))
	}
	inS := stridesInt(in)
	sS := make([]int, len(out))
	for i, d := range bd {
		switch in[i] {
		case 1:
		case out[d]:
			sS[d] = inS[i]
		default:
			return nil, fmt.Errorf("broadcast_dimensions %v: operand dim %d (size %d) cannot broadcast to result dim %d (size %d)", bd, i, in[i], d, out[d])
		}
	}
	return &boxPlan{outDims: out, b: newBox(out, stridesInt(out), sS, es)}, nil
}

func compileTranspose(c *kernel.OpCtx) (kernel.RunFn, error) {
	perm, err := reqInts(c, "permutation")
	if err != nil {
		return nil, err
	}
	inT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	es := inT.DType.Size()
	return compileBoxOp(c, func(in []int64) (*boxPlan, error) {
		if !isPerm(perm, len(in)) {
			return nil, fmt.Errorf("permutation %v is not a permutation of [0, %d)", perm, len(in))
		}
		inS := stridesInt(in)
		out := make([]int64, len(in))
		sS := make([]int, len(in))
		for i, p := range perm {
			out[i] = in[p]
			sS[i] = inS[p]
		}
		return &boxPlan{outDims: out, b: newBox(out, stridesInt(out), sS, es)}, nil
	})
}

func compileReverse(c *kernel.OpCtx) (kernel.RunFn, error) {
	dims, err := reqInts(c, "dimensions")
	if err != nil {
		return nil, err
	}
	inT, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	es := inT.DType.Size()
	return compileBoxOp(c, func(in []int64) (*boxPlan, error) {
		if !uniqueIn(dims, len(in)) {
			return nil, fmt.Errorf("dimensions %v must be unique and in [0, %d)", dims, len(in))
		}
		sS := stridesInt(in)
		off := 0
		for _, d := range dims {
			if in[d] > 0 {
				off += int(in[d]-1) * sS[d]
			}
			sS[d] = -sS[d]
		}
		return &boxPlan{outDims: in, b: newBox(in, stridesInt(in), sS, es), sOff: off}, nil
	})
}

// compileReshape shares the operand's storage: the result is a new literal
// header over the same bytes (so the entry is not Fresh).
func compileReshape(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	if !outT.IsStatic() {
		return nil, c.Errorf("result %s must be static (use dynamic_reshape)", outT.ShapeString())
	}
	if inT.IsStatic() && inT.NumElements() != outT.NumElements() {
		return nil, c.Errorf("operand %s and result %s have different element counts", inT.ShapeString(), outT.ShapeString())
	}
	op := c.Op
	want := outT.NumElements()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		if int64(in.NumElements()) != want {
			return runErr(op, "operand %s has %d elements, result %s needs %d", in.ShapeString(), in.NumElements(), outT.ShapeString(), want)
		}
		results[0] = x.View(in.DType, outT.Dims, in.Data)
		return nil
	}, nil
}
