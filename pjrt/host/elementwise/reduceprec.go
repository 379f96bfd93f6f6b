package elementwise

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// reduce_precision rounds each value's mantissa to mantissa_bits (to
// nearest, ties to even) and then flushes exponents outside the range of
// exponent_bits to signed zero or infinity, working on the bit pattern as
// XLA and the reference interpreter do. NaN stays NaN unless no mantissa
// bit is left, when it becomes +infinity (as the reference).

func init() {
	kernel.Register(ew("reduce_precision", costCheap, prepReducePrecision))
}

// mantissaBits is the number of explicit mantissa bits of each float type.
var mantissaBits = map[hlo.DType]int{
	hlo.F16: 10, hlo.BF16: 7, hlo.F32: 23, hlo.F64: 52, hlo.TF32: 10,
	hlo.F8E5M2: 2, hlo.F8E5M2FNUZ: 2, hlo.F8E4M3: 3, hlo.F8E4M3FN: 3, hlo.F8E4M3FNUZ: 3,
	hlo.F8E4M3B11FNUZ: 3, hlo.F8E3M4: 4, hlo.F8E8M0FNU: 0,
	hlo.F6E2M3FN: 3, hlo.F6E3M2FN: 2, hlo.F4E2M1FN: 1,
}

type reducer struct {
	width, srcM, srcE int
	eb, mb            int
}

func prepReducePrecision(c *kernel.OpCtx) (kernel.TileFn, error) {
	dt, err := sameTypes(c, 1)
	if err != nil {
		return nil, err
	}
	m, ok := mantissaBits[dt]
	if !ok {
		return nil, unsupported(c, dt)
	}
	eb, ok1 := c.Int("exponent_bits")
	mb, ok2 := c.Int("mantissa_bits")
	if !ok1 || !ok2 || eb < 1 || mb < 0 {
		return nil, c.Errorf("needs exponent_bits >= 1 and mantissa_bits >= 0 attributes")
	}
	r := reducer{width: dt.Bits(), srcM: m, srcE: dt.Bits() - m - 1, eb: int(eb), mb: int(mb)}
	switch dt {
	case hlo.F32:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d := view[uint32](dst, lo, hi)
			for i, v := range view[uint32](srcs[0], lo, hi) {
				nan := v&0x7f800000 == 0x7f800000 && v&0x7fffff != 0
				d[i] = uint32(r.apply(uint64(v), nan))
			}
		}, nil
	case hlo.F64:
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			d := view[uint64](dst, lo, hi)
			for i, v := range view[uint64](srcs[0], lo, hi) {
				d[i] = r.apply(v, math.IsNaN(math.Float64frombits(v)))
			}
		}, nil
	}
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		src := srcs[0]
		for i := lo; i < hi; i++ {
			v := src.Bits(i) & mask(uint(r.width))
			nan := math.IsNaN(hlo.FloatBitsToFloat64(dt, v))
			dst.SetBits(i, r.apply(v, nan))
		}
	}, nil
}

func (r *reducer) apply(v uint64, nan bool) uint64 {
	x := v
	if r.mb < r.srcM {
		sh := uint(r.srcM - r.mb)
		last := uint64(1) << sh
		bias := last>>1 - 1 + (x&last)>>sh
		x = (x + bias) &^ (last - 1)
	}
	if r.eb < r.srcE {
		sign := uint64(1) << uint(r.width-1)
		expMask := mask(uint(r.srcE)) << uint(r.srcM)
		bias := uint64(1)<<uint(r.srcE-1) - 1
		rbias := uint64(1)<<uint(r.eb-1) - 1
		e := x & expMask
		switch {
		case e > (bias+rbias)<<uint(r.srcM):
			x = x&sign | expMask
		case e <= (bias-rbias)<<uint(r.srcM):
			x &= sign
		}
	}
	x &= mask(uint(r.width))
	if nan {
		if r.mb > 0 {
			return v
		}
		return mask(uint(r.srcE)) << uint(r.srcM) // +infinity
	}
	return x
}
