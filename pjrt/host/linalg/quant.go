package linalg

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Quantized products: dot_general, dot, convolution and dynamic_conv with
// !quant.uniform operands. A quantized literal holds storage integers (its
// DType is the storage type), as in package elementwise.
//
// The spec defines two forms:
//
//   - quantized (lhs per-tensor, rhs per-tensor or per-axis, result
//     quantized): dequantize_op_quantize. Dequantization is affine, so the
//     product of the dequantized operands is s_l*s_r[k] * sum((l-z_l) *
//     (r-z_r)), k the rhs's quantization index of the output element (the
//     spec keeps the rhs axis out of the contracting dimensions). The sum
//     of centred storage integers runs on the f64 kernels, exact for 8- and
//     16-bit storage (products below 2^34, sums far below 2^53); the result
//     is then quantized once: round_nearest_even(clamp(acc * s_l*s_r[k] /
//     s_o[j] + z_o[j])). This is the exact-arithmetic value of
//     dequantize_op_quantize, not one rounded at each step in the expressed
//     type, and equals the integer lowering upstream's interpreter runs
//     whenever its combined scale is 1 (i32 results of scale s_l*s_r).
//   - hybrid (float lhs and result, quantized rhs): hybrid_dequantize_then_op,
//     the float op on the dequantized rhs, literally.
//
// Operands without quantized types never reach this file's code at run
// time: quantAware hands them to the float compile function unchanged.

// rhsAxisFn maps a per-axis rhs's quantization dimension to the result
// dimension that carries it, or fails when the op's constraints forbid the
// axis (a contracting dimension).
type rhsAxisFn func(c *kernel.OpCtx, lt, rt *hlo.TensorType, axis int) (int, error)

// quantAware wraps a product's compile function so that it also takes
// quantized operands and results.
func quantAware(compile kernel.CompileFn, rhsAxis rhsAxisFn) kernel.CompileFn {
	return func(c *kernel.OpCtx) (kernel.RunFn, error) {
		for _, ts := range [][]hlo.Type{c.In, c.Out} {
			for _, t := range ts {
				if quantOf(t) != nil {
					return compileQuantProduct(c, compile, rhsAxis)
				}
			}
		}
		return compile(c)
	}
}

func quantOf(t hlo.Type) *hlo.QuantType {
	if tt, ok := t.(*hlo.TensorType); ok {
		return tt.Quant
	}
	return nil
}

// quantTensor returns a static tensor type and checks its quantization, if
// any, against the type's shape.
func quantTensor(c *kernel.OpCtx, what string, t hlo.Type) (*hlo.TensorType, error) {
	tt, ok := t.(*hlo.TensorType)
	if !ok {
		return nil, c.Errorf("%s is %s, not a tensor", what, t)
	}
	if !tt.IsStatic() {
		return nil, c.Errorf("%s has dynamic shape %s", what, tt)
	}
	q := tt.Quant
	if q == nil {
		return tt, nil
	}
	if !q.Storage.IsInt() || !q.Expressed.IsFloat() || len(q.Scales) == 0 || len(q.Scales) != len(q.ZeroPoints) {
		return nil, c.Errorf("%s: quantized type %s is not supported (integer storage and float expressed types)", what, tt)
	}
	if q.Axis >= 0 && (q.Axis >= tt.Rank() || int64(len(q.Scales)) != tt.Dims[q.Axis]) {
		return nil, c.Errorf("%s: %s has %d scales for quantization dimension %d", what, tt, len(q.Scales), q.Axis)
	}
	return tt, nil
}

