package movement

import (
	"github.com/xlajit/xlajit/hlo"
)

// elemCmp compares element i of x with element j of y.
type elemCmp func(x []byte, i int, y []byte, j int) bool

// compareFn returns a typed stablehlo.compare for dt, or nil when the
// combination is left to the region (small floats, complex, odd compare
// types).
func compareFn(dir, typ string, dt hlo.DType) elemCmp {
	switch dt {
	case hlo.F32:
		switch typ {
		case "", "FLOAT":
			return cmpT[float32](dir)
		case "TOTALORDER":
			return cmpKey(dir, func(x []byte, i int) int64 { return int64(totalKey32(asT[uint32](x)[i])) })
		}
	case hlo.F64:
		switch typ {
		case "", "FLOAT":
			return cmpT[float64](dir)
		case "TOTALORDER":
			return cmpKey(dir, func(x []byte, i int) int64 { return totalKey64(asT[uint64](x)[i]) })
		}
	}
	if typ != "" && typ != "SIGNED" && typ != "UNSIGNED" {
		return nil
	}
	if (typ == "SIGNED" && !dt.IsSigned()) || (typ == "UNSIGNED" && !(dt.IsUnsigned() || dt.IsBool())) {
		return nil
	}
	switch dt {
	case hlo.I8, hlo.I4, hlo.I2:
		return cmpT[int8](dir)
	case hlo.I16:
		return cmpT[int16](dir)
	case hlo.I32:
		return cmpT[int32](dir)
	case hlo.I64:
		return cmpT[int64](dir)
	case hlo.U8, hlo.U4, hlo.U2, hlo.Bool:
		return cmpT[uint8](dir)
	case hlo.U16:
		return cmpT[uint16](dir)
	case hlo.U32:
		return cmpT[uint32](dir)
	case hlo.U64:
		return cmpT[uint64](dir)
	}
	return nil
}

func cmpT[T intT | floatT](dir string) elemCmp {
	switch dir {
	case "LT":
		return func(x []byte, i int, y []byte, j int) bool { return asT[T](x)[i] < asT[T](y)[j] }
	case "LE":
		return func(x []byte, i int, y []byte, j int) bool { return asT[T](x)[i] <= asT[T](y)[j] }
	case "GT":
		return func(x []byte, i int, y []byte, j int) bool { return asT[T](x)[i] > asT[T](y)[j] }
	case "GE":
		return func(x []byte, i int, y []byte, j int) bool { return asT[T](x)[i] >= asT[T](y)[j] }
	case "EQ":
		return func(x []byte, i int, y []byte, j int) bool { return asT[T](x)[i] == asT[T](y)[j] }
	case "NE":
		return func(x []byte, i int, y []byte, j int) bool { return asT[T](x)[i] != asT[T](y)[j] }
	}
	return nil
}

func cmpKey(dir string, key func(x []byte, i int) int64) elemCmp {
	switch dir {
	case "LT":
		return func(x []byte, i int, y []byte, j int) bool { return key(x, i) < key(y, j) }
	case "LE":
		return func(x []byte, i int, y []byte, j int) bool { return key(x, i) <= key(y, j) }
	case "GT":
		return func(x []byte, i int, y []byte, j int) bool { return key(x, i) > key(y, j) }
	case "GE":
		return func(x []byte, i int, y []byte, j int) bool { return key(x, i) >= key(y, j) }
	case "EQ":
		return func(x []byte, i int, y []byte, j int) bool { return key(x, i) == key(y, j) }
	case "NE":
		return func(x []byte, i int, y []byte, j int) bool { return key(x, i) != key(y, j) }
	}
	return nil
}

// totalKey32 maps f32 bits to an integer whose order is the IEEE total
// order (-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN).
func totalKey32(b uint32) int32 {
	k := int32(b)
	if k < 0 {
		k ^= 0x7fffffff
	}
	return k
}

func totalKey64(b uint64) int64 {
	k := int64(b)
	if k < 0 {
		k ^= 0x7fffffffffffffff
	}
	return k
}

// fastLess builds a sort comparator from a single-compare region: argument
// 2i is input i's left element, 2i+1 its right one.
func fastLess(cb *cmpBody) func(ins []*hlo.Literal) func(a, b int) bool {
	f := compareFn(cb.dir, cb.typ, cb.dtypes)
	if f == nil {
		return nil
	}
	li, ri := cb.lhs/2, cb.rhs/2
	lRight, rRight := cb.lhs%2 == 1, cb.rhs%2 == 1
	return func(ins []*hlo.Literal) func(a, b int) bool {
		lx, rx := ins[li].Data, ins[ri].Data
		return func(a, b int) bool {
			i, j := a, a
			if lRight {
				i = b
			}
			if rRight {
				j = b
			}
			return f(lx, i, rx, j)
		}
	}
}
