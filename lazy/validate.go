package lazy

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// Argument checks shared by the public ops. Each panics with an *Error
// naming the op and the caller's file:line; none changes any state, so an
// op calls them before it records anything.

// inferOut runs op's shape rule and panics with an *Error naming the op,
// the operand shapes and the caller when the rule rejects them (including
// a result shape the rule made with NewShape that is invalid).
func inferOut(op *OpDef, attrs Attrs, in []Shape) []Shape {
	out, err := inferShapes(op, attrs, in)
	if err != nil {
		throw(op.Name, in, "%v", err)
	}
	return out
}

// inferShapes is op.Infer with a NewShape failure inside the rule (a
// result dimension that is negative or overflows) returned as the rule's
// error, and every result shape checked (a rule may derive one from an
// operand without NewShape: a cast to a wider type can overflow the byte
// size).
func inferShapes(op *OpDef, attrs Attrs, in []Shape) (out []Shape, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok || e.Op != "NewShape" {
				panic(r)
			}
			out, err = nil, errors.New(e.Msg)
		}
	}()
	out, err = op.Infer(in, attrs)
	for _, s := range out {
		if err == nil {
			err = checkDims(s.DType, s.Dims)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// needTensors panics when one of ts is nil; names lists the parameter
// names, comma-separated, in the order of ts ("x,w": the receiver of a
// method is x).
func needTensors(op, names string, ts ...*Tensor) {
	for i, t := range ts {
		if t == nil {
			throw(op, shapesOf(ts), "%s is nil", nthName(names, i))
		}
		if t.data == nil && t.val.Node == nil && !t.isDry() {
			throw(op, shapesOf(ts), "%s %s", nthName(names, i), holdsNothing(t))
		}
	}
}

// needList panics when a tensor of the list ts (parameter list) is nil or
// the list is empty and empty is not allowed.
func needList(op, list string, ts []*Tensor, allowEmpty bool) {
	if len(ts) == 0 && !allowEmpty {
		throw(op, nil, "%s is empty", list)
	}
	for i, t := range ts {
		if t == nil {
			throw(op, shapesOf(ts), "%s[%d] is nil", list, i)
		}
		if t.data == nil && t.val.Node == nil && !t.isDry() {
			throw(op, shapesOf(ts), "%s[%d] %s", list, i, holdsNothing(t))
		}
	}
}

func nthName(names string, i int) string {
	parts := strings.Split(names, ",")
	if i < len(parts) {
		return parts[i]
	}
	return fmt.Sprintf("operand %d", i)
}

// needDevice panics when dev is nil.
func needDevice(op string, dev *Device) {
	if dev == nil {
		throw(op, nil, "device is nil")
	}
}

// needDType panics unless dt is an element type lazy tensors can hold.
func needDType(op string, in []Shape, dt DType) {
	if !dt.Valid() || dt.Size() == 0 {
		throw(op, in, "invalid element type %v", dt)
	}
}

// needDims panics when dims is not a valid shape for dt (a negative
// dimension, more elements or bytes than an int64 counts).
func needDims(op string, in []Shape, dt DType, dims []int64) {
	if err := checkDims(dt, dims); err != nil {
		throw(op, in, "%v", err)
	}
}

// needAxis normalises axis, an axis of an operand of rank rank, as
// PyTorch wraps a dim: -rank..rank-1, and -1..0 for a 0-d operand (which
// PyTorch takes as having one axis), or panics naming op, the shapes of
// the operands ts and the valid range. For rank 0 it returns 0, which is
// no axis of the operand: the op handles a 0-d operand itself, and
// nothing it records takes that axis.
func needAxis(op string, axis, rank int, ts ...*Tensor) int {
	r := max(rank, 1)
	a, ok := normAxis(axis, r)
	if !ok {
		throw(op, shapesOf(ts), "axis %d out of range for rank %d (want %d..%d)", axis, rank, -r, r-1)
	}
	return a
}

// needExistingAxis is needAxis for the ops PyTorch refuses on 0-d
// tensors (narrow, split, chunk, cat, permute): -rank..rank-1, and no
// axis of a 0-d operand.
func needExistingAxis(op string, axis, rank int, ts ...*Tensor) int {
	a, ok := normAxis(axis, rank)
	switch {
	case !ok && rank == 0:
		throw(op, shapesOf(ts), "axis %d out of range: a 0-d tensor has no axes (want rank 1 or more)", axis)
	case !ok:
		throw(op, shapesOf(ts), "axis %d out of range for rank %d (want %d..%d)", axis, rank, -rank, rank-1)
	}
	return a
}

// needFinite panics unless every v is finite.
func needFinite(op string, in []Shape, what string, vs ...float64) {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			throw(op, in, "%s must be finite, got %v", what, v)
		}
	}
}

// checkAttrs reports an attribute whose value type Attrs cannot hold.
func checkAttrs(a Attrs) error {
	for _, x := range a {
		switch v := x.Val.(type) {
		case int64, []int64, float64, bool, string, DType:
		case *hlo.Literal:
			if v == nil {
				return fmt.Errorf("attribute %s is a nil literal", x.Key)
			}
		default:
			return fmt.Errorf("attribute %s has unsupported type %T", x.Key, v)
		}
	}
	return nil
}

// checkLiteral reports a literal that is not a valid tensor value: nil, an
// invalid element type or shape, or a payload of the wrong length.
func checkLiteral(l *hlo.Literal) error {
	if l == nil {
		return errors.New("literal is nil")
	}
	if !l.DType.Valid() || l.DType.Size() == 0 {
		return fmt.Errorf("invalid element type %v", l.DType)
	}
	if err := checkDims(l.DType, l.Dims); err != nil {
		return err
	}
	if n := hlo.NumElements(l.Dims); int64(len(l.Data)) != n*int64(l.DType.Size()) {
		return fmt.Errorf("%d bytes of data for %s (%d elements of %d bytes)", len(l.Data), l.ShapeString(), n, l.DType.Size())
	}
	return nil
}

// needRealFloat panics unless x's element type is a real float.
func needRealFloat(op string, x *Tensor) {
	if !x.DType().IsFloat() {
		throw(op, []Shape{x.shape}, "needs a real floating-point tensor, got %s (use Cast)", x.DType())
	}
}

// holdsNothing says why t, which holds neither data nor IR, is empty.
func holdsNothing(t *Tensor) string {
	if t.dev == nil {
		return "is a zero Tensor value, which holds nothing: make tensors with the lazy constructors (FromSlice, Zeros, ...)"
	}
	return "holds nothing (emptied by Release, or restored from an empty snapshot): Restore a state into it before using it"
}
