package elementwise

import (
	"encoding/binary"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// bitcast_convert reinterprets the bits of the operand, little-endian: an
// element wider than the result's splits into a new trailing dimension,
// lowest bits first, and a narrower one is gathered from the operand's
// trailing dimension. Only the logical bits of each element take part
// (i4 has 4, tf32 19, i1 1); results are stored canonically.

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.bitcast_convert", Compile: compileBitcast, Fresh: true})
}

// byteExact types store exactly their bits, so their storage bytes are
// their bit pattern.
func byteExact(dt hlo.DType) bool { return dt.Size()*8 == dt.Bits() }

func compileBitcast(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("expected 1 operand, got %d", len(c.In))
	}
	in := c.InTensor(0)
	out := c.OutTensor(0)
	if in == nil || out == nil || len(c.Out) != 1 {
		return nil, c.Errorf("expected tensor operand and result, got %s -> %s", typesString(c.In), typesString(c.Out))
	}
	from, to := in.DType, out.DType
	if in.Quant != nil {
		from = in.Quant.Storage
	}
	if out.Quant != nil {
		to = out.Quant.Storage
	}
	wi, wo := from.Bits(), to.Bits()
	switch {
	case wi == wo:
		if len(in.Dims) != len(out.Dims) {
			return nil, c.Errorf("same-width bitcast %s -> %s must keep the shape", in, out)
		}
	case wi > wo:
		if wi%wo != 0 || len(out.Dims) != len(in.Dims)+1 || out.Dims[len(out.Dims)-1] != int64(wi/wo) {
			return nil, c.Errorf("bitcast %s -> %s: the result needs a trailing dimension of %d/%d", in, out, wi, wo)
		}
	default:
		if wo%wi != 0 || len(in.Dims) != len(out.Dims)+1 || (in.IsStatic() && in.Dims[len(in.Dims)-1] != int64(wo/wi)) {
			return nil, c.Errorf("bitcast %s -> %s: the operand needs a trailing dimension of %d/%d", in, out, wo, wi)
		}
	}
	op := c.Op
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		src, ok := args[0].(*hlo.Literal)
		if !ok {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "operand is not a tensor"}
		}
		dims := out.Dims
		if !out.IsStatic() {
			dims = bitcastDims(src.Dims, wi, wo)
		}
		dst := x.NewLiteralUninit(to, dims)
		if len(dst.Data)*8/max(to.Size(), 1)*wo != len(src.Data)*8/max(from.Size(), 1)*wi {
			return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: "operand " + src.ShapeString() + " does not fill result " + dst.ShapeString()}
		}
		if byteExact(from) && byteExact(to) {
			copy(dst.Data, src.Data)
		} else {
			bitcastBits(dst, src, wi, wo)
		}
		results[0] = dst
		return nil
	}, nil
}

func bitcastDims(in []int64, wi, wo int) []int64 {
	switch {
	case wi > wo:
		return append(append([]int64(nil), in...), int64(wi/wo))
	case wi < wo:
		return append([]int64(nil), in[:len(in)-1]...)
	}
	return in
}

// bits128 is one element's bit pattern, up to 128 bits (complex128).
type bits128 struct{ lo, hi uint64 }

func getBits(l *hlo.Literal, i, w int) bits128 {
	s := l.DType.Size()
	if s == 16 {
		b := l.Data[i*16 : i*16+16]
		return bits128{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
	}
	return bits128{lo: l.Bits(i) & mask(uint(w))}
}

func setBits(l *hlo.Literal, i int, v bits128) {
	dt := l.DType
	switch {
	case dt.Size() == 16:
		b := l.Data[i*16 : i*16+16]
		binary.LittleEndian.PutUint64(b, v.lo)
		binary.LittleEndian.PutUint64(b[8:], v.hi)
	case dt.IsBool():
		l.Data[i] = byte(v.lo & 1)
	case dt.IsSigned():
		l.SetBits(i, uint64(hlo.WrapInt(dt, int64(v.lo))))
	default:
		l.SetBits(i, v.lo)
	}
}

func (b bits128) shr(n int) bits128 {
	switch {
	case n == 0:
		return b
	case n >= 64:
		return bits128{lo: b.hi >> uint(n-64)}
	}
	return bits128{lo: b.lo>>uint(n) | b.hi<<uint(64-n), hi: b.hi >> uint(n)}
}

func (b bits128) shl(n int) bits128 {
	switch {
	case n == 0:
		return b
	case n >= 64:
		return bits128{hi: b.lo << uint(n-64)}
	}
	return bits128{lo: b.lo << uint(n), hi: b.hi<<uint(n) | b.lo>>uint(64-n)}
}

func (b bits128) and(m bits128) bits128 { return bits128{b.lo & m.lo, b.hi & m.hi} }
func (b bits128) or(m bits128) bits128  { return bits128{b.lo | m.lo, b.hi | m.hi} }

func mask128(w int) bits128 {
	if w >= 128 {
		return bits128{^uint64(0), ^uint64(0)}
	}
	if w >= 64 {
		return bits128{^uint64(0), mask(uint(w - 64))}
	}
	return bits128{lo: mask(uint(w))}
}

// bitcastBits moves bits one element at a time, for types whose storage
// is wider than their bits.
func bitcastBits(dst, src *hlo.Literal, wi, wo int) {
	switch {
	case wi == wo:
		for i := 0; i < dst.NumElements(); i++ {
			setBits(dst, i, getBits(src, i, wi))
		}
	case wi > wo:
		r := wi / wo
		m := mask128(wo)
		for k := 0; k < src.NumElements(); k++ {
			v := getBits(src, k, wi)
			for t := 0; t < r; t++ {
				setBits(dst, k*r+t, v.shr(t*wo).and(m))
			}
		}
	default:
		r := wo / wi
		for j := 0; j < dst.NumElements(); j++ {
			var v bits128
			for t := 0; t < r; t++ {
				v = v.or(getBits(src, j*r+t, wi).shl(t * wi))
			}
			setBits(dst, j, v)
		}
	}
}
