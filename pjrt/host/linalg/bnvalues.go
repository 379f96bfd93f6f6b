package linalg

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Float64 views of the batch_norm ops' tensors: every element type is
// computed in float64 and rounded once when stored, and per-tensor
// quantized tensors are dequantized on load and quantized on store (the
// spec's dequantize_op_quantize around the float computation).

// valueType is the element type a tensor's values have: the expressed type
// of a quantized tensor, else its element type.
func valueType(t *hlo.TensorType) hlo.DType {
	if t.Quant != nil {
		return t.Quant.Expressed
	}
	return t.DType
}

// bnGrain is the smallest run of elements worth converting on a worker
// of its own.
const bnGrain = 1 << 14

// bnLoad returns l's elements as float64 values: l's own storage when it
// is a plain f64 tensor (scratch nil), else a converted copy in scratch,
// to be handed back with putBack.
func bnLoad(x *kernel.Ctx, l *hlo.Literal, t *hlo.TensorType) (vals []float64, scratch *hlo.Literal) {
	if t.Quant == nil && l.DType == hlo.F64 {
		return l.F64(), nil
	}
	scratch = x.NewLiteralUninit(hlo.F64, l.Dims)
	dst := scratch.F64()
	kernel.ParallelFor(len(dst), bnGrain, func(lo, hi int) { bnDecode(dst, l, t.Quant, lo, hi) })
	return dst, scratch
}

// bnDecode converts elements [lo, hi) of l into dst.
func bnDecode(dst []float64, l *hlo.Literal, q *hlo.QuantType, lo, hi int) {
	switch {
	case q != nil:
		// dequantize: convert(s - z, E) * convert(scale, E), in E.
		e := q.Expressed
		s, z := roundTo(e, q.Scales[0]), q.ZeroPoints[0]
		for i := lo; i < hi; i++ {
			dst[i] = roundTo(e, roundTo(e, float64(l.Int(i)-z))*s)
		}
	case l.DType == hlo.F32:
		for i, v := range l.F32()[lo:hi] {
			dst[lo+i] = float64(v)
		}
	case l.DType == hlo.F16:
		for i, v := range l.Raw16()[lo:hi] {
			dst[lo+i] = float64(hlo.F16ToF32(v))
		}
	case l.DType == hlo.BF16:
		for i, v := range l.Raw16()[lo:hi] {
			dst[lo+i] = float64(hlo.BF16ToF32(v))
		}
	default:
		for i := lo; i < hi; i++ {
			dst[i] = l.Float(i)
		}
	}
}

// bnOut is a result being computed in float64: vals is the result
// literal's own storage for a plain f64 result, else scratch that store
// rounds into the literal.
type bnOut struct {
	lit     *hlo.Literal
	t       *hlo.TensorType
	vals    []float64
	scratch *hlo.Literal
}

func newBNOut(x *kernel.Ctx, t *hlo.TensorType, dims []int64) *bnOut {
	o := &bnOut{lit: x.NewLiteralUninit(t.DType, dims), t: t}
	if t.Quant == nil && t.DType == hlo.F64 {
		o.vals = o.lit.F64()
		return o
	}
	o.scratch = x.NewLiteralUninit(hlo.F64, dims)
	o.vals = o.scratch.F64()
	return o
}

// store rounds the computed values into the result literal (once) and
// returns it.
func (o *bnOut) store(x *kernel.Ctx) *hlo.Literal {
	if o.scratch == nil {
		return o.lit
	}
	kernel.ParallelFor(len(o.vals), bnGrain, func(lo, hi int) { bnEncode(o.lit, o.t.Quant, o.vals, lo, hi) })
	putBack(x, o.scratch)
	o.scratch = nil
	return o.lit
}

// bnEncode rounds src[lo:hi] into elements [lo, hi) of l.
func bnEncode(l *hlo.Literal, q *hlo.QuantType, src []float64, lo, hi int) {
	switch {
	case q != nil:
		bnQuantize(l, q, src, lo, hi)
	case l.DType == hlo.F32:
		for i, v := range src[lo:hi] {
			l.F32()[lo+i] = float32(v)
		}
	case l.DType == hlo.F16 || l.DType == hlo.BF16:
		raw := l.Raw16()
		for i, v := range src[lo:hi] {
			raw[lo+i] = uint16(hlo.Float64ToFloatBits(l.DType, v))
		}
	default:
		for i := lo; i < hi; i++ {
			l.SetFloat(i, src[i])
		}
	}
}

// bnQuantize stores values of the expressed type (rounded to it first)
// as quantize does: round_nearest_even(clamp(x / scale + zero_point)),
// in f32 arithmetic for an f32 expressed type (as package elementwise
// quantizes) and in f64 otherwise; NaN stores 0, as convert does.
func bnQuantize(l *hlo.Literal, q *hlo.QuantType, src []float64, lo, hi int) {
	e := q.Expressed
	s, z := q.Scales[0], q.ZeroPoints[0]
	smin, smax := storageRange(q)
	for i := lo; i < hi; i++ {
		v := roundTo(e, src[i])
		if e == hlo.F32 {
			v = float64(float32(v)/float32(s) + float32(z))
		} else {
			v = v/s + float64(z)
		}
		l.SetInt(i, roundClamp(v, smin, smax))
	}
}
