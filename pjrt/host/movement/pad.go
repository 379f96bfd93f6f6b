package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// maxPad bounds each padding amount, so that the plan's offset arithmetic
// cannot overflow.
const maxPad = 1 << 62

// padPlan fills the result with the padding value, then copies the operand
// elements that survive negative edge padding into their strided places.
type padPlan struct {
	outDims []int64
	b       *box
	dOff    int
	sOff    int
}

func newPadPlan(in, lo, hi, interior []int64, es int) (*padPlan, error) {
	r := len(in)
	if len(lo) != r || len(hi) != r || len(interior) != r {
		return nil, fmt.Errorf("edge_padding_low %v, edge_padding_high %v and interior_padding %v must each have %d entries", lo, hi, interior, r)
	}
	out := make([]int64, r)
	for d := 0; d < r; d++ {
		if interior[d] < 0 {
			return nil, fmt.Errorf("interior_padding %v is negative in dimension %d", interior, d)
		}
		if min(lo[d], hi[d]) < -maxPad || max(lo[d], hi[d], interior[d]) > maxPad {
			return nil, fmt.Errorf("padding (low %d, high %d, interior %d) of dimension %d is beyond ±2^62", lo[d], hi[d], interior[d], d)
		}
		n, ok := hlo.PaddedSize(in[d], lo[d], hi[d], interior[d])
		if !ok {
			return nil, fmt.Errorf("padding (low %d, high %d, interior %d) of dimension %d (size %d) overflows int64", lo[d], hi[d], interior[d], d, in[d])
		}
		if n < 0 {
			return nil, fmt.Errorf("padding (low %d, high %d, interior %d) of dimension %d (size %d) gives a negative size %d", lo[d], hi[d], interior[d], d, in[d], n)
		}
		out[d] = n
	}
	outS, inS := stridesInt(out), stridesInt(in)
	count := make([]int64, r)
	dS := make([]int, r)
	p := &padPlan{outDims: out}
	for d := 0; d < r; d++ {
		step := interior[d] + 1
		// First and last operand index whose padded position is inside the result.
		first := int64(0)
		if lo[d] < 0 {
			first = (-lo[d] + step - 1) / step
		}
		last := in[d] - 1
		if out[d] == 0 {
			last = -1
		} else if pos := lo[d] + last*step; pos > out[d]-1 {
			last = (out[d] - 1 - lo[d]) / step
			if out[d]-1-lo[d] < 0 {
				last = -1
			}
		}
		if last >= first {
			count[d] = last - first + 1
		}
		dS[d] = int(step) * outS[d]
		p.dOff += int(lo[d]+first*step) * outS[d]
		p.sOff += int(first) * inS[d]
	}
	p.b = newBox(count, dS, inS, es)
	if p.b.empty {
		p.dOff, p.sOff = 0, 0
	}
	return p, nil
}

func (p *padPlan) run(x *kernel.Ctx, in, padValue *hlo.Literal) *hlo.Literal {
	out := newOut(x, in.DType, p.outDims)
	es := in.DType.Size()
	kernel.Fill(out.Data, padValue.Data[:es])
	p.b.run(out.Data, in.Data, p.dOff, p.sOff)
	return out
}

func checkPadTypes(c *kernel.OpCtx) (inT, outT *hlo.TensorType, err error) {
	if inT, err = tensorIn(c, 0); err != nil {
		return nil, nil, err
	}
	pvT, err := tensorIn(c, 1)
	if err != nil {
		return nil, nil, err
	}
	if outT, err = tensorOut(c, 0); err != nil {
		return nil, nil, err
	}
	if pvT.Rank() != 0 || pvT.DType != inT.DType || outT.DType != inT.DType {
		return nil, nil, c.Errorf("operand %s, padding value %s and result %s must share one element type, with a 0-d padding value", inT.ShapeString(), pvT.ShapeString(), outT.ShapeString())
	}
	return inT, outT, nil
}

func compilePad(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, outT, err := checkPadTypes(c)
	if err != nil {
		return nil, err
	}
	lo, err := reqInts(c, "edge_padding_low", "low")
	if err != nil {
		return nil, err
	}
	hi, err := reqInts(c, "edge_padding_high", "high")
	if err != nil {
		return nil, err
	}
	interior, ok, err := intsAttr(c, "interior_padding", "interior")
	if err != nil {
		return nil, err
	}
	if !ok {
		interior = make([]int64, len(lo))
	}
	es := inT.DType.Size()
	var static *padPlan
	if inT.IsStatic() {
		if static, err = newPadPlan(inT.Dims, lo, hi, interior, es); err != nil {
			return nil, c.Errorf("%v (operand %s)", err, inT.ShapeString())
		}
		if err := matchDims(outT, static.outDims); err != nil {
			return nil, c.Errorf("%v (operand %s)", err, inT.ShapeString())
		}
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		pv, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		p := static
		if p == nil {
			if p, err = newPadPlan(in.Dims, lo, hi, interior, es); err != nil {
				return runErr(op, "%v (operand %s)", err, in.ShapeString())
			}
		}
		results[0] = p.run(x, in, pv)
		return nil
	}, nil
}

func compileDynamicPad(c *kernel.OpCtx) (kernel.RunFn, error) {
	inT, outT, err := checkPadTypes(c)
	if err != nil {
		return nil, err
	}
	if len(c.In) != 5 {
		return nil, c.Errorf("takes operand, padding_value, edge_padding_low, edge_padding_high and interior_padding, has %d operands", len(c.In))
	}
	names := []string{"edge_padding_low", "edge_padding_high", "interior_padding"}
	for i, n := range names {
		if err := checkShapeOperand(c, i+2, n); err != nil {
			return nil, err
		}
	}
	op := c.Op
	es := inT.DType.Size()
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		in, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		pv, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		var v [3][]int64
		for i := range v {
			l, err := lit(op, args, i+2)
			if err != nil {
				return err
			}
			if v[i], err = readShape(op, names[i], l); err != nil {
				return err
			}
		}
		p, err := newPadPlan(in.Dims, v[0], v[1], v[2], es)
		if err != nil {
			return runErr(op, "%v (operand %s)", err, in.ShapeString())
		}
		if err := matchDims(outT, p.outDims); err != nil {
			return runErr(op, "%v (operand %s)", err, in.ShapeString())
		}
		if err := x.CheckAlloc(op, in.DType, p.outDims); err != nil {
			return err
		}
		results[0] = p.run(x, in, pv)
		return nil
	}, nil
}
