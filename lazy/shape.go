package lazy

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

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

// NewShape returns dt[dims...] (dims copied). It panics with an *Error
// naming the dims when one is negative or when the element count or the
// byte size does not fit in an int64 (NewShapeE returns that error).
func NewShape(dt DType, dims ...int64) Shape {
	if err := checkDims(dt, dims); err != nil {
		panic(&Error{Op: "NewShape", Msg: err.Error(), Site: callerSite()})
	}
	return Shape{DType: dt, Dims: append([]int64(nil), dims...)}
}

// NewShapeE is NewShape returning the error.
func NewShapeE(dt DType, dims ...int64) (Shape, error) {
	if err := checkDims(dt, dims); err != nil {
		return Shape{}, err
	}
	return Shape{DType: dt, Dims: append([]int64(nil), dims...)}, nil
}

// checkDims reports a negative dimension, or dims whose element count (the
// product of the non-zero dims, so that no zero hides an overflow) or byte
// size overflows int64.
func checkDims(dt DType, dims []int64) error {
	n := uint64(1)
	for _, d := range dims {
		if d < 0 {
			return fmt.Errorf("negative dimension %d in %v", d, dims)
		}
		if d == 0 {
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return fmt.Errorf("dims %v have more than 2^63-1 elements", dims)
		}
		n = lo
	}
	// hlo's limit: an int64 less AlignedBytes' rounding to 16-byte words.
	if hi, lo := bits.Mul64(n, uint64(max(dt.Size(), 1))); hi != 0 || lo > math.MaxInt64&^15 {
		return fmt.Errorf("%s[%s] needs more than 2^63-1 bytes", dt, joinDims(dims))
	}
	return nil
}

func joinDims(dims []int64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(s, ",")
}

// addDims is a+b for dimension arithmetic, false on overflow.
func addDims(a, b int64) (int64, bool) {
	s := a + b
	return s, !(a > 0 && b > 0 && s < 0 || a < 0 && b < 0 && s >= 0)
}

// mulDims is a*b for non-negative dimension arithmetic, false on overflow.
func mulDims(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int64(lo), hi == 0 && lo <= math.MaxInt64
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

// broadcastDims returns the numpy broadcast of a and b, or false. When it
// is a or b as they are (equal dims, or the other a number), it is that
// slice itself: callers only read the result.
func broadcastDims(a, b []int64) ([]int64, bool) {
	switch {
	case len(b) == 0 || sameDims(a, b):
		return a, true
	case len(a) == 0:
		return b, true
	}
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
