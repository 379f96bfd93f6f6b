package kernel

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
