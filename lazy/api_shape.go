package lazy

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// Reshape returns x with new dims (one may be -1: inferred).
func (x *Tensor) Reshape(dims ...int64) *Tensor {
	needTensors("Reshape", "x", x)
	d := append([]int64(nil), dims...)
	infer := -1
	known := int64(1)
	for i, v := range d {
		switch {
		case v == -1:
			if infer >= 0 {
				throw("Reshape", []Shape{x.shape}, "more than one -1 in %v", dims)
			}
			infer = i
		case v < 0:
			throw("Reshape", []Shape{x.shape}, "negative dimension %d in %v", v, dims)
		default:
			var ok bool
			if known, ok = mulDims(known, v); !ok {
				throw("Reshape", []Shape{x.shape}, "cannot reshape %d elements into %v", x.Size(), dims)
			}
		}
	}
	if infer >= 0 {
		if known == 0 || x.Size()%known != 0 {
			throw("Reshape", []Shape{x.shape}, "cannot infer -1 in %v for %d elements", dims, x.Size())
		}
		d[infer] = x.Size() / known
	}
	needDims("Reshape", []Shape{x.shape}, x.DType(), d)
	if sameDims(d, x.Dims()) {
		return x
	}
	return apply1(opReshape, Attrs{{"dims", d}}, x)
}

// Flatten reshapes to one dimension.
func (x *Tensor) Flatten() *Tensor {
	needTensors("Flatten", "x", x)
	return x.Reshape(x.Size())
}

// Permute reorders axes: output axis i is input axis perm[i].
func (x *Tensor) Permute(perm ...int) *Tensor {
	needTensors("Permute", "x", x)
	p := make([]int64, len(perm))
	identity := true
	for i, v := range perm {
		a := needExistingAxis("Permute", v, x.Rank(), x)
		p[i] = int64(a)
		identity = identity && a == i
	}
	if !isPermutation(p, x.Rank()) {
		throw("Permute", []Shape{x.shape}, "%v is not a permutation of %d axes", perm, x.Rank())
	}
	if identity && len(p) == x.Rank() {
		return x
	}
	return apply1(opTranspose, Attrs{{"perm", p}}, x)
}

// Transpose swaps axes a and b (a 0-d x takes 0 and -1 and stays, as in
// torch.transpose).
func (x *Tensor) Transpose(a, b int) *Tensor {
	needTensors("Transpose", "x", x)
	r := x.Rank()
	a1 := needAxis("Transpose", a, r, x)
	b1 := needAxis("Transpose", b, r, x)
	if r == 0 {
		return x
	}
	perm := make([]int, r)
	for i := range perm {
		perm[i] = i
	}
	perm[a1], perm[b1] = perm[b1], perm[a1]
	return x.Permute(perm...)
}

// T swaps the last two axes.
func (x *Tensor) T() *Tensor { return x.Transpose(-2, -1) }

// BroadcastTo broadcasts x numpy-style (right-aligned) to dims.
func (x *Tensor) BroadcastTo(dims ...int64) *Tensor {
	needTensors("BroadcastTo", "x", x)
	if sameDims(dims, x.Dims()) {
		return x
	}
	needDims("BroadcastTo", []Shape{x.shape}, x.DType(), dims)
	if len(dims) < x.Rank() {
		throw("BroadcastTo", []Shape{x.shape}, "cannot broadcast to fewer dimensions %v", dims)
	}
	off := len(dims) - x.Rank()
	for i, d := range x.Dims() {
		if d != 1 && d != dims[off+i] {
			throw("BroadcastTo", []Shape{x.shape}, "cannot broadcast %v to %v", x.Dims(), dims)
		}
	}
	// The attributes depend on the target dims and the operand's rank
	// only: the last list made is taken again for the same ones
	// (attributes are never edited, and a traced function broadcasts its
	// numbers to one shape over and over).
	if c := lastBroadcast.Load(); c != nil && c.rank == x.Rank() && c.out[0].DType == x.DType() && slices.Equal(c.dims, dims) {
		// Its shape rule would accept x (checked above) and give c.out.
		return applyOpOut(table[opBroadcast], c.attrs[:], []*Tensor{x}, false, c.out[:])[0]
	}
	// The attribute list, the target dims and the broadcast dims in one
	// allocation when the dims are few.
	var attrs Attrs
	var buf []int64
	c := &broadcastCell{rank: x.Rank()}
	c.out[0].DType = x.DType()
	n := len(dims) + x.Rank()
	inCell := n <= len(c.buf)
	if inCell {
		attrs, buf = c.attrs[:], c.buf[:n:n]
	} else {
		attrs, buf = make(Attrs, 2), make([]int64, n)
	}
	out := buf[:len(dims):len(dims)]
	copy(out, dims)
	bd := buf[len(dims):]
	for i := range bd {
		bd[i] = int64(off + i)
	}
	attrs[0], attrs[1] = Attr{"dims", out}, Attr{"bdims", bd}
	if inCell {
		c.dims = out
		if len(out) > 0 {
			c.out[0].Dims = out // as the shape rule makes it
		}
		lastBroadcast.Store(c)
	}
	return apply1(opBroadcast, attrs, x)
}

