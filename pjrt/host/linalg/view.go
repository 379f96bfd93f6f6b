package linalg

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// opView reads an operand as a batch of matrices: element (b, i, j) is at
// off[b] + i*rs + j*cs of the operand's elements, or of its copy permuted
// by perm when the row or column dimensions cannot be merged into a single
// stride (then the copy is laid out [batch..., rows..., cols...]).
type opView struct {
	perm   []int
	dims   []int64
	off    []int
	rs, cs int
}

// planView builds the view of an operand of shape dims whose matrix rows
// are the dimensions rows (outermost first), columns cols, and batch index
// the dimensions batch.
func planView(dims []int64, batch, rows, cols []int64) opView {
	st := kernel.Strides(dims)
	v := opView{dims: dims}
	rs, rok := mergedStride(dims, st, rows)
	cs, cok := mergedStride(dims, st, cols)
	if rok && cok {
		v.rs, v.cs = rs, cs
		v.off = batchOffsets(dims, st, batch)
		return v
	}
	var perm []int
	for _, g := range [][]int64{batch, rows, cols} {
		for _, d := range g {
			perm = append(perm, int(d))
		}
	}
	v.perm = perm
	nr, nc := int(prodDims(dims, rows)), int(prodDims(dims, cols))
	v.rs, v.cs = nc, 1
	v.off = make([]int, prodDims(dims, batch))
	for b := range v.off {
		v.off[b] = b * nr * nc
	}
	return v
}

// mergedStride returns the stride of the flattened index over the listed
// dimensions, if they are laid out contiguously relative to each other
// (dimensions of size 1 do not matter).
func mergedStride(dims, st []int64, group []int64) (int, bool) {
	last := int64(-1)
	for _, d := range group {
		if dims[d] == 1 {
			continue
		}
		if last >= 0 && st[last] != st[d]*dims[d] {
			return 0, false
		}
		last = d
	}
	if last < 0 {
		return 1, true
	}
	return int(st[last]), true
}

// batchOffsets lists the element offset of every index of the batch
// dimensions, in row-major order of the listed dimensions.
func batchOffsets(dims, st []int64, batch []int64) []int {
	offs := []int{0}
	for _, d := range batch {
		next := make([]int, 0, len(offs)*int(dims[d]))
		for _, o := range offs {
			for i := int64(0); i < dims[d]; i++ {
				next = append(next, o+int(i*st[d]))
			}
		}
		offs = next
	}
	return offs
}

// arrange returns l itself, or its permuted copy when the view needs one.
func (v *opView) arrange(l *hlo.Literal) *hlo.Literal {
	if v.perm == nil {
		return l
	}
	pd := make([]int64, len(v.perm))
	for i, d := range v.perm {
		pd[i] = v.dims[d]
	}
	return &hlo.Literal{DType: l.DType, Dims: pd, Data: permuteBytes(l.Data, l.Dims, v.perm, l.DType.Size())}
}

// viewOf returns the matrices of data (the arranged operand's elements).
func viewOf[T any](v *opView, data []T) matrix[T] {
	return matrix[T]{data: data, off: v.off, rs: v.rs, cs: v.cs}
}
