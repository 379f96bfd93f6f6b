package linalg

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// batch_norm_training, batch_norm_inference and batch_norm_grad, as the
// spec's decompositions into reduce and elementwise ops define them:
//
//   - mean and variance reduce over every dimension but feature_index,
//     divided by the count N of elements per feature; the variance is the
//     mean of squared deviations from the mean (two passes, as written).
//   - inference: scale * ((x - mean) / sqrt(variance + epsilon)) + offset.
//   - grad: XLA's batchnorm_expander formulas, step by step (i1 ... i6).
//
// Every float type is computed in float64 and rounded once into each
// result, so f64 follows the decomposition's operation order exactly and
// narrower types get the decomposition's exact value rounded once (closer
// than step-by-step rounding). epsilon (an f32 attribute) is a constant of
// the element type, so it is rounded to it, as the decomposition's
// constant(epsilon, element_type(operand)) is. N enters exactly: a
// constant of the element type would round counts above 2048 (f16) or 256
// (bf16), an artefact of low-precision arithmetic this computation avoids.
// The loops are in bnmath.go (their results do not depend on the number
// of workers); bnvalues.go converts tensors to and from float64, and
// per-tensor quantized ones through dequantize_op_quantize.

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.batch_norm_training", Compile: compileBatchNormTraining, Fresh: true},
		kernel.Entry{Name: "stablehlo.batch_norm_inference", Compile: compileBatchNormInference, Fresh: true},
		kernel.Entry{Name: "stablehlo.batch_norm_grad", Compile: compileBatchNormGrad, Fresh: true},
	)
}

// bnOp is a compiled batch_norm op: the feature dimension, epsilon as a
// value of the element type, the operand and result types, and which
// operands have the operand's shape (the others are 1-d per feature).
type bnOp struct {
	c       *kernel.OpCtx
	fi      int
	eps     float64
	in, out []*hlo.TensorType
	full    []bool
}

// compileBN checks a batch_norm op with nIn operands and nOut results;
// full lists the operands and results (operands first, results numbered
// after them) shaped like operand 0, every other one is 1-d of the feature
// size.
func compileBN(c *kernel.OpCtx, nIn, nOut int, full ...int) (*bnOp, error) {
	if len(c.In) != nIn || len(c.Out) != nOut {
		return nil, c.Errorf("expects %d operands and %d results, has %d and %d", nIn, nOut, len(c.In), len(c.Out))
	}
	all := append(append([]hlo.Type{}, c.In...), c.Out...)
	ts := make([]*hlo.TensorType, len(all))
	for i, t := range all {
		tt, ok := t.(*hlo.TensorType)
		if !ok {
			return nil, c.Errorf("%s is %s, not a tensor", bnName(i, nIn), t)
		}
		if q := tt.Quant; q != nil {
			if q.Axis >= 0 || len(q.Scales) != 1 || len(q.ZeroPoints) != 1 || !q.Storage.IsInt() || !q.Expressed.IsFloat() {
				return nil, c.Errorf("%s: %s is not a per-tensor quantized type with integer storage and a float expressed type", bnName(i, nIn), tt)
			}
		} else if !tt.DType.IsFloat() {
			return nil, c.Errorf("%s: %s is not a floating-point tensor", bnName(i, nIn), tt)
		}
		ts[i] = tt
	}
	x := ts[0]
	for i, t := range ts {
		if valueType(t) != valueType(x) || (t.Quant == nil) != (x.Quant == nil) {
			return nil, c.Errorf("%s %s and operand %s have different element types", bnName(i, nIn), t, x)
		}
	}
	fi, ok := c.Int("feature_index")
	if !ok {
		return nil, c.Errorf("missing integer attribute feature_index")
	}
	if fi < 0 || fi >= int64(x.Rank()) {
		return nil, c.Errorf("feature_index %d is out of range for operand %s", fi, x)
	}
	a := c.Op.Attr("epsilon")
	if a == nil {
		return nil, c.Errorf("missing float attribute epsilon")
	}
	eps, ok := hlo.AttrFloat(a)
	if !ok {
		return nil, c.Errorf("attribute epsilon = %s is not a float", hlo.AttrString(a))
	}
	b := &bnOp{c: c, fi: int(fi), eps: roundTo(valueType(x), float64(float32(eps))), in: ts[:nIn], out: ts[nIn:]}
	b.full = make([]bool, len(ts))
	for _, k := range full {
		b.full[k] = true
	}
	f := x.Dims[fi]
	for i, t := range ts {
		switch {
		case b.full[i]:
			if !dimsMatch(t.Dims, x.Dims) {
				return nil, c.Errorf("%s %s does not have the shape of operand %s", bnName(i, nIn), t, x)
			}
		case t.Rank() != 1 || !dimsMatch(t.Dims, []int64{f}):
			return nil, c.Errorf("%s %s is not 1-d of the feature size %d of operand %s (feature_index %d)", bnName(i, nIn), t, f, x, fi)
		}
	}
	return b, nil
}