// broadcastCell is a broadcast's attribute list and dims, with the
// operand rank and target dims they were made for and the result shape
// for the operand's element type (see lastBroadcast).
type broadcastCell struct {
	attrs [2]Attr
	buf   [8]int64
	rank  int
	dims  []int64
	out   [1]Shape
}

// lastBroadcast is the last broadcast attribute list made.
var lastBroadcast atomic.Pointer[broadcastCell]

// Expand is BroadcastTo where -1 keeps a dimension.
func (x *Tensor) Expand(dims ...int64) *Tensor {
	needTensors("Expand", "x", x)
	d := append([]int64(nil), dims...)
	off := len(d) - x.Rank()
	for i := range d {
		if d[i] == -1 && i >= off {
			d[i] = x.Dims()[i-off]
		}
	}
	if len(d) < x.Rank() {
		throw("Expand", []Shape{x.shape}, "cannot expand to fewer dimensions %v", dims)
	}
	needDims("Expand", []Shape{x.shape}, x.DType(), d)
	return x.BroadcastTo(d...)
}

// Unsqueeze inserts an axis of size 1 at axis.
func (x *Tensor) Unsqueeze(axis int) *Tensor {
	needTensors("Unsqueeze", "x", x)
	a, ok := normAxis(axis, x.Rank()+1)
	if !ok {
		throw("Unsqueeze", []Shape{x.shape}, "axis %d out of range for rank %d (want %d..%d)", axis, x.Rank(), -x.Rank()-1, x.Rank())
	}
	d := append(append(append([]int64(nil), x.Dims()[:a]...), 1), x.Dims()[a:]...)
	return x.Reshape(d...)
}

// Squeeze removes the given axes that have size 1 (all size-1 axes when
// none are given); a given axis of another size stays, as in
// torch.squeeze(dim).
func (x *Tensor) Squeeze(axes ...int) *Tensor {
	needTensors("Squeeze", "x", x)
	drop := make([]bool, x.Rank())
	if len(axes) == 0 {
		for i, d := range x.Dims() {
			drop[i] = d == 1
		}
	}
	seen := make([]bool, max(x.Rank(), 1))
	for _, ax := range axes {
		a := needAxis("Squeeze", ax, x.Rank(), x)
		if seen[a] {
			throw("Squeeze", []Shape{x.shape}, "axis %d appears more than once in the axes %v (as PyTorch refuses a repeated dim)", ax, axes)
		}
		seen[a] = true
		// An axis not of size 1 stays, as torch.squeeze(dim) leaves it
		// (a 0-d x has none to drop).
		if x.Rank() > 0 {
			drop[a] = x.Dims()[a] == 1
		}
	}
	var d []int64
	for i, v := range x.Dims() {
		if !drop[i] {
			d = append(d, v)
		}
	}
	return x.Reshape(d...)
}

// SliceStrided returns x[start:limit:strides] per axis with Python's (and
// PyTorch's) slicing rules for positive steps: a negative start or limit
// counts from the end, both are clamped into [0, size], and a limit at or
// before start gives an empty axis. A step below 1 is an error (PyTorch
// rejects those too).
func (x *Tensor) SliceStrided(start, limit, strides []int64) *Tensor {
	needTensors("Slice", "x", x)
	if r := x.Rank(); len(start) == r && len(limit) == r && len(strides) == r { // else the shape rule says so
		st, lim := make([]int64, r), make([]int64, r)
		for i, d := range x.Dims() {
			if strides[i] < 1 {
				throw("Slice", []Shape{x.shape}, "axis %d: step %d must be at least 1 (as in PyTorch)", i, strides[i])
			}
			st[i] = sliceBound(start[i], d)
			lim[i] = max(sliceBound(limit[i], d), st[i])
		}
		start, limit = st, lim
	}
	return apply1(opSlice, Attrs{{"start", append([]int64(nil), start...)}, {"limit", append([]int64(nil), limit...)}, {"strides", append([]int64(nil), strides...)}}, x)
}

// sliceBound is a Python slice bound v on an axis of size d: counted from
// the end when negative, then clamped into [0, d].
func sliceBound(v, d int64) int64 {
	if v < 0 {
		v = max(v+d, 0)
	}
	return min(v, d)
}

