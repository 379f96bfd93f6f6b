package hlo

import (
	"fmt"
	"math"
	"math/bits"
)

// Sizes. A tensor's element count and byte size must fit in an int64:
// every place that makes a shape from text or from arithmetic on other
// shapes (the parser, type inference, the verifier, literal creation)
// checks them with CheckSize, so that an overflow is an error naming the
// type instead of a wrapped count (2^32 x 2^32 x 16 elements is not 0).

// maxByteSize is the largest byte size of a tensor: an int64, less the
// rounding AlignedBytes does to 16-byte words.
const maxByteSize = math.MaxInt64 &^ 15

// SizeError is a tensor type whose element count or byte size does not fit
// in an int64.
type SizeError struct {
	DType DType
	Dims  []int64
	// Bytes is true when the element count fits but the byte size does not.
	Bytes bool
}

func (e *SizeError) Error() string {
	t := &TensorType{DType: e.DType, Dims: e.Dims}
	if e.Bytes {
		return fmt.Sprintf("%s: byte size overflows int64", t)
	}
	return fmt.Sprintf("%s: element count overflows int64", t)
}

// CheckedNumElements returns the product of the static dimensions of dims
// (dynamic ones are skipped) and false when it overflows an int64.
func CheckedNumElements(dims []int64) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		if d == 0 {
			return 0, true
		}
	}
	for _, d := range dims {
		if d < 0 {
			continue
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = int64(lo)
	}
	return n, true
}

// ByteSize returns the bytes of a dt tensor of the static dimensions of
// dims (dynamic ones skipped) and false when the element count or the byte
// size overflows an int64.
func ByteSize(dt DType, dims []int64) (int64, bool) {
	n, ok := CheckedNumElements(dims)
	if !ok {
		return 0, false
	}
	b, ok := mulInt64(n, int64(dt.Size()))
	if !ok || b > maxByteSize {
		return 0, false
	}
	return b, true
}

// CheckSize returns a *SizeError when the element count or the byte size of
// a dt tensor of dims overflows an int64 (dynamic dimensions are skipped),
// else nil.
func CheckSize(dt DType, dims []int64) error {
	if _, ok := ByteSize(dt, dims); ok {
		return nil // the element count fits too
	}
	if _, ok := CheckedNumElements(dims); !ok {
		return &SizeError{DType: dt, Dims: append([]int64(nil), dims...)}
	}
	return &SizeError{DType: dt, Dims: append([]int64(nil), dims...), Bytes: true}
}

// CheckTypeSize is CheckSize for every tensor of a type (tuple elements
// included); other types always fit.
func CheckTypeSize(t Type) error {
	switch t := t.(type) {
	case *TensorType:
		if err := CheckSize(t.DType, t.Dims); err != nil {
			return err
		}
	case *TupleType:
		for _, e := range t.Elems {
			if err := CheckTypeSize(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// TypeByteSize returns the bytes of every tensor of a static type (tuple
// elements summed; tokens and other types take none) and false when a
// dimension is dynamic or the size overflows an int64.
func TypeByteSize(t Type) (int64, bool) {
	switch t := t.(type) {
	case *TensorType:
		if !t.IsStatic() {
			return 0, false
		}
		return ByteSize(t.DType, t.Dims)
	case *TupleType:
		var sum int64
		for _, e := range t.Elems {
			b, ok := TypeByteSize(e)
			if !ok {
				return 0, false
			}
			if sum, ok = addInt64(sum, b); !ok {
				return 0, false
			}
		}
		return sum, true
	}
	return 0, true
}

// PaddedSize is pad's size of a dimension of size d: lo + d + hi plus
// interior between each two elements; false when it overflows an int64.
func PaddedSize(d, lo, hi, interior int64) (int64, bool) {
	gaps := max(d-1, 0)
	inner, ok1 := mulInt64(gaps, interior)
	s1, ok2 := addInt64(lo, d)
	s2, ok3 := addInt64(s1, inner)
	s3, ok4 := addInt64(s2, hi)
	return s3, ok1 && ok2 && ok3 && ok4
}

// CheckedAdd returns a+b and false when it overflows an int64 (for shape
// arithmetic on values from outside, in executors).
func CheckedAdd(a, b int64) (int64, bool) { return addInt64(a, b) }

// CheckedMul returns a*b and false when it overflows an int64.
func CheckedMul(a, b int64) (int64, bool) { return mulInt64(a, b) }

// IsStaticType reports whether every tensor of t (tuple elements
// included) has a static shape.
func IsStaticType(t Type) bool {
	switch t := t.(type) {
	case *TensorType:
		return t.IsStatic()
	case *TupleType:
		for _, e := range t.Elems {
			if !IsStaticType(e) {
				return false
			}
		}
	}
	return true
}

// addInt64 returns a+b and whether it did not overflow.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// mulInt64 returns a*b and whether it did not overflow.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}
