package refs

// Drop sets every element of s to its zero value, so that s keeps nothing
// alive. It does what clear(s) does; for the slices of a few elements the
// replay path reuses, an element-by-element store costs a handful of
// instructions where clear on a slice of pointers calls into the runtime
// (a bulk write barrier and a memory clear, about 40 instructions each
// time, even for one element). Longer slices go to clear.
func Drop[T any](s []T) {
	if len(s) > 16 {
		clear(s)
		return
	}
	var zero T
	for i := 0; i < len(s); i++ { // not a range loop: the compiler turns that into clear
		s[i] = zero
	}
}