func compileQuantProduct(c *kernel.OpCtx, compile kernel.CompileFn, rhsAxis rhsAxisFn) (kernel.RunFn, error) {
	if len(c.In) < 2 || len(c.Out) != 1 {
		return nil, c.Errorf("expects at least 2 operands and 1 result, has %d and %d", len(c.In), len(c.Out))
	}
	lt, err := quantTensor(c, "lhs", c.In[0])
	if err != nil {
		return nil, err
	}
	rt, err := quantTensor(c, "rhs", c.In[1])
	if err != nil {
		return nil, err
	}
	ot, err := quantTensor(c, "result", c.Out[0])
	if err != nil {
		return nil, err
	}
	for i := 2; i < len(c.In); i++ {
		if quantOf(c.In[i]) != nil {
			return nil, c.Errorf("operand %d: quantized type %s is not allowed", i, c.In[i])
		}
	}
	lq, rq, oq := lt.Quant, rt.Quant, ot.Quant
	switch {
	case lq == nil && rq != nil && oq == nil:
		if lt.DType != rq.Expressed || ot.DType != rq.Expressed {
			return nil, c.Errorf("hybrid product: lhs %s and result %s must have the rhs's expressed type %s", lt.ShapeString(), ot.ShapeString(), rq.Expressed)
		}
		return compileHybrid(c, compile, rt)
	case lq != nil && rq != nil && oq != nil:
		if lq.Axis >= 0 {
			return nil, c.Errorf("lhs %s: per-axis quantization is not allowed (the spec requires a per-tensor lhs)", lt)
		}
		if lq.Expressed != rq.Expressed || rq.Expressed != oq.Expressed {
			return nil, c.Errorf("lhs %s, rhs %s and result %s must have the same expressed type", lt, rt, ot)
		}
		if lq.Storage.Bits() > 16 || rq.Storage.Bits() > 16 {
			return nil, c.Errorf("lhs %s, rhs %s: storage wider than 16 bits is not supported (the f64 accumulation would not be exact)", lt, rt)
		}
		return compileQuantized(c, compile, rhsAxis, lt, rt, ot)
	}
	return nil, c.Errorf("operands %s, %s and result %s: the spec allows a quantized lhs, rhs and result, or a float lhs and result with a quantized rhs", c.In[0], c.In[1], c.Out[0])
}

// compileHybrid runs the float op on the dequantized rhs.
func compileHybrid(c *kernel.OpCtx, compile kernel.CompileFn, rt *hlo.TensorType) (kernel.RunFn, error) {
	fc := *c
	fc.In = append([]hlo.Type(nil), c.In...)
	fc.In[1] = hlo.NewTensorType(rt.Quant.Expressed, rt.Dims...)
	inner, err := compile(&fc)
	if err != nil {
		return nil, err
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		r, err := argLiteral(c, args, 1)
		if err != nil {
			return err
		}
		if r.DType != rt.DType || r.NumElements() != int(rt.NumElements()) {
			return c.Errorf("rhs %s does not match %s", r.ShapeString(), rt)
		}
		in := append([]kernel.Value(nil), args...)
		d := dequantize(x, r, rt)
		in[1] = d
		err = inner(x, in, results)
		putBack(x, d)
		return err
	}, nil
}

