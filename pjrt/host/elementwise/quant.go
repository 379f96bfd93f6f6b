package elementwise

import (
	"math"
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Quantized tensors (!quant.uniform). A quantized literal holds storage
// integers (its DType is the storage type). Elementwise ops on per-tensor
// quantized operands follow the spec's dequantize_op_quantize: dequantize
// the operands to the expressed type, run the op's float kernel, quantize
// the result: round_nearest_even(clamp(x / scale + zero_point)). compare
// and select dequantize their quantized operands the same way.
// uniform_quantize and uniform_dequantize also handle per-axis types.

func init() {
	kernel.Register(
		kernel.Entry{Name: "stablehlo.uniform_quantize", Compile: compileUniformQuantize, Fresh: true},
		kernel.Entry{Name: "stablehlo.uniform_dequantize", Compile: compileUniformDequantize, Fresh: true},
	)
}

// quantParams are one scale and zero point with the storage range.
type quantParams struct {
	scale    float64
	zp       int64
	min, max int64
}

// quantOf returns the parameters of quantized type q for slice index k
// along its axis (k is ignored for per-tensor types).
func quantOf(q *hlo.QuantType, k int) quantParams {
	if q.Axis < 0 {
		k = 0
	}
	var p quantParams
	if k < len(q.Scales) {
		p.scale = q.Scales[k]
	}
	if k < len(q.ZeroPoints) {
		p.zp = q.ZeroPoints[k]
	}
	r := rangeOf(q.Storage)
	p.min, p.max = r.minV, r.maxV
	if q.StorageMin != nil {
		p.min = *q.StorageMin
	}
	if q.StorageMax != nil {
		p.max = *q.StorageMax
	}
	return p
}

// dequantize maps a storage integer to the expressed value: (s - zp) *
// scale, in float32 arithmetic for f32 expressed types (the spec computes
// in the expressed type) and float64 otherwise.
func (p *quantParams) dequantize(s int64, expressed hlo.DType) float64 {
	if expressed == hlo.F32 {
		return float64(float32(s-p.zp) * float32(p.scale))
	}
	return float64(s-p.zp) * p.scale
}

// quantize maps an expressed value to storage: round_nearest_even(clamp(
// min, x / scale + zp, max)), in the expressed type's arithmetic as above,
// converted as convert does (NaN gives 0).
func (p *quantParams) quantize(x float64, expressed hlo.DType) int64 {
	var v float64
	if expressed == hlo.F32 {
		v = float64(float32(x)/float32(p.scale) + float32(p.zp))
	} else {
		v = x/p.scale + float64(p.zp)
	}
	if v != v {
		return 0 // clamp and rounding keep NaN; converting it gives 0
	}
	v = min(max(v, float64(p.min)), float64(p.max))
	return int64(math.RoundToEven(v))
}

// quantized returns t's quantization (nil for plain tensors).
func quantized(t hlo.Type) *hlo.QuantType {
	if tt, ok := t.(*hlo.TensorType); ok {
		return tt.Quant
	}
	return nil
}

// expressedType is t with its quantized element type replaced by the
// expressed type.
func expressedType(t hlo.Type) hlo.Type {
	tt, ok := t.(*hlo.TensorType)
	if !ok || tt.Quant == nil {
		return t
	}
	return hlo.NewTensorType(tt.Quant.Expressed, tt.Dims...)
}

// quantAware lets an elementwise op's prepare function take per-tensor
// quantized operands and results: it prepares the op for the expressed
// types and wraps the kernel in dequantization and quantization.
func quantAware(prep prepFn) prepFn {
	return func(c *kernel.OpCtx) (kernel.TileFn, error) {
		any := false
		check := func(t hlo.Type) error {
			if q := quantized(t); q != nil {
				if q.Axis >= 0 {
					return c.Errorf("per-axis quantized %s is not supported by this op (the spec defines per-tensor only)", t)
				}
				if !q.Expressed.IsFloat() || !q.Storage.IsInt() {
					return c.Errorf("quantized type %s is not supported", t)
				}
				any = true
			}
			return nil
		}
		for _, ts := range [2][]hlo.Type{c.In, c.Out} {
			for _, t := range ts {
				if err := check(t); err != nil {
					return nil, err
				}
			}
		}
		if !any {
			return prep(c)
		}
		fc := *c
		fc.In, fc.Out = make([]hlo.Type, len(c.In)), make([]hlo.Type, len(c.Out))
		for i, t := range c.In {
			fc.In[i] = expressedType(t)
		}
		for i, t := range c.Out {
			fc.Out[i] = expressedType(t)
		}
		inner, err := prep(&fc)
		if err != nil {
			return nil, err
		}
		return quantTile(c, &fc, inner), nil
	}
}

// quantScratch holds one chunk of expressed values per operand and for the
// result: owned buffers, and literal headers the float kernel reads and
// writes (over the buffers or over the caller's storage).
type quantScratch struct {
	bufs [][]byte
	lits []hlo.Literal
	ptrs []*hlo.Literal
	f    [chunkLen]float64
}

var quantPool sync.Pool

func quantTile(c, fc *kernel.OpCtx, inner kernel.TileFn) kernel.TileFn {
	n := len(c.In)
	inQ := make([]*quantParams, n)
	inDT := make([]hlo.DType, n)
	encs := make([]encoder, n)
	for i, t := range c.In {
		inDT[i] = fc.InTensor(i).DType
		if q := quantized(t); q != nil {
			p := quantOf(q, 0)
			inQ[i] = &p
			encs[i] = floatEncoder(inDT[i])
		}
	}
	var outQ *quantParams
	var outDec decoder
	outDT := fc.OutTensor(0).DType
	if q := quantized(c.Out[0]); q != nil {
		p := quantOf(q, 0)
		outQ = &p
		outDec = floatDecoder(outDT)
	}
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		sc, _ := quantPool.Get().(*quantScratch)
		if sc == nil {
			sc = &quantScratch{}
		}
		if len(sc.lits) < n+1 {
			sc.lits = make([]hlo.Literal, n+1)
			sc.ptrs = make([]*hlo.Literal, n)
			sc.bufs = make([][]byte, n+1)
			for i := range sc.bufs {
				sc.bufs[i] = hlo.AlignedBytes(chunkLen * 16)
			}
		}
		f := sc.f[:]
		for s := lo; s < hi; s += chunkLen {
			m := min(chunkLen, hi-s)
			for i, src := range srcs {
				// A one-element operand of a longer range is a scalar
				// operand (select, clamp): it is passed whole.
				a, b := s, s+m
				if src.NumElements() == 1 && (hi-lo > 1 || lo > 0) {
					a, b = 0, 1
				}
				l := &sc.lits[i]
				sc.ptrs[i] = l
				if inQ[i] == nil {
					sz := src.DType.Size()
					l.DType, l.Data = src.DType, src.Data[a*sz:b*sz]
					continue
				}
				for k := a; k < b; k++ {
					f[k-a] = inQ[i].dequantize(src.Int(k), inDT[i])
				}
				l.DType, l.Data = inDT[i], sc.bufs[i][:(b-a)*inDT[i].Size()]
				encs[i](l, 0, f[:b-a])
			}
			out := &sc.lits[n]
			if outQ == nil {
				sz := dst.DType.Size()
				out.DType, out.Data = dst.DType, dst.Data[s*sz:(s+m)*sz]
				inner(out, sc.ptrs, 0, m)
				continue
			}
			out.DType, out.Data = outDT, sc.bufs[n][:m*outDT.Size()]
			inner(out, sc.ptrs, 0, m)
			outDec(f[:m], out, 0)
			for k := 0; k < m; k++ {
				dst.SetBits(s+k, uint64(outQ.quantize(f[k], outDT)))
			}
		}
		// Headers must not keep the caller's storage alive in the pool.
		for i := range sc.lits {
			sc.lits[i].Data = nil
		}
		clear(sc.ptrs)
		quantPool.Put(sc)
	}
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

func compileUniformQuantize(c *kernel.OpCtx) (kernel.RunFn, error) {
	in, out := c.InTensor(0), c.OutTensor(0)
	if len(c.In) != 1 || in == nil || out == nil || out.Quant == nil || !out.IsStatic() {
		return nil, c.Errorf("expected a float or quantized operand and a static quantized result, got %s -> %s", typesString(c.In), typesString(c.Out))
	}
	oq := out.Quant
	var dec decoder
	if in.Quant == nil {
		if !in.DType.IsFloat() {
			return nil, c.Errorf("operand %s must be float or quantized", in)
		}
		dec = floatDecoder(in.DType)
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		src, ok := args[0].(*hlo.Literal)
		if !ok || src.NumElements() != int(out.NumElements()) {
			return c.Errorf("operand does not match %s", in)
		}
		dst := x.NewLiteralUninit(oq.Storage, out.Dims)
		var one [1]float64
		for i := 0; i < src.NumElements(); i++ {
			var v float64
			if in.Quant != nil {
				p := quantOf(in.Quant, axisIndex(i, in.Dims, in.Quant.Axis))
				v = p.dequantize(src.Int(i), in.Quant.Expressed)
			} else {
				dec(one[:], src, i)
				v = one[0]
			}
			p := quantOf(oq, axisIndex(i, out.Dims, oq.Axis))
			dst.SetBits(i, uint64(p.quantize(v, oq.Expressed)))
		}
		results[0] = dst
		return nil
	}, nil
}

func compileUniformDequantize(c *kernel.OpCtx) (kernel.RunFn, error) {
	in, out := c.InTensor(0), c.OutTensor(0)
	if len(c.In) != 1 || in == nil || out == nil || in.Quant == nil || !out.DType.IsFloat() || !out.IsStatic() {
		return nil, c.Errorf("expected a quantized operand and a static float result, got %s -> %s", typesString(c.In), typesString(c.Out))
	}
	q := in.Quant
	enc := floatEncoder(out.DType)
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		src, ok := args[0].(*hlo.Literal)
		if !ok || src.NumElements() != int(out.NumElements()) {
			return c.Errorf("operand does not match %s", in)
		}
		dst := x.NewLiteralUninit(out.DType, out.Dims)
		var one [1]float64
		for i := 0; i < src.NumElements(); i++ {
			p := quantOf(q, axisIndex(i, in.Dims, q.Axis))
			one[0] = p.dequantize(src.Int(i), q.Expressed)
			enc(dst, i, one[:])
		}
		results[0] = dst
		return nil
	}, nil
}
