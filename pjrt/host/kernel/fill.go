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
// rank-0 literal sharing the program's data, when the program fixes it at
// compile time: v is broadcast_in_dim of a constant of one element (of
// any rank), or a constant that is a compact splat or has one element
// (how lowerings and exporters write a number applied to a tensor).
// Pattern matchers use it so that every form takes the same fast paths.
func SplatElement(v *hlo.Value) (hlo.Literal, bool) {
	d := v.Def
	if d == nil || len(d.Results) != 1 {
		return hlo.Literal{}, false
	}
	if d.Name == "stablehlo.broadcast_in_dim" && len(d.Operands) == 1 {
		if t := d.Operands[0].TensorType(); t == nil || !t.IsStatic() || t.NumElements() != 1 {
			return hlo.Literal{}, false
		}
		d = d.Operands[0].Def
		if d == nil || len(d.Results) != 1 {
			return hlo.Literal{}, false
		}
	}
	rt := d.Results[0].TensorType()
	a, ok := d.Attr("value").(*hlo.DenseElementsAttr)
	if d.Name != "stablehlo.constant" || !ok || rt == nil || rt.Quant != nil {
		return hlo.Literal{}, false
	}
	var elem []byte
	switch {
	case a.Splat != nil && a.Splat.DType == rt.DType:
		elem = a.Splat.Data
	case a.Value != nil && a.Value.DType == rt.DType && a.Value.NumElements() == 1:
		elem = a.Value.Data
	}
	if len(elem) != rt.DType.Size() || len(elem) == 0 {
		return hlo.Literal{}, false
	}
	return hlo.Literal{DType: rt.DType, Dims: []int64{}, Data: elem}, true
}
