package elementwise

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// compare: integers and booleans by value (signedness from the element
// type), floats with IEEE quiet comparisons (compare_type FLOAT, NaN
// unordered) or by IEEE totalOrder (TOTALORDER: -NaN < -Inf < ... < -0 <
// +0 < ... < +Inf < +NaN, EQ comparing bit patterns), complex numbers
// lexicographically by (real, imag).

func init() {
	kernel.Register(ew("compare", costCheap, prepCompare))
}

type direction uint8

const (
	dirEQ direction = iota
	dirNE
	dirGE
	dirGT
	dirLE
	dirLT
)

var directions = map[string]direction{"EQ": dirEQ, "NE": dirNE, "GE": dirGE, "GT": dirGT, "LE": dirLE, "LT": dirLT}

func prepCompare(c *kernel.OpCtx) (kernel.TileFn, error) {
	dt, err := sameOperandTypes(c, 2)
	if err != nil {
		return nil, err
	}
	if rt, err := resultDType(c); err != nil || rt != hlo.Bool {
		return nil, c.Errorf("result must be i1, got %s", typesString(c.Out))
	}
	ds, ok := c.Enum("comparison_direction")
	if !ok {
		return nil, c.Errorf("missing comparison_direction")
	}
	dir, ok := directions[ds]
	if !ok {
		return nil, c.Errorf("unknown comparison_direction %q", ds)
	}
	ct, _ := c.Enum("compare_type")
	if ct == "TOTALORDER" && dt.IsFloat() {
		return totalOrderTile(dt, dir), nil
	}
	switch dt {
	case hlo.Bool, hlo.U2, hlo.U4, hlo.U8:
		return cmpTile[uint8](dir), nil
	case hlo.I2, hlo.I4, hlo.I8:
		return cmpTile[int8](dir), nil
	case hlo.I16:
		return cmpTile[int16](dir), nil
	case hlo.I32:
		return cmpTile[int32](dir), nil
	case hlo.I64:
		return cmpTile[int64](dir), nil
	case hlo.U16:
		return cmpTile[uint16](dir), nil
	case hlo.U32:
		return cmpTile[uint32](dir), nil
	case hlo.U64:
		return cmpTile[uint64](dir), nil
	case hlo.F32:
		return cmpTile[float32](dir), nil
	case hlo.F64:
		return cmpTile[float64](dir), nil
	case hlo.C64:
		return cmpComplexTile[complex64](dir), nil
	case hlo.C128:
		return cmpComplexTile[complex128](dir), nil
	}
	if dt.IsFloat() {
		dec := floatDecoder(dt)
		cmp := cmpSlices[float64](dir)
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			sc := f64Pool.Get().(*f64Scratch)
			for s := lo; s < hi; s += chunkLen {
				n := min(chunkLen, hi-s)
				a, b := sc.bufs[0][:n], sc.bufs[1][:n]
				dec(a, srcs[0], s)
				dec(b, srcs[1], s)
				cmp(view[bool](dst, s, s+n), a, b)
			}
			f64Pool.Put(sc)
		}, nil
	}
	return nil, unsupported(c, dt)
}

func cmpTile[T num](dir direction) kernel.TileFn {
	f := cmpSlices[T](dir)
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		f(view[bool](dst, lo, hi), view[T](srcs[0], lo, hi), view[T](srcs[1], lo, hi))
	}
}

func cmpSlices[T num](dir direction) func(d []bool, a, b []T) {
	switch dir {
	case dirEQ:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] == b[i]
			}
		}
	case dirNE:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] != b[i]
			}
		}
	case dirGE:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] >= b[i]
			}
		}
	case dirGT:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] > b[i]
			}
		}
	case dirLE:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] <= b[i]
			}
		}
	default:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] < b[i]
			}
		}
	}
}

// cmpComplexTile compares (real, imag) pairs lexicographically.
func cmpComplexTile[T cplx](dir direction) kernel.TileFn {
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		d := view[bool](dst, lo, hi)
		a, b := view[T](srcs[0], lo, hi), view[T](srcs[1], lo, hi)
		for i := range d {
			x, y := complex128(a[i]), complex128(b[i])
			switch dir {
			case dirEQ:
				d[i] = x == y
			case dirNE:
				d[i] = x != y
			case dirGE:
				d[i] = real(x) > real(y) || real(x) == real(y) && imag(x) >= imag(y)
			case dirGT:
				d[i] = real(x) > real(y) || real(x) == real(y) && imag(x) > imag(y)
			case dirLE:
				d[i] = real(x) < real(y) || real(x) == real(y) && imag(x) <= imag(y)
			case dirLT:
				d[i] = real(x) < real(y) || real(x) == real(y) && imag(x) < imag(y)
			}
		}
	}
}

// totalOrderTile compares floats by their bit patterns read as
// sign-magnitude integers, which is IEEE totalOrder.
func totalOrderTile(dt hlo.DType, dir direction) kernel.TileFn {
	w := uint(dt.Bits())
	signed := dt != hlo.F8E8M0FNU
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		d := view[bool](dst, lo, hi)
		for i := range d {
			x := totalKey(srcs[0].Bits(lo+i), w, signed)
			y := totalKey(srcs[1].Bits(lo+i), w, signed)
			switch dir {
			case dirEQ:
				d[i] = x == y
			case dirNE:
				d[i] = x != y
			case dirGE:
				d[i] = x >= y
			case dirGT:
				d[i] = x > y
			case dirLE:
				d[i] = x <= y
			case dirLT:
				d[i] = x < y
			}
		}
	}
}

func totalKey(bits uint64, w uint, signed bool) int64 {
	bits &= mask(w)
	if !signed {
		return int64(bits)
	}
	mag := int64(bits & mask(w-1))
	if bits>>(w-1) != 0 {
		return -mag - 1
	}
	return mag
}
