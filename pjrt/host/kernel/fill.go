package kernel

import "github.com/xlajit/xlajit/hlo"

// Fill sets every element of dst to elem (dst holds whole elements of
// len(elem) bytes; elem may be dst's own first element). An all-zero
// element clears dst; any other is copied by doubling runs.
func Fill(dst, elem []byte) {
	if len(dst) == 0 || len(elem) == 0 {
		return
	}
	allZero := true
	for _, b := range elem {
		if b != 0 {
			allZero = false
			break
		}
	}
	if allZero {
		clear(dst)
		return
	}
	n := copy(dst, elem)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// SplatElement returns the one value every element of v holds, as a
// rank-0 literal, when the program fixes it at compile time: v is
// broadcast_in_dim of a rank-0 constant, or a constant that is a compact
// splat or has one element (how lowerings and exporters write a number
// applied to a tensor). Pattern matchers use it so that both forms take
// the same fast paths.
func SplatElement(v *hlo.Value) (*hlo.Literal, bool) {
	d := v.Def
	if d == nil || len(d.Results) != 1 {
		return nil, false
	}
	if d.Name == "stablehlo.broadcast_in_dim" && len(d.Operands) == 1 {
		if t := d.Operands[0].TensorType(); t == nil || t.Rank() != 0 {
			return nil, false
		}
		d = d.Operands[0].Def
		if d == nil || len(d.Results) != 1 {
			return nil, false
		}
	}
	rt := d.Results[0].TensorType()
	a, ok := d.Attr("value").(*hlo.DenseElementsAttr)
	if d.Name != "stablehlo.constant" || !ok || rt == nil || rt.Quant != nil {
		return nil, false
	}
	var elem *hlo.Literal
	switch {
	case a.Splat != nil:
		elem = a.Splat
	case a.Value != nil && a.Value.NumElements() == 1 && len(a.Value.Dims) == 0:
		elem = a.Value
	case a.Value != nil && a.Value.NumElements() == 1:
		elem = &hlo.Literal{DType: a.Value.DType, Dims: []int64{}, Data: a.Value.Data}
	default:
		return nil, false
	}
	if elem.DType != rt.DType || len(elem.Data) != rt.DType.Size() {
		return nil, false
	}
	return elem, true
}