// compileQuantized runs the op on centred storage integers in f64 and
// quantizes the sums into the result's storage.
func compileQuantized(c *kernel.OpCtx, compile kernel.CompileFn, rhsAxis rhsAxisFn, lt, rt, ot *hlo.TensorType) (kernel.RunFn, error) {
	fc := *c
	fc.In = append([]hlo.Type(nil), c.In...)
	fc.In[0] = hlo.NewTensorType(hlo.F64, lt.Dims...)
	fc.In[1] = hlo.NewTensorType(hlo.F64, rt.Dims...)
	fc.Out = []hlo.Type{hlo.NewTensorType(hlo.F64, ot.Dims...)}
	inner, err := compile(&fc)
	if err != nil {
		return nil, err
	}
	lq, rq, oq := lt.Quant, rt.Quant, ot.Quant
	rOut := -1 // result dimension indexing the rhs's scales
	if rq.Axis >= 0 {
		if rOut, err = rhsAxis(c, lt, rt, rq.Axis); err != nil {
			return nil, err
		}
	}
	lo, hi := storageRange(oq)
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, r, err := argPair(c, args)
		if err != nil {
			return err
		}
		if l.DType != lt.DType || l.NumElements() != int(lt.NumElements()) || r.DType != rt.DType || r.NumElements() != int(rt.NumElements()) {
			return c.Errorf("operands %s, %s do not match %s, %s", l.ShapeString(), r.ShapeString(), lt, rt)
		}
		in := append([]kernel.Value(nil), args...)
		lc, rc := centred(x, l, lt), centred(x, r, rt)
		in[0], in[1] = lc, rc
		var res [1]kernel.Value
		err = inner(x, in, res[:])
		putBack(x, lc)
		putBack(x, rc)
		if err != nil {
			return err
		}
		acc, ok := res[0].(*hlo.Literal)
		if !ok || acc.DType != hlo.F64 {
			return c.Errorf("internal: f64 product returned %T", res[0])
		}
		out := x.NewLiteralUninit(oq.Storage, ot.Dims)
		ls := lq.Scales[0]
		for i, v := range acc.F64() {
			kr, ko := axisIndex(i, ot.Dims, rOut), axisIndex(i, ot.Dims, oq.Axis)
			if rq.Axis < 0 {
				kr = 0
			}
			m := ls * rq.Scales[kr] / oq.Scales[ko]
			out.SetBits(i, uint64(roundClamp(v*m+float64(oq.ZeroPoints[ko]), lo, hi)))
		}
		putBack(x, acc)
		results[0] = out
		return nil
	}, nil
}

// axisIndex returns, for element i of a tensor with dims, its index along
// axis (0 for axis < 0).
func axisIndex(i int, dims []int64, axis int) int {
	if axis < 0 {
		return 0
	}
	inner := int(hlo.NumElements(dims[axis+1:]))
	return i / inner % int(dims[axis])
}

// centred converts quantized storage to f64 values s - z (z the zero point
// of the element's slice along the quantization axis).
func centred(x *kernel.Ctx, src *hlo.Literal, t *hlo.TensorType) *hlo.Literal {
	q := t.Quant
	out := x.NewLiteralUninit(hlo.F64, t.Dims)
	f := out.F64()
	if q.Axis < 0 {
		z := q.ZeroPoints[0]
		for i := range f {
			f[i] = float64(src.Int(i) - z)
		}
		return out
	}
	for i := range f {
		f[i] = float64(src.Int(i) - q.ZeroPoints[axisIndex(i, t.Dims, q.Axis)])
	}
	return out
}

// dequantize converts quantized storage to the expressed type as the
// spec's dequantize does: convert(s - z, E) * scale, with the scale a
// constant of E and the product rounded to E (exact in f64 before that
// rounding for f32 and narrower types).
func dequantize(x *kernel.Ctx, src *hlo.Literal, t *hlo.TensorType) *hlo.Literal {
	q := t.Quant
	e := q.Expressed
	out := x.NewLiteralUninit(e, t.Dims)
	scales := make([]float64, len(q.Scales))
	for k, s := range q.Scales {
		scales[k] = roundTo(e, s)
	}
	for i := 0; i < out.NumElements(); i++ {
		k := axisIndex(i, t.Dims, q.Axis)
		out.SetFloat(i, roundTo(e, float64(src.Int(i)-q.ZeroPoints[k]))*scales[k])
	}
	return out
}

// roundTo rounds v to float type dt.
func roundTo(dt hlo.DType, v float64) float64 {
	switch dt {
	case hlo.F64:
		return v
	case hlo.F32:
		return float64(float32(v))
	}
	return hlo.FloatBitsToFloat64(dt, hlo.Float64ToFloatBits(dt, v))
}

