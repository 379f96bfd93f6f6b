package chlo

import (
	"slices"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(kernel.Entry{Name: "chlo.scan", Compile: compileScan, Fresh: true})
}

// compileScan: chlo.scan(inputs) inits(inits) dimension=d {body}. Step i
// (from the end when is_reverse) calls the body with the inputs' slices at
// i along d (d removed) and the carries; the body returns the outputs'
// slices at i and the next carries. Results: the outputs, then the final
// carries.
func compileScan(c *kernel.OpCtx) (kernel.RunFn, error) {
	dim, ok := c.Int("dimension")
	if !ok || dim < 0 {
		return nil, c.Errorf("missing or negative dimension")
	}
	if len(c.Op.Regions) != 1 || len(c.Op.Regions[0].Blocks) != 1 {
		return nil, c.Errorf("want one body region")
	}
	nIn, err := scanInputs(c, int(dim))
	if err != nil {
		return nil, err
	}
	nInit := len(c.In) - nIn
	nOut := len(c.Out) - nInit
	if nOut < 0 {
		return nil, c.Errorf("%d results cannot hold %d carries", len(c.Out), nInit)
	}
	reverse := false
	if b, ok := c.Op.Attr("is_reverse").(hlo.BoolAttr); ok {
		reverse = bool(b)
	}
	outs, err := c.StaticResults()
	if err != nil {
		return nil, err
	}
	for j := 0; j < nOut; j++ {
		if outs[j].Rank() <= int(dim) {
			return nil, c.Errorf("output %d %s has no dimension %d", j, outs[j], dim)
		}
	}
	body, err := c.Compiler.CompileRegion(c.Op.Regions[0])
	if err != nil {
		return nil, err
	}
	if body.NumResults() != nOut+nInit {
		return nil, c.Errorf("body returns %d values, want %d outputs and %d carries", body.NumResults(), nOut, nInit)
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		ins, err := kernel.TensorArgs(op, args)
		if err != nil {
			return err
		}
		length := int64(0)
		if nIn > 0 {
			length = ins[0].Dims[dim]
		} else if nOut > 0 {
			length = outs[0].Dims[dim]
		}
		carries := make([]kernel.Value, nInit)
		for j := range carries {
			carries[j] = ins[nIn+j]
		}
		steps := make([][]*hlo.Literal, nOut) // per output, per step
		for j := range steps {
			steps[j] = make([]*hlo.Literal, length)
		}
		for s := int64(0); s < length; s++ {
			if err := x.Canceled(); err != nil {
				return kernel.WrapError(op, err)
			}
			i := s
			if reverse {
				i = length - 1 - s
			}
			call := make([]kernel.Value, 0, nIn+nInit)
			for j := 0; j < nIn; j++ {
				call = append(call, dropDim(kernel.SliceDim(ins[j], int(dim), i, 1), int(dim)))
			}
			call = append(call, carries...)
			res, err := body.Run(x, call)
			if err != nil {
				return err
			}
			for j := 0; j < nOut; j++ {
				l, ok := res[j].(*hlo.Literal)
				if !ok {
					return kernel.OpErrorf(op, "body output %d is a %T", j, res[j])
				}
				steps[j][i] = l
			}
			carries = append(carries[:0:0], res[nOut:]...)
		}
		for j := 0; j < nOut; j++ {
			parts := make([]*hlo.Literal, length)
			for i, l := range steps[j] {
				dims := slices.Insert(slices.Clone(l.Dims), int(dim), 1)
				parts[i] = &hlo.Literal{DType: l.DType, Dims: dims, Data: l.Data}
			}
			if length == 0 {
				results[j] = kernel.Alloc(outs[j])
				continue
			}
			results[j] = kernel.ConcatDim(parts, int(dim))
		}
		for j := range carries {
			results[nOut+j] = copyIfAliased(carries[j], args)
		}
		return nil
	}, nil
}

// copyIfAliased clones a carry that is still one of the op's operands (a
// scan of length zero), since the entry promises fresh results.
func copyIfAliased(v kernel.Value, args []kernel.Value) kernel.Value {
	l, ok := v.(*hlo.Literal)
	if !ok {
		return v
	}
	for _, a := range args {
		if a == v {
			return l.Clone()
		}
	}
	return v
}

// dropDim removes size-1 dimension d (sharing the data).
func dropDim(l *hlo.Literal, d int) *hlo.Literal {
	return &hlo.Literal{DType: l.DType, Dims: slices.Delete(slices.Clone(l.Dims), d, d+1), Data: l.Data}
}

// scanInputs returns how many operands are inputs (the rest are inits):
// from operandSegmentSizes when present, else the one split under which
// the body's argument types are the inputs' slices followed by the inits.
func scanInputs(c *kernel.OpCtx, dim int) (int, error) {
	if a := c.Op.Attr("operandSegmentSizes"); a != nil {
		seg, ok := hlo.AttrInts(a)
		if !ok || len(seg) != 2 || int(seg[0]+seg[1]) != len(c.In) {
			return 0, c.Errorf("bad operandSegmentSizes %s", hlo.AttrString(a))
		}
		return int(seg[0]), nil
	}
	args := c.Op.Regions[0].Blocks[0].Args
	if len(args) != len(c.In) {
		return 0, c.Errorf("body takes %d arguments for %d operands", len(args), len(c.In))
	}
	found := -1
	for nIn := 1; nIn <= len(c.In); nIn++ {
		ok := true
		for j := 0; j < len(c.In) && ok; j++ {
			at, _ := args[j].Type.(*hlo.TensorType)
			it := c.InTensor(j)
			if at == nil || it == nil {
				ok = false
				break
			}
			if j < nIn {
				ok = it.Rank() > dim && at.DType == it.DType &&
					slices.Equal(at.Dims, slices.Delete(slices.Clone(it.Dims), dim, dim+1))
			} else {
				ok = at.DType == it.DType && slices.Equal(at.Dims, it.Dims)
			}
		}
		if ok {
			if found >= 0 {
				return 0, c.Errorf("cannot tell inputs from inits (no operandSegmentSizes)")
			}
			found = nIn
		}
	}
	if found < 0 {
		return 0, c.Errorf("body argument types match no split of the operands into inputs and inits")
	}
	return found, nil
}