// Narrow returns length elements of axis starting at start (a negative
// start counts from the end, as in torch.narrow).
func (x *Tensor) Narrow(axis int, start, length int64) *Tensor {
	needTensors("Narrow", "x", x)
	a := needExistingAxis("Narrow", axis, x.Rank(), x)
	d := x.Dims()[a]
	if start < -d || start > d {
		throw("Narrow", []Shape{x.shape}, "start %d out of range for axis %d of size %d (want %d to %d)", start, axis, d, -d, d)
	}
	if start < 0 {
		start += d // counted from the end, as torch.narrow does
	}
	if length < 0 || length > d-start {
		throw("Narrow", []Shape{x.shape}, "start %d, length %d out of range for axis %d of size %d", start, length, axis, d)
	}
	if start == 0 && length == d {
		return x
	}
	st := make([]int64, x.Rank())
	lim := append([]int64(nil), x.Dims()...)
	str := make([]int64, x.Rank())
	for i := range str {
		str[i] = 1
	}
	st[a], lim[a] = start, start+length
	return x.SliceStrided(st, lim, str)
}

// Concat joins tensors along axis (torch.cat). Operands of different types
// promote. As torch.cat's legacy rule, a 1-D operand of size 0 is skipped
// whatever the others' rank (its type still joins the promotion), the axis
// counts against the first operand not skipped, and operands that are all
// such give an empty [0] tensor for any axis.
func Concat(axis int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		throw("Concat", nil, "no tensors")
	}
	needList("Concat", "ts", ts, false)
	dt := mustResultType("Concat", ts)
	kept, empty := ts, 0
	for _, t := range ts {
		if isEmptyVector(t) {
			empty++
		}
	}
	switch {
	case empty == len(ts):
		axis = 0 // torch.cat takes any axis for these
	case empty > 0 && anyRankBut1(ts):
		kept = make([]*Tensor, 0, len(ts)-empty)
		for _, t := range ts {
			if !isEmptyVector(t) {
				kept = append(kept, t)
			}
		}
	}
	a := needExistingAxis("Concat", axis, kept[0].Rank(), ts...)
	in := make([]Shape, len(kept))
	for i, t := range kept {
		in[i] = t.shape.with(dt)
	}
	if _, err := inferShapes(table[opConcat], Attrs{{"axis", int64(a)}}, in); err != nil {
		throw("Concat", shapesOf(ts), "%v", err)
	}
	// Operands of different types promote (torch.cat).
	if !sameDType(kept, dt) {
		cs := make([]*Tensor, len(kept))
		for i, t := range kept {
			cs[i] = t.Cast(dt)
		}
		kept = cs
	}
	// One operand left is concatenated too: the result is a tensor of its
	// own, as torch.cat's never aliases an operand (writing it leaves the
	// operand as it is), and gradients flow through the op.
	return apply1(opConcat, Attrs{{"axis", int64(a)}}, kept...)
}

// anyRankBut1 says whether an operand is not 1-D (among 1-D operands an
// empty one joins nothing either way, and keeping it keeps their graph).
func anyRankBut1(ts []*Tensor) bool {
	for _, t := range ts {
		if t.Rank() != 1 {
			return true
		}
	}
	return false
}

func isEmptyVector(t *Tensor) bool { return t.Rank() == 1 && t.Dims()[0] == 0 }

// Stack joins tensors along a new axis.
func Stack(axis int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		throw("Stack", nil, "no tensors")
	}
	needList("Stack", "ts", ts, false)
	for _, t := range ts[1:] {
		if !sameDims(t.Dims(), ts[0].Dims()) {
			throw("Stack", shapesOf(ts), "tensors have different shapes %s and %s", ts[0].shape, t.shape)
		}
	}
	defer relabel("Stack", ts...)()
	if !ts[0].isDry() {
		dryRun(func() { Stack(axis, dryAll(ts)...) })
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		us[i] = t.Unsqueeze(axis)
	}
	return Concat(axis, us...)
}

// Split cuts x along axis into pieces of the given sizes.
func (x *Tensor) Split(axis int, sizes ...int64) []*Tensor {
	needTensors("Split", "x", x)
	a := needExistingAxis("Split", axis, x.Rank(), x)
	var total int64
	for _, s := range sizes {
		if s < 0 {
			throw("Split", []Shape{x.shape}, "negative size in %v", sizes)
		}
		var ok bool
		if total, ok = addDims(total, s); !ok {
			throw("Split", []Shape{x.shape}, "sizes %v do not add up to %d", sizes, x.Dims()[a])
		}
	}
	if total != x.Dims()[a] {
		throw("Split", []Shape{x.shape}, "sizes %v do not add up to %d", sizes, x.Dims()[a])
	}
	out := make([]*Tensor, len(sizes))
	off := int64(0)
	for i, s := range sizes {
		out[i] = x.Narrow(a, off, s)
		off += s
	}
	return out
}