// storageRange is a quantized type's storage range: its explicit
// <min:max>, else the storage type's.
func storageRange(q *hlo.QuantType) (lo, hi int64) {
	w := q.Storage.Bits()
	switch {
	case q.Storage.IsUnsigned() && w >= 63:
		lo, hi = 0, math.MaxInt64
	case q.Storage.IsUnsigned():
		lo, hi = 0, 1<<w-1
	case w >= 64:
		lo, hi = math.MinInt64, math.MaxInt64
	default:
		lo, hi = -1<<(w-1), 1<<(w-1)-1
	}
	if q.StorageMin != nil {
		lo = *q.StorageMin
	}
	if q.StorageMax != nil {
		hi = *q.StorageMax
	}
	return lo, hi
}

// roundClamp is quantize's last steps: clamp to the storage range, round
// half to even, convert (NaN gives 0, as convert does).
func roundClamp(v float64, lo, hi int64) int64 {
	if v != v {
		return 0
	}
	v = min(max(v, float64(lo)), float64(hi))
	r := math.RoundToEven(v)
	if r >= float64(hi) {
		return hi // float64(hi) may round above hi for 64-bit storage
	}
	return int64(r)
}

// putBack returns a scratch literal's storage to the run's pool.
func putBack(x *kernel.Ctx, l *hlo.Literal) {
	if x != nil {
		x.Pool.Put(l)
	}
}

// dotGeneralRhsAxis maps dot_general's rhs quantization dimension to the
// result: a batching dimension keeps its position, a free one follows the
// batching and lhs free dimensions; a contracting one is an error (C16).
func dotGeneralRhsAxis(c *kernel.OpCtx, lt, rt *hlo.TensorType, axis int) (int, error) {
	a, ok := c.Op.Attr("dot_dimension_numbers").(*hlo.DotDimsAttr)
	if !ok {
		return 0, c.Errorf("missing or malformed dot_dimension_numbers")
	}
	return dotRhsAxis(c, lt, rt, dotDims{a.LhsBatchingDims, a.RhsBatchingDims, a.LhsContractingDims, a.RhsContractingDims}, axis)
}

// dotRhsAxisLegacy is dotGeneralRhsAxis for the legacy dot: lhs's last dimension
// contracts with rhs's first.
func dotRhsAxisLegacy(c *kernel.OpCtx, lt, rt *hlo.TensorType, axis int) (int, error) {
	return dotRhsAxis(c, lt, rt, dotDims{lc: []int64{int64(lt.Rank() - 1)}, rc: []int64{0}}, axis)
}

func dotRhsAxis(c *kernel.OpCtx, lt, rt *hlo.TensorType, d dotDims, axis int) (int, error) {
	for j, b := range d.rb {
		if int(b) == axis {
			return j, nil
		}
	}
	for _, k := range d.rc {
		if int(k) == axis {
			return 0, c.Errorf("rhs %s: quantization dimension %d is a contracting dimension", rt, axis)
		}
	}
	lFree, err := freeDims(lt.Rank(), d.lb, d.lc)
	if err != nil {
		return 0, c.Errorf("lhs %s: %v", lt.ShapeString(), err)
	}
	rFree, err := freeDims(rt.Rank(), d.rb, d.rc)
	if err != nil {
		return 0, c.Errorf("rhs %s: %v", rt.ShapeString(), err)
	}
	for j, f := range rFree {
		if int(f) == axis {
			return len(d.rb) + len(lFree) + j, nil
		}
	}
	return 0, c.Errorf("rhs %s: quantization dimension %d out of range", rt, axis)
}

// convRhsAxis maps a convolution's rhs quantization dimension, which must
// be the kernel output feature dimension (C29), to the output feature
// dimension.
func convRhsAxis(c *kernel.OpCtx, lt, rt *hlo.TensorType, axis int) (int, error) {
	dn, ok := c.Op.Attr("dimension_numbers").(*hlo.ConvDimsAttr)
	if !ok {
		return 0, c.Errorf("missing or malformed dimension_numbers")
	}
	if int64(axis) != dn.KernelOutputFeatureDim {
		return 0, c.Errorf("rhs %s: quantization dimension %d is not the kernel output feature dimension %d", rt, axis, dn.KernelOutputFeatureDim)
	}
	return int(dn.OutputFeatureDim), nil
}
