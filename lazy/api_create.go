package lazy

import (
	"math"
	"slices"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
)

// Full returns a tensor of dims filled with v (a constant in the IR: no
// transfer). As torch.full, v must fit dt: an integer type takes values in
// its range (truncated toward zero; unsigned types also down to -max,
// wrapping), a float type finite values up to its largest, infinities and
// NaN; anything else is an error.
func Full(dt DType, v float64, dims ...int64) *Tensor {
	needDType("Full", nil, dt)
	needDims("Full", nil, dt, dims)
	return FullOn(DefaultDevice(), dt, v, dims...)
}

// FullOn is Full on device dev.
func FullOn(dev *Device, dt DType, v float64, dims ...int64) *Tensor {
	needDevice("Full", dev)
	needDType("Full", nil, dt)
	needDims("Full", nil, dt, dims)
	if err := checkFill(dt, v); err != nil {
		throw("Full", nil, "%v", err)
	}
	return splatOn(dev, dt, v, slices.Clone(dims))
}

// splatOn returns a tensor of dims (kept: not to be changed) filled with v,
// which fits dt: one Splat node (its literal and data in one allocation,
// the node with its attributes, shape and tensor in another), or on a
// shadow or SPMD device a rank-0 constant and
// its broadcast (the sharding annotations of SPMD graphs were written for
// those).
func splatOn(dev *Device, dt DType, v float64, dims []int64) *Tensor {
	if len(dims) == 0 || dev.dryOf != nil || dev.IsSPMD() || dt.Size() == 0 || dt.Size() > 16 {
		c := scalarOn(dev, dt, v)
		if len(dims) == 0 {
			return c
		}
		return c.BroadcastTo(dims...)
	}
	// The literal in an allocation of its own, as scalarOn's: a compiled
	// program's module and IR kept by an executable hold it, and must
	// not hold the tensor (and its buffer) beside it.
	c := &splatNode{}
	c.attrs = [2]Attr{{"value", newScalarLit(dt, v)}, {"dims", dims}}
	c.out[0] = Shape{DType: dt, Dims: dims}
	return leafIn(&c.n, &c.t, opSplat, c.attrs[:], c.out[:], dev)
}

// splatNode is a Splat node with its attributes, shape and tensor.
type splatNode struct {
	n     Node
	attrs [2]Attr
	out   [1]Shape
	t     Tensor
}

// constOn records the constant l (already checked) on dev.
func constOn(dev *Device, l *hlo.Literal) *Tensor {
	attrs := Attrs{{"value", l}}
	if dev.dryOf != nil {
		return dryApply(table[opConstant], attrs, nil, dev)[0]
	}
	n := newNode(table[opConstant], attrs)
	t := newPending(Value{n, 0}, dev)
	if eager() && !Tracing() {
		mustSync("Eager", t)
	}
	return t
}

// scalarOn is constOn of scalarLiteral(dt, v) (dt valid): the literal and
// its data in one allocation, the node with its attribute, result shape
// and tensor in another (a traced function makes one for every Go number
// it applies), and no shape rule run (a 0-d literal of a valid type made
// here is valid; its shape is dt[]).
func scalarOn(dev *Device, dt DType, v float64) *Tensor {
	if dev.dryOf != nil || dt.Size() == 0 || dt.Size() > 16 {
		return constOn(dev, scalarLiteral(dt, v))
	}
	c := &scalarNode{}
	c.attrs[0] = Attr{"value", newScalarLit(dt, v)}
	c.out[0] = Shape{DType: dt}
	return leafIn(&c.n, &c.t, opConstant, c.attrs[:], c.out[:], dev)
}

// leafIn builds n, a node of op without operands, and t, the pending
// tensor of its one result on dev, in memory the caller allocated with
// them (computed at once in eager mode).
func leafIn(n *Node, t *Tensor, op opCode, attrs Attrs, out []Shape, dev *Device) *Tensor {
	buildNode(n, table[op], attrs, nil, out)
	n.uses.Add(1)
	*t = Tensor{shape: out[0], dev: dev, val: Value{n, 0}}
	if eager() && !Tracing() {
		mustSync("Eager", t)
	}
	return t
}

// newScalarLit returns a 0-d literal of dt (0 < size <= 16) holding v, in
// one allocation with its data.
func newScalarLit(dt DType, v float64) *hlo.Literal {
	lc := &scalarLit{}
	lc.lit = hlo.Literal{DType: dt, Dims: []int64{}, Data: lc.data[:dt.Size():dt.Size()]}
	if uintptr(unsafe.Pointer(&lc.data))%16 != 0 {
		lc.lit.Data = hlo.AlignedBytes(dt.Size()) // hlo.AlignedBytes' alignment
	}
	setScalar(&lc.lit, dt, v)
	return &lc.lit
}

// scalarLit is a 0-d literal and its data (first, so 16-byte aligned in
// practice: the allocator aligns objects whose size is a multiple of 16;
// newScalarLit checks).
type scalarLit struct {
	data [16]byte
	lit  hlo.Literal
}

