package kernel

import "github.com/xlajit/xlajit/hlo"

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

// SliceDim returns a new literal l[..., start:start+size, ...] along
// dimension d.
func SliceDim(l *hlo.Literal, d int, start, size int64) *hlo.Literal {
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

// ConcatDim concatenates same-typed literals along dimension d into a new
// literal.
func ConcatDim(parts []*hlo.Literal, d int) *hlo.Literal {
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
