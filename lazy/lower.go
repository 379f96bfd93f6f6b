package lazy

import (
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
