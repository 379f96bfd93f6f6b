package movement

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// stablehlo.torch_index_select (a StableHLO dialect op outside the spec,
// PyTorch's index_select with leading batch dimensions): with d = dim and
// b = batch_dims (b <= d < rank(operand), b <= rank(index), the first b
// dimensions of operand and index equal),
//
//	result shape = operand[:d] ++ index[b:] ++ operand[d+1:]
//	result[p..., q..., s...] = operand[p..., index[p[:b]..., q...], s...]
//
// where p has d indices, q rank(index)-b and s the rest. An index outside
// [0, operand[d]) is a run-time error.

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.torch_index_select", Compile: compileTorchIndexSelect, Fresh: true})
}

func compileTorchIndexSelect(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 2 || len(c.Out) != 1 {
		return nil, c.Errorf("expects 2 operands and 1 result, has %d and %d", len(c.In), len(c.Out))
	}
	inT, outT, err := sameElemTypes(c)
	if err != nil {
		return nil, err
	}
	idxT, err := tensorIn(c, 1)
	if err != nil {
		return nil, err
	}
	if !idxT.DType.IsInt() || idxT.Quant != nil {
		return nil, c.Errorf("index %s must have integer elements", idxT.ShapeString())
	}
	if c.Op.Attr("dim") == nil {
		return nil, c.Errorf("missing attribute dim")
	}
	dim, err := intAttr(c, 0, "dim")
	if err != nil {
		return nil, err
	}
	batch, err := intAttr(c, 0, "batch_dims")
	if err != nil {
		return nil, err
	}
	if err := torchSelectShapes(inT.Dims, idxT.Dims, dim, batch); err != nil {
		return nil, c.Errorf("%v", err)
	}
	want := torchSelectResult(inT.Dims, idxT.Dims, int(dim), int(batch))
	if !hlo.TypesCompatible(outT, hlo.NewTensorType(outT.DType, want...)) {
		return nil, c.Errorf("result type %s does not match the computed shape %s", outT.ShapeString(), hlo.ShapeString(outT.DType, want))
	}
	op := c.Op
	d, b := int(dim), int(batch)
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		src, err := lit(op, args, 0)
		if err != nil {
			return err
		}
		idx, err := lit(op, args, 1)
		if err != nil {
			return err
		}
		if err := torchSelectShapes(src.Dims, idx.Dims, dim, batch); err != nil {
			return runErr(op, "%v", err)
		}
		outDims := torchSelectResult(src.Dims, idx.Dims, d, b)
		out := x.NewLiteralUninit(src.DType, outDims)
		if err := torchSelect(out, src, idx, d, b); err != nil {
			return runErr(op, "%v", err)
		}
		results[0] = out
		return nil
	}, nil
}

// torchSelectShapes checks dim and batch_dims against the shapes (dynamic
// dimensions pass).
func torchSelectShapes(in, idx []int64, dim, batch int64) error {
	switch {
	case dim < 0 || dim >= int64(len(in)):
		return fmt.Errorf("dim %d is outside the operand's rank %d", dim, len(in))
	case batch < 0 || batch > dim || batch > int64(len(idx)):
		return fmt.Errorf("batch_dims %d must be in [0, min(dim %d, index rank %d)]", batch, dim, len(idx))
	}
	for i := int64(0); i < batch; i++ {
		if in[i] >= 0 && idx[i] >= 0 && in[i] != idx[i] {
			return fmt.Errorf("batch dimension %d differs: operand %d, index %d", i, in[i], idx[i])
		}
	}
	return nil
}

func torchSelectResult(in, idx []int64, dim, batch int) []int64 {
	out := append([]int64{}, in[:dim]...)
	out = append(out, idx[batch:]...)
	return append(out, in[dim+1:]...)
}

// torchSelect fills out element by element.
func torchSelect(out, src, idx *hlo.Literal, dim, batch int) error {
	es := src.DType.Size()
	nq := len(idx.Dims) - batch
	o := make([]int64, len(out.Dims))
	ii := make([]int64, len(idx.Dims))
	si := make([]int64, len(src.Dims))
	n := out.NumElements()
	for e := 0; e < n; e++ {
		copy(ii, o[:batch])
		copy(ii[batch:], o[dim:dim+nq])
		k := idx.Int(int(ravelIndex(ii, idx.Dims)))
		if k < 0 || k >= src.Dims[dim] {
			return fmt.Errorf("index %d at %v is outside [0, %d)", k, ii, src.Dims[dim])
		}
		copy(si, o[:dim])
		si[dim] = k
		copy(si[dim+1:], o[dim+nq:])
		s := int(ravelIndex(si, src.Dims))
		copy(out.Data[e*es:(e+1)*es], src.Data[s*es:(s+1)*es])
		for a := len(o) - 1; a >= 0; a-- {
			o[a]++
			if o[a] < out.Dims[a] {
				break
			}
			o[a] = 0
		}
	}
	return nil
}

// ravelIndex is the row-major offset of index i in dims.
func ravelIndex(i, dims []int64) int64 {
	var off int64
	for a, d := range dims {
		off = off*d + i[a]
	}
	return off
}
