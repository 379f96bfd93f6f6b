package lazy

import (
	"github.com/xlajit/xlajit/hlo"
)

// DType is an element type (the StableHLO one).
type DType = hlo.DType

// Element types of lazy tensors.
const (
	Bool = hlo.Bool
	I8   = hlo.I8
	I16  = hlo.I16
	I32  = hlo.I32
	I64  = hlo.I64
	U8   = hlo.U8
	U16  = hlo.U16
	U32  = hlo.U32
	U64  = hlo.U64
	F16  = hlo.F16
	BF16 = hlo.BF16
	F32  = hlo.F32
	F64  = hlo.F64
	C64  = hlo.C64
	C128 = hlo.C128
)

// Shape is an element type and static dimensions.
type Shape struct {
	DType DType
	Dims  []int64
}

// NewShape returns dt[dims...] (dims copied).
func NewShape(dt DType, dims ...int64) Shape {
	return Shape{DType: dt, Dims: append([]int64(nil), dims...)}
}

// Rank is the number of dimensions.
func (s Shape) Rank() int { return len(s.Dims) }

// Size is the number of elements.
func (s Shape) Size() int64 { return hlo.NumElements(s.Dims) }

// String returns "f32[2,3]".
func (s Shape) String() string { return hlo.ShapeString(s.DType, s.Dims) }

// Equal reports same dtype and dims.
func (s Shape) Equal(o Shape) bool { return s.DType == o.DType && sameDims(s.Dims, o.Dims) }

// TensorType returns the StableHLO type.
func (s Shape) TensorType() *hlo.TensorType { return hlo.NewTensorType(s.DType, s.Dims...) }

func (s Shape) with(dt DType) Shape { return Shape{DType: dt, Dims: s.Dims} }

func sameDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// broadcastDims returns the numpy broadcast of a and b, or false.
func broadcastDims(a, b []int64) ([]int64, bool) {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		da, db := int64(1), int64(1)
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, false
		}
	}
	return out, true
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis, rank int) (int, bool) {
	if axis < 0 {
		axis += rank
	}
	return axis, axis >= 0 && axis < rank
}
