package lazy

import (
	"encoding/binary"
	"errors"

	"github.com/xlajit/xlajit/hlo"
)

// LowerCtx is what an op's lowering sees: the StableHLO scope of the graph's
// function.
type LowerCtx struct {
	S *hlo.Scope
	// checks are the flags of the run-time checks lowered so far.
	checks []loweredCheck
	// spmd: the graph runs on the SPMD device (annotations are lowered).
	spmd bool
	// splats are the splat constants lowered so far (constSplat).
	splats map[splatKey]*hlo.Value
}

// splatKey identifies a splat constant of a scope: its element's type and
// bits, its dims (rank at most 4).
type splatKey struct {
	s    *hlo.Scope
	dt   DType
	bits [2]uint64
	rank int
	dims [4]int64
}

// constSplat returns a constant of dims holding elem (a rank-0 literal) in
// every element, lowered once per scope: a traced function applies the
// same Go number to tensors of one shape over and over, and each would
// otherwise be an op of its own to build, plan and keep.
func (lc *LowerCtx) constSplat(elem *hlo.Literal, dims []int64) *hlo.Value {
	if len(dims) > 4 || len(elem.Data) > 16 || len(elem.Dims) != 0 {
		return lc.S.Splat(elem, dims)
	}
	k := splatKey{s: lc.S, dt: elem.DType, rank: len(dims)}
	var b [16]byte
	copy(b[:], elem.Data)
	k.bits[0], k.bits[1] = binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
	copy(k.dims[:], dims)
	if v := lc.splats[k]; v != nil {
		return v
	}
	v := lc.S.Splat(elem, dims)
	if lc.splats == nil {
		lc.splats = map[splatKey]*hlo.Value{}
	}
	lc.splats[k] = v
	return v
}

// scalar returns a 0-d constant of dt.
func (lc *LowerCtx) scalar(dt DType, v float64) *hlo.Value {
	return lc.S.Constant(hlo.ScalarLiteral(dt, v))
}

// splat returns a constant of shape like t (a broadcast 0-d constant).
func (lc *LowerCtx) splat(t *hlo.TensorType, v float64) *hlo.Value {
	c := lc.scalar(t.DType, v)
	if len(t.Dims) == 0 {
		return c
	}
	return lc.S.BroadcastInDim(c, t.Dims, nil)
}

func tensorType(v *hlo.Value) *hlo.TensorType { return v.Type.(*hlo.TensorType) }

// lowerNode runs n's lowering into b's function. The builder records its
// first error and hands out placeholder values afterwards, so lowering
// stops at the node whose lowering made the error: the result is an
// *Error naming the lazy op and its operand shapes, with the builder's
// message (and the builder's error as its Err). A panic inside the
// lowering after the builder failed is a consequence of the placeholders
// and gives that error too; any other panic is a bug and goes on.
func lowerNode(b *hlo.Builder, lc *LowerCtx, n *Node, in []*hlo.Value) (out []*hlo.Value, err error) {
	defer func() {
		if b.Err() == nil {
			return
		}
		if r := recover(); r != nil {
			out, err = nil, lowerError(n, b.Err())
		}
	}()
	out = n.op.Lower(lc, n, in)
	if be := b.Err(); be != nil {
		return nil, lowerError(n, be)
	}
	return out, nil
}

func lowerError(n *Node, err error) *Error {
	in := make([]Shape, len(n.inputs))
	for i, v := range n.inputs {
		in[i] = v.Shape()
	}
	msg := err.Error()
	var be *hlo.BuildError
	if errors.As(err, &be) {
		msg = be.Err.Error()
	}
	return &Error{Op: n.op.Name, Shapes: shapeStrings(in), Msg: "lowering to StableHLO failed: " + msg, Site: n.Site(), Err: err}
}

// single is a lowering's single result as a list: the list of the op that
// defines it when that op has this one result (no allocation).
func single(v *hlo.Value) []*hlo.Value {
	if v.Def != nil && len(v.Def.Results) == 1 && v.Def.Results[0] == v {
		return v.Def.Results
	}
	return []*hlo.Value{v}
}
