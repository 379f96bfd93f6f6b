package control

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// symbol returns the function name of a symbol attribute (@f, or a string).
func symbol(a hlo.Attr) (string, bool) {
	switch a := a.(type) {
	case hlo.SymbolRefAttr:
		if len(a.Nested) > 0 {
			return a.Nested[len(a.Nested)-1], true
		}
		return a.Name, true
	case hlo.StringAttr:
		return strings.TrimPrefix(string(a), "@"), true
	}
	return "", false
}

// tensorArg returns args[i] as a literal, or an error naming the op.
func tensorArg(op *hlo.Op, args []kernel.Value, i int) (*hlo.Literal, error) {
	l, ok := args[i].(*hlo.Literal)
	if !ok {
		return nil, &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf("operand %d is a %T, want a tensor", i, args[i])}
	}
	return l, nil
}

// predicate reads a tensor<i1> (or any integer scalar) as a Go bool.
func predicate(l *hlo.Literal) bool {
	if l.NumElements() == 0 {
		return false
	}
	return l.Int(0) != 0
}

// indexString prints the multi-dimensional index of flat element i.
func indexString(dims []int64, i int) string {
	idx := make([]string, len(dims))
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = strconv.FormatInt(int64(i)%dims[d], 10)
			i /= int(dims[d])
		} else {
			idx[d] = "0"
		}
	}
	return "[" + strings.Join(idx, ", ") + "]"
}

// dimSplit returns, for a row-major tensor of dims, the number of
// sub-tensors before dimension d and the byte size of one index step of d.
func dimSplit(dims []int64, d int, elemSize int) (outer int, inner int) {
	outer = 1
	for i := 0; i < d; i++ {
		outer *= int(dims[i])
	}
	inner = elemSize
	for i := d + 1; i < len(dims); i++ {
		inner *= int(dims[i])
	}
	return outer, inner
}

// sliceDim returns l[..., start:start+size, ...] along dimension d.
func sliceDim(l *hlo.Literal, d int, start, size int64) *hlo.Literal {
	dims := append([]int64(nil), l.Dims...)
	full := dims[d]
	dims[d] = size
	out := hlo.NewLiteral(l.DType, dims...)
	outer, inner := dimSplit(l.Dims, d, l.DType.Size())
	chunk := int(size) * inner
	for o := 0; o < outer; o++ {
		src := o*int(full)*inner + int(start)*inner
		copy(out.Data[o*chunk:(o+1)*chunk], l.Data[src:src+chunk])
	}
	return out
}

// concatDim concatenates same-typed literals along dimension d.
func concatDim(parts []*hlo.Literal, d int) *hlo.Literal {
	dims := append([]int64(nil), parts[0].Dims...)
	dims[d] = 0
	for _, p := range parts {
		dims[d] += p.Dims[d]
	}
	out := hlo.NewLiteral(parts[0].DType, dims...)
	outer, _ := dimSplit(dims, d, out.DType.Size())
	off := 0
	for o := 0; o < outer; o++ {
		for _, p := range parts {
			_, inner := dimSplit(p.Dims, d, p.DType.Size())
			chunk := int(p.Dims[d]) * inner
			copy(out.Data[off:off+chunk], p.Data[o*chunk:(o+1)*chunk])
			off += chunk
		}
	}
	return out
}

// convertLiteral converts l to element type dt (value-preserving where the
// type allows: is_promotable conversions of the collectives).
func convertLiteral(l *hlo.Literal, dt hlo.DType) *hlo.Literal {
	if l.DType == dt {
		return l
	}
	out := hlo.NewLiteral(dt, l.Dims...)
	n := l.NumElements()
	for i := 0; i < n; i++ {
		switch {
		case dt.IsComplex():
			out.SetComplex(i, l.Complex(i))
		case dt.IsFloat():
			out.SetFloat(i, l.Float(i))
		case l.DType.IsUnsigned() || l.DType.IsBool():
			out.SetInt(i, int64(l.Uint(i)))
		default:
			out.SetInt(i, l.Int(i))
		}
	}
	return out
}

// zerosLike returns a zero literal of l's type and shape.
func zerosOf(t *hlo.TensorType) *hlo.Literal { return kernel.Alloc(t) }

// staticTensor returns the static tensor type of t, or an error.
func staticTensor(c *kernel.OpCtx, t hlo.Type, what string) (*hlo.TensorType, error) {
	tt, ok := t.(*hlo.TensorType)
	if !ok {
		return nil, c.Errorf("%s is %s, want a tensor", what, t)
	}
	if !tt.IsStatic() {
		return nil, c.Errorf("%s has dynamic shape %s", what, tt)
	}
	return tt, nil
}
