package hlo

import "fmt"

// Compact splats. A splat `dense<x> : tensor<...>` is kept as its one
// element and its type (DenseElementsAttr.Splat) until something needs
// every element, so parsing dense<1.0> : tensor<1099511627776xf32> costs
// nothing; executors broadcast the element when they run the constant.

// maxSplatInts bounds the compact splats AttrInts expands: integer-list
// attributes (padding, replica groups) are small, and a splat type of
// billions of elements in one of them is an input error, not a list to
// build.
const maxSplatInts = 1 << 20

// NewSplatAttr returns the compact splat of elem (a one-element literal of
// t's element type) to tensor type t.
func NewSplatAttr(t *TensorType, elem *Literal) *DenseElementsAttr {
	e := &Literal{DType: elem.DType, Dims: []int64{}, Data: AlignedBytes(len(elem.Data))}
	copy(e.Data, elem.Data)
	return &DenseElementsAttr{Type: t, Splat: e}
}

// IsSplat reports whether a is a compact splat.
func (a *DenseElementsAttr) IsSplat() bool { return a.Splat != nil }

// NumElements is the element count of the attribute's type.
func (a *DenseElementsAttr) NumElements() int64 {
	if a.Type != nil {
		return a.Type.NumElements()
	}
	if a.Value != nil {
		return int64(a.Value.NumElements())
	}
	return 0
}

// Literal returns the attribute's elements: Value, or for a compact splat a
// new literal of Type's shape filled with the element. Expanding allocates
// the whole tensor; callers with attributes from outside check its size
// first (ByteSize of Type). It fails for a splat whose type is dynamic or
// whose size overflows an int64.
func (a *DenseElementsAttr) Literal() (*Literal, error) {
	if a.Splat == nil {
		if a.Value == nil {
			return nil, fmt.Errorf("dense elements attribute without a value")
		}
		return a.Value, nil
	}
	if a.Type == nil || !a.Type.IsStatic() {
		return nil, fmt.Errorf("splat of dynamic type %v", a.Type)
	}
	if err := CheckSize(a.Splat.DType, a.Type.Dims); err != nil {
		return nil, err
	}
	l := NewLiteral(a.Splat.DType, a.Type.Dims...)
	fillElem(l.Data, a.Splat.Data)
	return l, nil
}

// fillElem sets every element of dst to elem by doubling copies.
func fillElem(dst, elem []byte) {
	if len(dst) == 0 || len(elem) == 0 {
		return
	}
	n := copy(dst, elem)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}
