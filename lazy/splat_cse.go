package lazy

import "math"

// traceSplatKey identifies a splat constant of a trace: device, type, value bits and
// dims (up to rank 4; higher ranks are not shared).
type traceSplatKey struct {
	dev  *Device
	dt   DType
	bits uint64
	rank int
	dims [4]int64
}

// splat is splatOn for a Go number applied to a tensor inside a trace: a
// constant of the same value, type and shape made earlier in the trace is
// made once and shared (as XLA's CSE shares equal constants), so that a
// function applying the same number many times (a scale, an epsilon, a
// step size, a long chain of steps) records, hashes and converts one node
// for it instead of one per use (lowering shared them already, see
// LowerCtx.constSplat). Constants are immutable and never handed to the
// function (they are operands of the op the number was applied with), so
// sharing is invisible to it; a constant a cut computed is not shared
// again.
func (st *traceState) splat(dev *Device, dt DType, v float64, dims []int64) *Tensor {
	var k traceSplatKey
	if len(dims) > len(k.dims) {
		return splatOn(dev, dt, v, dims)
	}
	k = traceSplatKey{dev: dev, dt: dt, bits: math.Float64bits(v), rank: len(dims)}
	copy(k.dims[:], dims)
	if t := st.splats[k]; t != nil && pendingSplat(t) {
		return t
	}
	t := splatOn(dev, dt, v, dims)
	if pendingSplat(t) {
		if st.splats == nil {
			st.splats = map[traceSplatKey]*Tensor{}
		}
		st.splats[k] = t
	}
	return t
}

// pendingSplat reports whether t still holds the Splat node splatOn made
// (not device data, nor the broadcast of a shadow or SPMD device).
func pendingSplat(t *Tensor) bool {
	return t.data == nil && t.val.Node != nil && t.val.Node.op == table[opSplat]
}