// maxEmptyChunks bounds the pieces Chunk makes of an empty axis (a piece
// per requested chunk there): a count past it is a mistake, not a list
// to allocate.
const maxEmptyChunks = 1 << 16

// Chunk splits x along axis into pieces of ceil(size/n) elements, the
// last one smaller, as torch.chunk: n pieces when n divides the size,
// fewer otherwise (n empty pieces of an empty axis).
func (x *Tensor) Chunk(axis int, n int) []*Tensor {
	needTensors("Chunk", "x", x)
	a := needExistingAxis("Chunk", axis, x.Rank(), x)
	d := x.Dims()[a]
	if n <= 0 {
		throw("Chunk", []Shape{x.shape}, "needs at least one piece, got %d", n)
	}
	// As torch.chunk: pieces of ceil(d/n), the last one smaller, so that
	// fewer than n pieces come out when n does not divide d evenly (n
	// empty pieces of an empty axis).
	var sizes []int64
	if d == 0 {
		if n > maxEmptyChunks {
			throw("Chunk", []Shape{x.shape}, "%d empty pieces of an empty axis is more than %d", n, maxEmptyChunks)
		}
		sizes = make([]int64, n)
	} else {
		size := (d-1)/int64(n) + 1 // ceil(d/n), without overflow
		for left := d; left > 0; left -= size {
			sizes = append(sizes, min(size, left))
		}
	}
	return x.Split(a, sizes...)
}

// PadWith pads each axis by lo/hi elements (negative removes) and interior
// elements between values, filled with value, which must fit x's type (as
// F.pad's float value: an unsigned type takes no negative value).
func (x *Tensor) PadWith(lo, hi, interior []int64, value float64) *Tensor {
	needTensors("Pad", "x", x)
	err := checkFill(x.DType(), value)
	if x.DType().IsUnsigned() && value < 0 {
		err = fmt.Errorf("value %v cannot be converted to %s without overflow", value, x.DType())
	}
	if err != nil {
		throw("Pad", []Shape{x.shape}, "fill %v", err)
	}
	return apply1(opPad, Attrs{{"lo", append([]int64(nil), lo...)}, {"hi", append([]int64(nil), hi...)},
		{"interior", append([]int64(nil), interior...)}, {"value", value}}, x)
}

// Pad pads the last len(pads)/2 axes, torch-style: pads = (last lo, last hi,
// second-to-last lo, ...), with zeros.
func (x *Tensor) Pad(pads ...int64) *Tensor {
	needTensors("Pad", "x", x)
	r := x.Rank()
	if len(pads)%2 != 0 || len(pads)/2 > r {
		throw("Pad", []Shape{x.shape}, "pads %v must come in lo/hi pairs for at most %d axes", pads, r)
	}
	lo, hi, in := make([]int64, r), make([]int64, r), make([]int64, r)
	for k := 0; k < len(pads)/2; k++ {
		lo[r-1-k], hi[r-1-k] = pads[2*k], pads[2*k+1]
	}
	return x.PadWith(lo, hi, in, 0)
}

// Flip reverses the given axes (none when none are given; a 0-d x takes
// 0 and -1 and stays, as in torch.flip).
func (x *Tensor) Flip(axes ...int) *Tensor {
	needTensors("Flip", "x", x)
	ax := []int64{}
	if len(axes) > 0 {
		ax = x.normAxes("Flip", axes)
	}
	return apply1(opReverse, Attrs{{"axes", ax}}, x)
}

func sameDType(ts []*Tensor, dt DType) bool {
	for _, t := range ts {
		if t.DType() != dt {
			return false
		}
	}
	return true
}

// onVectors computes an op along axis 0 of operands ts of rank 0 or 1 as
// PyTorch does when some are 0-d: each 0-d operand taken as a vector of
// one element. body gets the operands as vectors and returns the op's
// results (0-d where PyTorch's are). It runs on stand-ins first, so that a
// call it rejects records nothing, and an *Error of it names op and the
// shapes of ts.
func onVectors(op string, ts []*Tensor, body func(vs []*Tensor) []*Tensor) []*Tensor {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			msg := e.Msg
			if e.Op != op {
				msg = e.Op + ": " + msg
			}
			panic(&Error{Op: op, Shapes: shapeStrings(shapesOf(ts)), Msg: msg, Site: e.Site, Err: e.Err})
		}
	}()
	vectors := func(ts []*Tensor) []*Tensor {
		vs := make([]*Tensor, len(ts))
		for i, t := range ts {
			vs[i] = t.Reshape(t.Size())
		}
		return vs
	}
	if !ts[0].isDry() {
		dryRun(func() { body(vectors(dryAll(ts))) })
	}
	return body(vectors(ts))
}
