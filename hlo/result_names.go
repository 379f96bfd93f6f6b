package hlo

// ResultNames returns the left side of op's line as the printer writes it
// in f (op may sit in a nested region of f): "%0", "%cst", "%2:2" or
// "%a, %b:2". It is "" when op has no results or is not in f. The
// reference interpreter's interpreter.print shows its operand this way.
func (f *Func) ResultNames(op *Op) string {
	if len(op.Results) == 0 {
		return ""
	}
	n := newNamer()
	n.numberFunc(f, 0, 0, 0, nil)
	if _, ok := n.names[op.Results[0]]; !ok {
		return ""
	}
	return n.resultList(op)
}