func bnName(i, nIn int) string {
	if i < nIn {
		return fmt.Sprintf("operand #%d", i)
	}
	return fmt.Sprintf("result #%d", i-nIn)
}

// dimsMatch compares shapes whose dynamic sizes match anything.
func dimsMatch(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i] >= 0 && b[i] >= 0 {
			return false
		}
	}
	return true
}

// bnRun is one execution: the operands as literals with the layout.
type bnRun struct {
	g       bnLayout
	lits    []*hlo.Literal
	scratch []*hlo.Literal
}

// start reads the operands, checks their run-time shapes and derives the
// layout.
func (b *bnOp) start(args []kernel.Value) (*bnRun, error) {
	r := &bnRun{lits: make([]*hlo.Literal, len(args))}
	for i := range args {
		l, err := argLiteral(b.c, args, i)
		if err != nil {
			return nil, err
		}
		r.lits[i] = l
	}
	dims := r.lits[0].Dims
	r.g = bnLayout{outer: int(hlo.NumElements(dims[:b.fi])), feat: int(dims[b.fi]), inner: int(hlo.NumElements(dims[b.fi+1:]))}
	for i, l := range r.lits[1:] {
		switch {
		case b.full[i+1]:
			if !dimsEqual(l.Dims, dims) {
				return nil, b.c.Errorf("operand #%d %s does not have the shape of operand %s", i+1, l.ShapeString(), r.lits[0].ShapeString())
			}
		case len(l.Dims) != 1 || int(l.Dims[0]) != r.g.feat:
			return nil, b.c.Errorf("operand #%d %s is not 1-d of the feature size %d of operand %s", i+1, l.ShapeString(), r.g.feat, r.lits[0].ShapeString())
		}
	}
	return r, nil
}

// values returns operand i as float64 values.
func (r *bnRun) values(x *kernel.Ctx, b *bnOp, i int) []float64 {
	v, s := bnLoad(x, r.lits[i], b.in[i])
	if s != nil {
		r.scratch = append(r.scratch, s)
	}
	return v
}

func (r *bnRun) done(x *kernel.Ctx) {
	for _, s := range r.scratch {
		putBack(x, s)
	}
}

func compileBatchNormInference(c *kernel.OpCtx) (kernel.RunFn, error) {
	b, err := compileBN(c, 5, 1, 0, 5)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		r, err := b.start(args)
		if err != nil {
			return err
		}
		defer r.done(x)
		xs := r.values(x, b, 0)
		out := newBNOut(x, b.out[0], r.lits[0].Dims)
		r.g.normalize(out.vals, xs, r.values(x, b, 1), r.values(x, b, 2), r.values(x, b, 3), r.values(x, b, 4), b.eps)
		results[0] = out.store(x)
		return nil
	}, nil
}

func compileBatchNormTraining(c *kernel.OpCtx) (kernel.RunFn, error) {
	b, err := compileBN(c, 3, 3, 0, 3)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		r, err := b.start(args)
		if err != nil {
			return err
		}
		defer r.done(x)
		fd := []int64{int64(r.g.feat)}
		out := newBNOut(x, b.out[0], r.lits[0].Dims)
		mean := newBNOut(x, b.out[1], fd)
		variance := newBNOut(x, b.out[2], fd)
		xs := r.values(x, b, 0)
		r.g.meanVar(xs, mean.vals, variance.vals)
		r.g.normalize(out.vals, xs, r.values(x, b, 1), r.values(x, b, 2), mean.vals, variance.vals, b.eps)
		results[0], results[1], results[2] = out.store(x), mean.store(x), variance.store(x)
		return nil
	}, nil
}

func compileBatchNormGrad(c *kernel.OpCtx) (kernel.RunFn, error) {
	b, err := compileBN(c, 5, 3, 0, 4, 5)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		r, err := b.start(args)
		if err != nil {
			return err
		}
		defer r.done(x)
		fd := []int64{int64(r.g.feat)}
		gradOperand := newBNOut(x, b.out[0], r.lits[0].Dims)
		gradScale := newBNOut(x, b.out[1], fd)
		gradOffset := newBNOut(x, b.out[2], fd)
		xs, gs := r.values(x, b, 0), r.values(x, b, 4)
		r.g.grad(gradOperand.vals, gradScale.vals, gradOffset.vals, xs, gs,
			r.values(x, b, 1), r.values(x, b, 2), r.values(x, b, 3), b.eps)
		results[0], results[1], results[2] = gradOperand.store(x), gradScale.store(x), gradOffset.store(x)
		return nil
	}, nil
}
