package movement

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// maxStackRank is the rank up to which run-time index buffers live on the
// stack; larger ranks fall back to a heap buffer.
const maxStackRank = 12

// parallelBytes is the output size above which a data-movement op splits its
// work over the worker pool.
const parallelBytes = 1 << 18

// asT views b as a []T (b is a literal's storage, aligned by hlo.NewLiteral).
func asT[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// runErr returns a run-time error of op.
func runErr(op *hlo.Op, format string, args ...any) error {
	return &kernel.OpError{Op: op.Name, Loc: op.Loc, Msg: fmt.Sprintf(format, args...)}
}

// lit returns argument i as a literal, or an error naming the op.
func lit(op *hlo.Op, args []kernel.Value, i int) (*hlo.Literal, error) {
	if i >= len(args) {
		return nil, runErr(op, "missing operand %d", i)
	}
	l, ok := args[i].(*hlo.Literal)
	if !ok || l == nil {
		return nil, runErr(op, "operand %d is %T, want a tensor", i, args[i])
	}
	return l, nil
}

// lits fills ls with arguments 0..len(ls)-1 as literals (lit).
func lits(op *hlo.Op, args []kernel.Value, ls []*hlo.Literal) error {
	for i := range ls {
		l, err := lit(op, args, i)
		if err != nil {
			return err
		}
		ls[i] = l
	}
	return nil
}

// tensorIn returns operand i's tensor type or a compile error.
func tensorIn(c *kernel.OpCtx, i int) (*hlo.TensorType, error) {
	if i >= len(c.In) {
		return nil, c.Errorf("expects at least %d operands, has %d", i+1, len(c.In))
	}
	t := c.InTensor(i)
	if t == nil {
		return nil, c.Errorf("operand %d has type %s, want a tensor", i, c.In[i])
	}
	return t, nil
}

// tensorOut returns result i's tensor type or a compile error.
func tensorOut(c *kernel.OpCtx, i int) (*hlo.TensorType, error) {
	if i >= len(c.Out) {
		return nil, c.Errorf("expects at least %d results, has %d", i+1, len(c.Out))
	}
	t := c.OutTensor(i)
	if t == nil {
		return nil, c.Errorf("result %d has type %s, want a tensor", i, c.Out[i])
	}
	return t, nil
}

// sameElemTypes returns operand 0's and result 0's tensor types, which
// must share an element type.
func sameElemTypes(c *kernel.OpCtx) (inT, outT *hlo.TensorType, err error) {
	if inT, err = tensorIn(c, 0); err != nil {
		return nil, nil, err
	}
	if outT, err = tensorOut(c, 0); err != nil {
		return nil, nil, err
	}
	if inT.DType != outT.DType {
		return nil, nil, c.Errorf("element type of result %s differs from operand %s", outT.ShapeString(), inT.ShapeString())
	}
	return inT, outT, nil
}

// intsAttr reads an integer-list attribute under the first of names that is
// present; ok is false when none is.
func intsAttr(c *kernel.OpCtx, names ...string) (vals []int64, ok bool, err error) {
	for _, n := range names {
		a := c.Op.Attr(n)
		if a == nil {
			continue
		}
		v, good := hlo.AttrInts(a)
		if !good {
			return nil, true, c.Errorf("attribute %s = %s is not a list of integers", n, hlo.AttrString(a))
		}
		return v, true, nil
	}
	return nil, false, nil
}

// reqInts reads a required integer-list attribute.
func reqInts(c *kernel.OpCtx, names ...string) ([]int64, error) {
	v, ok, err := intsAttr(c, names...)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.Errorf("missing attribute %s", names[0])
	}
	return v, nil
}

// intAttr reads an integer attribute, with a default when absent.
func intAttr(c *kernel.OpCtx, def int64, names ...string) (int64, error) {
	for _, n := range names {
		a := c.Op.Attr(n)
		if a == nil {
			continue
		}
		v, ok := hlo.AttrInt(a)
		if !ok {
			return 0, c.Errorf("attribute %s = %s is not an integer", n, hlo.AttrString(a))
		}
		return v, nil
	}
	return def, nil
}

// boolAttr reads a boolean attribute (false when absent).
func boolAttr(c *kernel.OpCtx, name string) bool {
	a := c.Op.Attr(name)
	if a == nil {
		return false
	}
	switch a := a.(type) {
	case hlo.BoolAttr:
		return bool(a)
	case hlo.UnitAttr:
		return true
	}
	v, ok := hlo.AttrInt(a)
	return ok && v != 0
}