// scalarNode is a constant node with its attribute, shape and tensor.
type scalarNode struct {
	n     Node
	attrs [1]Attr
	out   [1]Shape
	t     Tensor
}

// Constant returns a tensor holding l as an IR constant (hashed by value).
func Constant(l *hlo.Literal) *Tensor {
	if err := checkLiteral(l); err != nil {
		throw("Constant", nil, "%v", err)
	}
	return constOn(DefaultDevice(), l)
}

// Zeros returns a zero tensor.
func Zeros(dt DType, dims ...int64) *Tensor {
	needDType("Zeros", nil, dt)
	needDims("Zeros", nil, dt, dims)
	return Full(dt, 0, dims...)
}

// Ones returns a tensor of ones.
func Ones(dt DType, dims ...int64) *Tensor {
	needDType("Ones", nil, dt)
	needDims("Ones", nil, dt, dims)
	return Full(dt, 1, dims...)
}

// ZerosLike returns zeros of x's shape on x's device.
func ZerosLike(x *Tensor) *Tensor {
	needTensors("ZerosLike", "x", x)
	return FullOn(x.dev, x.DType(), 0, x.Dims()...)
}

// OnesLike returns ones of x's shape on x's device.
func OnesLike(x *Tensor) *Tensor {
	needTensors("OnesLike", "x", x)
	return FullOn(x.dev, x.DType(), 1, x.Dims()...)
}

// Iota returns a tensor of dims whose values count along axis (negative
// axes count from the end).
func Iota(dt DType, axis int, dims ...int64) *Tensor {
	checkIota(dt, axis, dims)
	return IotaOn(DefaultDevice(), dt, axis, dims...)
}

// IotaOn is Iota on device dev.
func IotaOn(dev *Device, dt DType, axis int, dims ...int64) *Tensor {
	needDevice("Iota", dev)
	a := checkIota(dt, axis, dims)
	return applyOn(dev, opIota, Attrs{{"dtype", dt}, {"dims", append([]int64(nil), dims...)}, {"axis", int64(a)}})
}

func checkIota(dt DType, axis int, dims []int64) int {
	needDType("Iota", nil, dt)
	if dt.IsBool() {
		throw("Iota", nil, "needs a numeric element type, got %s", dt)
	}
	needDims("Iota", nil, dt, dims)
	a, ok := normAxis(axis, len(dims))
	if !ok {
		throw("Iota", nil, "axis %d out of range for rank %d", axis, len(dims))
	}
	return a
}

// Arange returns [start, start+step, ...) below stop, as dt, as
// torch.arange computes it: for an integer dt, start, stop and step are
// truncated to integers first (the length of an i64 range counts from the
// truncated bounds, that of a narrower integer type from the given ones),
// and the values are start + i*step in i64, converted to dt. A step of
// zero (after truncation), or bounds on the wrong side of the step's sign,
// is an error.
func Arange(dt DType, start, stop, step float64) *Tensor {
	needDType("Arange", nil, dt)
	if dt.IsBool() {
		throw("Arange", nil, "needs a numeric element type, got %s", dt)
	}
	needFinite("Arange", nil, "start, stop and step", start, stop, step)
	lenStart, lenStop, lenStep := start, stop, step
	if dt.IsInt() {
		start, stop, step = math.Trunc(start), math.Trunc(stop), math.Trunc(step)
		if dt == I64 {
			lenStart, lenStop, lenStep = start, stop, step
		}
	}
	if step == 0 {
		if dt.IsInt() {
			throw("Arange", nil, "step must not be zero (%s steps are truncated to integers)", dt)
		}
		throw("Arange", nil, "step must not be zero")
	}
	if (step > 0 && stop < start) || (step < 0 && stop > start) {
		throw("Arange", nil, "bounds [%v, %v) inconsistent with the step's sign (%v)", start, stop, step)
	}
	if (lenStop-lenStart)/lenStep > 1<<53 {
		throw("Arange", nil, "[%v, %v) in steps of %v has more than 2^53 elements", start, stop, step)
	}
	n := max(int64(math.Ceil((lenStop-lenStart)/lenStep)), 0)
	// Computed in torch's accumulation type, then converted: i64 for
	// integers (wrapping as torch's conversion does), f64 for f32, f32
	// for f16/bf16 (whose iota would lose integers above 2048 or 256).
	ct := dt
	switch {
	case dt.IsInt():
		ct = I64
	case dt == F32:
		ct = F64
	case dt == F16 || dt == BF16:
		ct = F32
	}
	t := Iota(ct, 0, n)
	if step != 1 {
		t = t.MulScalar(step)
	}
	if start != 0 {
		t = t.AddScalar(start)
	}
	return t.Cast(dt)
}

// applyOn applies an op with no tensor operands on dev.
func applyOn(dev *Device, code opCode, attrs Attrs) *Tensor {
	if dev.dryOf != nil {
		return dryApply(table[code], attrs, nil, dev)[0]
	}
	n := newNode(table[code], attrs)
	t := newPending(Value{n, 0}, dev)
	if eager() && !Tracing() {
		mustSync("Eager", t)
	}
	return t
}