// shapeOf prints a type for messages.
func shapeOf(t hlo.Type) string {
	if tt, ok := t.(*hlo.TensorType); ok {
		return tt.ShapeString()
	}
	if t == nil {
		return "<nil>"
	}
	return t.String()
}

// allStatic reports whether every tensor type is static.
func allStatic(ts ...*hlo.TensorType) bool {
	for _, t := range ts {
		if t == nil || !t.IsStatic() {
			return false
		}
	}
	return true
}

// stridesInt returns row-major element strides as ints.
func stridesInt(dims []int64) []int {
	s := make([]int, len(dims))
	acc := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= int(dims[i])
	}
	return s
}

// numel is the element count of static dims.
func numel(dims []int64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

// checkDims verifies that runtime dims match a type's static dims.
func checkDims(op *hlo.Op, what string, t *hlo.TensorType, dims []int64) error {
	if t == nil {
		return nil
	}
	if len(t.Dims) != len(dims) {
		return runErr(op, "%s has shape %s, type says %s", what, hlo.ShapeString(t.DType, dims), t.ShapeString())
	}
	for i, d := range t.Dims {
		if d >= 0 && d != dims[i] {
			return runErr(op, "%s has shape %s, type says %s", what, hlo.ShapeString(t.DType, dims), t.ShapeString())
		}
	}
	return nil
}

// isPerm reports whether p is a permutation of [0, n).
func isPerm(p []int64, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range p {
		if v < 0 || v >= int64(n) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// uniqueIn reports whether every value of xs is in [0, n) and unique.
func uniqueIn(xs []int64, n int) bool {
	seen := make([]bool, n)
	for _, v := range xs {
		if v < 0 || v >= int64(n) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// readIndex returns element i of an integer tensor as int64 (unsigned values
// above MaxInt64 saturate).
func readIndex(l *hlo.Literal, i int) int64 {
	switch l.DType {
	case hlo.I64:
		return asT[int64](l.Data)[i]
	case hlo.I32:
		return int64(asT[int32](l.Data)[i])
	case hlo.U64:
		v := asT[uint64](l.Data)[i]
		if v > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v)
	case hlo.U32:
		return int64(asT[uint32](l.Data)[i])
	case hlo.I16:
		return int64(asT[int16](l.Data)[i])
	case hlo.U16:
		return int64(asT[uint16](l.Data)[i])
	case hlo.I8, hlo.I4, hlo.I2:
		return int64(int8(l.Data[i]))
	case hlo.U8, hlo.U4, hlo.U2, hlo.Bool:
		return int64(l.Data[i])
	}
	return l.Int(i)
}

// readShape reads a 1-D integer shape operand (output_shape,
// output_dimensions, slice_sizes...) at run time.
func readShape(op *hlo.Op, what string, l *hlo.Literal) ([]int64, error) {
	if len(l.Dims) != 1 {
		return nil, runErr(op, "%s must be 1-D, has shape %s", what, l.ShapeString())
	}
	if !(l.DType.IsInt() || l.DType.IsBool()) {
		return nil, runErr(op, "%s must be an integer tensor, has shape %s", what, l.ShapeString())
	}
	out := make([]int64, l.Dims[0])
	for i := range out {
		out[i] = readIndex(l, i)
	}
	return out, nil
}

// clampI returns v clamped to [lo, hi] (lo when hi < lo).
func clampI(v, lo, hi int64) int64 {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// newOut returns a result literal dt[dims...] with unspecified contents
// (storage recycled from the execution's pool when it has some): every
// kernel here writes each element of its results.
func newOut(x *kernel.Ctx, dt hlo.DType, dims []int64) *hlo.Literal {
	if dims == nil {
		dims = []int64{}
	}
	return x.NewLiteralUninit(dt, dims)
}

// parallelFor runs fn over [0, n) on the kernel worker pool.
func parallelFor(n, grain int, fn func(lo, hi int)) { kernel.ParallelFor(n, grain, fn) }

// viewOf returns a new literal header dt[dims...] over data: kernel's
// View without a context, which takes no header from a pool.
func viewOf(dt hlo.DType, dims []int64, data []byte) *hlo.Literal {
	return (*kernel.Ctx)(nil).View(dt, dims, data)
}
