package lazy

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// errCase is one bad call: fn must sit on one line (its source line is the
// call site the error must name).
type errCase struct {
	op     string   // Error.Op
	shapes []string // Error.Shapes (nil: not checked)
	msg    string   // a substring of Error.Msg
	fn     func()
}

func lineOf(fn func()) (string, int) {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	file, line := f.FileLine(f.Entry())
	return file, line
}

func TestErrors(t *testing.T) {
	f23 := Zeros(F32, 2, 3)
	f4 := Zeros(F32, 4)
	d23 := Zeros(F64, 2, 3)
	f45 := Zeros(F32, 4, 5)
	i3 := Zeros(I32, 3)
	i23 := Zeros(I64, 2, 3)
	x4 := Zeros(F32, 1, 3, 5, 5)
	w4 := Zeros(F32, 2, 2, 3, 3)
	s := func(xs ...string) []string { return xs }
	cases := []errCase{
		{"Add", s("f32[2,3]", "f32[4]"), "do not broadcast", func() { f23.Add(f4) }},
		{"Add", s("ui64[3]", "i64[2,3]"), "no integer type holds both", func() { Zeros(U64, 3).Add(i23) }},
		{"Compare", s("f32[2,3]", "f32[4]"), "do not broadcast", func() { f23.Lt(f4) }},
		{"Floor", s("complex<f32>[3]"), "real floating-point", func() { Zeros(C64, 3).Floor() }},
		{"Not", s("f32[4]"), "boolean or integer", func() { f4.Not() }},
		{"Pow", s("i1[3]", "i1[3]"), "numeric", func() { Zeros(Bool, 3).Pow(Zeros(Bool, 3)) }},
		{"And", s("f32[4]", "f32[4]"), "boolean or integer", func() { f4.And(f4) }},
		{"Clamp", s("complex<f32>[3]"), "real", func() { Zeros(C64, 3).Clamp(0, 1) }},
		{"Where", s("f32[2,3]", "f32[2,3]", "f32[2,3]"), "bool", func() { Where(f23, f23, f23) }},
		{"Where", s("i1[4]", "f32[2,3]"), "does not broadcast", func() { Where(Zeros(Bool, 4), f23, f23) }},
		{"MatMul", s("f32[2,3]", "f32[4,5]"), "inner", func() { f23.MatMul(f45) }},
		{"MatMul", s("f32[2,3]", "f64[3,2]"), "element types", func() { f23.MatMul(d23.T()) }},
		{"MatMul", s("f32[2,2,3]", "f32[3,3,2]"), "batch", func() { Zeros(F32, 2, 2, 3).MatMul(Zeros(F32, 3, 3, 2)) }},
		{"MatMul", s("f32[]", "f32[4]"), "rank", func() { Scalar(F32, 1).MatMul(f4) }},
		{"Linear", s("f32[2,3]", "f32[4,5]"), "inner", func() { Linear(f23, f45, nil) }},
		{"Linear", s("f32[2,3]", "f32[4,3]", "f64[4]"), "bias element type f64 differs from the input's f32", func() { Linear(f23, Zeros(F32, 4, 3), Zeros(F64, 4)) }},
		{"Conv2d", s("f32[1,3,5,5]", "f32[2,3,3,3]", "f64[2]"), "bias element type f64", func() { Conv2d(x4, Zeros(F32, 2, 3, 3, 3), Zeros(F64, 2), Conv2dOpts{}) }},
		{"Conv2d", s("f32[1,3,5,5]", "f32[0,3,3,3]"), "no output channels", func() { Conv2d(x4, Zeros(F32, 0, 3, 3, 3), nil, Conv2dOpts{}) }},
		{"LayerNorm", s("f32[2,3]", "f64[3]"), "weight element type f64", func() { LayerNorm(f23, 1, Zeros(F64, 3), nil, 1e-5) }},
		{"LayerNorm", s("f32[2,3]", "f32[3]", "bf16[3]"), "bias element type bf16", func() { LayerNorm(f23, 1, Zeros(F32, 3), Zeros(BF16, 3), 1e-5) }},
		{"IndexSelect", s("f32[2,3]", "ui8[2]"), "i32 or i64", func() { f23.IndexSelect(1, Zeros(U8, 2)) }},
		{"ScatterAdd", s("f32[3,4]", "i64[1,2]", "f32[2,1]"), "no larger than src", func() { Zeros(F32, 3, 4).ScatterAdd(1, Zeros(I64, 1, 2), Zeros(F32, 2, 1)) }},
		{"Pad", s("ui8[2]"), "cannot be converted", func() { Zeros(U8, 2).PadWith([]int64{1}, []int64{1}, []int64{0}, -1) }},
		{"Einsum", s("f32[2,3]", "f32[4,5]"), "label j", func() { Einsum("ij,jk->ik", f23, f45) }},
		{"Einsum", s("f32[2,3]"), "rank 2", func() { Einsum("ijk->i", f23) }},
		{"Einsum", s("f32[2,3]"), "repeated label", func() { Einsum("ii->i", f23) }},
		{"Einsum", s("f32[2,3]", "f32[2,2]"), "label j has sizes 3 and 2, which do not broadcast", func() { Einsum("ij,ij->i", f23, Zeros(F32, 2, 2)) }},
		{"Einsum", s("f32[2,3]", "f32[4,5,3]"), "axis 1 of ... has sizes 2 and 5", func() { Einsum("...,...->...", f23, Zeros(F32, 4, 5, 3)) }},
		{"Einsum", s("f32[4]"), "operand 0 has rank 1, spec gives 2 labels besides its ...", func() { Einsum("...ij->...ji", f4) }},
		{"Einsum", s("f32[2,3]"), "operand 0 has more than one ...", func() { Einsum("...i...->i", f23) }},
		{"Einsum", s("f32[2,3]"), "the output has a '.' that is not part of ...", func() { Einsum("ij->.ji", f23) }},
		{"Einsum", s("f32[2,3]"), "operand 0: label 'Ω' is not a letter a-z or A-Z", func() { Einsum("iΩ->Ωi", f23) }},
		{"Einsum", s("f32[2,3]"), "the output: label '1' is not a letter", func() { Einsum("ij->j1", f23) }},
		{"Reshape", s("f32[2,3]"), "cannot reshape 6 elements", func() { f23.Reshape(4, 2) }},
		{"Reshape", s("f32[2,3]"), "-1", func() { f23.Reshape(-1, -1) }},
		{"Permute", s("f32[2,3]"), "permutation", func() { f23.Permute(0, 0) }},
		{"Permute", s("f32[2,3]"), "out of range", func() { f23.Permute(0, 2) }},
		{"Transpose", s("f32[4]"), "out of range", func() { f4.T() }},
		{"BroadcastTo", s("f32[2,3]"), "cannot broadcast", func() { f23.BroadcastTo(4, 3) }},
		{"BroadcastTo", s("f32[2,3]"), "fewer", func() { f23.BroadcastTo(3) }},
		{"Squeeze", s("f32[2,3]"), "out of range", func() { f23.Squeeze(2) }},
		{"Squeeze", s("f32[2,3]"), "more than once", func() { f23.Squeeze(0, -2) }},
		{"Unsqueeze", s("f32[2,3]"), "out of range", func() { f23.Unsqueeze(4) }},
		{"Slice", s("f32[2,3]"), "axis 1: step 0 must be at least 1", func() { f23.SliceStrided([]int64{0, 0}, []int64{2, 4}, []int64{1, 0}) }},
		{"Slice", s("f32[2,3]"), "axis 0: step -1 must be at least 1", func() { f23.SliceStrided([]int64{2, 0}, []int64{0, 3}, []int64{-1, 1}) }},
		{"Narrow", s("f32[2,3]"), "out of range", func() { f23.Narrow(1, 2, 2) }},
		{"Narrow", s("f32[2,3]"), "want -3 to 3", func() { f23.Narrow(1, -4, 1) }},
		{"Concat", s("f32[2,3]", "f32[4]"), "rank", func() { Concat(0, f23, f4) }},
		{"Concat", s("ui64[3]", "i64[3]"), "no integer type holds both", func() { Concat(0, Zeros(U64, 3), Zeros(I64, 3)) }},
		{"Concat", s("f32[2,3]", "f32[4,5]"), "axis 1", func() { Concat(0, f23, f45) }},
		{"Concat", s("f32[0]", "f32[2,3]"), "axis 2 out of range for rank 2", func() { Concat(2, Zeros(F32, 0), f23) }},
		{"Concat", s("f32[2,3]", "f32[0]", "f32[4,5]"), "axis 1", func() { Concat(0, f23, Zeros(F32, 0), f45) }},
		{"Concat", s("f32[0]", "f32[]"), "a 0-d tensor has no axes", func() { Concat(0, Zeros(F32, 0), Scalar(F32, 1)) }},
		{"Stack", s("f32[2,3]", "f32[4,5]"), "shape", func() { Stack(0, f23, f45) }},
		{"Split", s("f32[2,3]"), "add up", func() { f23.Split(1, 1, 1) }},
		{"Split", s("f32[2,3]"), "negative", func() { f23.Split(1, 4, -1) }},
		{"Concat", s("f32[2,3]"), "axis 2", func() { Concat(2, f23) }},
		{"Chunk", s("f32[2,3]"), "at least one piece", func() { f23.Chunk(1, 0) }},
		{"Chunk", s("f32[2,3]"), "out of range", func() { f23.Chunk(5, 2) }},
		{"Pad", s("f32[2,3]"), "lo/hi pairs", func() { f23.Pad(1, 2, 3) }},
		{"Pad", s("f32[2,3]"), "negative", func() { f23.PadWith([]int64{0, -2}, []int64{0, -2}, []int64{0, 0}, 0) }},
		{"Flip", s("f32[2,3]"), "out of range", func() { f23.Flip(2) }},
		{"ReduceSum", s("f32[2,3]"), "axis 2", func() { f23.Sum(2) }},
		{"ReduceMax", s("f32[2,3]"), "repeated", func() { f23.ReduceMax(1, -1) }},
		{"Mean", s("f32[2,3]"), "axis", func() { f23.Mean(3) }},
		{"Mean", s("i64[2,3]"), "floating-point", func() { i23.Mean() }},
		{"Var", s("i64[2,3]"), "floating-point", func() { i23.Var() }},
		{"ArgMax", s("f32[2,3]"), "out of range", func() { f23.ArgMax(2) }},
		{"LogSumExp", s("f32[2,3]"), "axis", func() { f23.LogSumExp(7) }},
		{"TakeAlong", s("f32[2,3]", "i32[3]"), "rank", func() { f23.TakeAlong(1, i3) }},
		{"TakeAlong", s("f32[2,3]", "f32[2,3]"), "integers", func() { f23.TakeAlong(1, f23) }},
		{"TakeAlong", s("f32[2,3]", "i64[4,3]"), "axis 0", func() { f23.TakeAlong(1, Zeros(I64, 4, 3)) }},
		{"IndexSelect", s("f32[2,3]", "i64[2,3]"), "want 0-d or 1-D integer indices", func() { f23.IndexSelect(0, i23) }},
		{"IndexSelect", s("f32[2,3]", "ui8[]"), "i32 or i64", func() { f23.IndexSelect(0, Scalar(U8, 1)) }},
		{"ScatterAdd", s("f32[2,3]", "i64[2,3]", "f32[4]"), "source", func() { f23.ScatterAdd(1, i23, f4) }},
		{"OneHot", s("f32[4]"), "integers", func() { OneHot(f4, 3, F32) }},
		{"Conv2d", s("f32[1,3,5,5]", "f32[2,2,3,3]"), "input features", func() { Conv2d(x4, w4, nil, Conv2dOpts{}) }},
		{"Conv2d", s("f32[2,3]", "f32[2,2,3,3]"), "4-D", func() { Conv2d(f23, w4, nil, Conv2dOpts{}) }},
		{"Conv2d", s("f32[1,3,5,5]", "f32[2,3,3,3]", "f32[3]"), "bias", func() { Conv2d(x4, Zeros(F32, 2, 3, 3, 3), Zeros(F32, 3), Conv2dOpts{}) }},
		{"MaxPool2d", s("f32[2,3]"), "4-D", func() { f23.MaxPool2d([2]int64{2, 2}, [2]int64{}, [2]int64{}) }},
		{"AvgPool2d", s("f32[1,3,5,5]"), "kernel", func() { x4.AvgPool2d([2]int64{0, 2}, [2]int64{}, [2]int64{}) }},
		{"CrossEntropy", s("f32[2,3]", "i32[3]"), "labels", func() { CrossEntropy(f23, i3) }},
		{"LayerNorm", s("f32[2,3]"), "last 3 axes", func() { LayerNorm(f23, 3, nil, nil, 1e-5) }},
		{"LayerNorm", s("f32[2,3]", "f32[4]"), "weight of shape [4] must have the normalised shape [3]", func() { LayerNorm(f23, 1, f4, nil, 1e-5) }},
		{"Softmax", s("f32[2,3]"), "axis 3", func() { f23.Softmax(3) }},
		{"LogSoftmax", s("f32[2,3]"), "axis -3", func() { f23.LogSoftmax(-3) }},
		{"Linear", s("f32[2,3]", "f32[3]"), "2-D", func() { Linear(f23, Zeros(F32, 3), nil) }},
		{"Linear", s("f32[2,3]", "f32[4,3]", "f32[5]"), "Add: ", func() { Linear(f23, Zeros(F32, 4, 3), Zeros(F32, 5)) }},
		{"Dropout", s("f32[2,3]"), "[0, 1]", func() { f23.Dropout(1.5, true) }},
		{"Cumsum", s("f32[2,3]"), "out of range", func() { f23.Cumsum(2) }},
		{"ReduceSum", s("f32[]"), "axis 1 out of range for rank 0 (want -1..0)", func() { Scalar(F32, 1).Sum(1) }},
		{"Softmax", s("f32[]"), "axis -2 out of range for rank 0 (want -1..0)", func() { Scalar(F32, 1).Softmax(-2) }},
		{"Sort", s("f32[]"), "axis 1 out of range for rank 0 (want -1..0)", func() { Scalar(F32, 1).Sort(1, false) }},
		{"TakeAlong", s("f32[]", "i64[]"), "axis -2 out of range for rank 0 (want -1..0)", func() { Scalar(F32, 1).TakeAlong(-2, Scalar(I64, 0)) }},
		{"Narrow", s("f32[]"), "a 0-d tensor has no axes", func() { Scalar(F32, 1).Narrow(0, 0, 1) }},
		{"Sort", s("f32[2,3]"), "out of range", func() { f23.Sort(-3, false) }},
		{"TopK", s("f32[2,3]"), "k = 4", func() { f23.TopK(4) }},
		{"DynamicSlice", s("f32[2,3]", "f32[]", "i32[]"), "integer", func() { f23.DynamicSlice([]*Tensor{Scalar(F32, 0), Scalar(I32, 0)}, []int64{1, 1}) }},
		{"DynamicSlice", s("f32[2,3]", "i32[]", "i1[]"), "integer scalar", func() { f23.DynamicSlice([]*Tensor{Scalar(I32, 0), Scalar(Bool, 0)}, []int64{1, 1}) }},
		{"DynamicSlice", s("f32[2,3]", "i32[]"), "one start index", func() { f23.DynamicSlice([]*Tensor{Scalar(I32, 0)}, []int64{1, 1}) }},
		{"DynamicUpdateSlice", s("f32[2,3]", "f32[3,3]", "i32[]", "i32[]"), "larger", func() { f23.DynamicUpdateSlice(Zeros(F32, 3, 3), []*Tensor{Scalar(I32, 0), Scalar(I32, 0)}) }},
		{"MaskedSelect", s("f32[2,3]", "i1[2]"), "mask shape [2] does not broadcast with [2 3]", func() { f23.MaskedSelect(Zeros(Bool, 2)) }},
		{"Unique", s("complex<f32>[2]"), "complex", func() { Zeros(C64, 2).Unique() }},
		{"Grad", s("f32[2,3]"), "one element", func() { Grad(f23, f23) }},
		{"Item", s("f32[2,3]"), "6 elements", func() { f23.Item() }},
		{"Arange", nil, "step", func() { Arange(F32, 0, 1, 0) }},
		{"Arange", nil, "truncated", func() { Arange(I32, 0, 3, 0.5) }},
		{"Arange", nil, "sign", func() { Arange(F32, 5, 0, 1) }},
		{"RandUniform", nil, "floating-point", func() { RandUniform(I32, 0, 1, 3) }},
		{"Iota", nil, "axis 2", func() { Iota(F32, 2, 3, 4) }},
		{"FromSlice", nil, "do not fill", func() { FromSlice([]float32{1, 2, 3}, 2, 2) }},
	}
	for _, c := range cases {
		file, line := lineOf(c.fn)
		site := fmt.Sprintf("%s:%d", shortFile(file), line)
		t.Run(fmt.Sprintf("%s@%d", c.op, line), func(t *testing.T) {
			err := Try(c.fn)
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("%s: got %v (%T), want a *lazy.Error", site, err, err)
			}
			if le.Op != c.op {
				t.Errorf("%s: Op %q, want %q (%v)", site, le.Op, c.op, le)
			}
			if c.shapes != nil && !reflect.DeepEqual(le.Shapes, c.shapes) {
				t.Errorf("%s: Shapes %q, want %q (%v)", site, le.Shapes, c.shapes, le)
			}
			if !strings.Contains(le.Msg, c.msg) {
				t.Errorf("%s: message %q does not mention %q", site, le.Msg, c.msg)
			}
			if le.Site != site {
				t.Errorf("Site %q, want %q (%v)", le.Site, site, le)
			}
			if s := le.Error(); !strings.HasPrefix(s, site+": "+c.op) {
				t.Errorf("Error() = %q, want it to start with the site and op", s)
			}
		})
	}
}

// TestErrorNoSideEffects: a failed op leaves its operands usable.
func TestErrorNoSideEffects(t *testing.T) {
	a := FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := a.MulScalar(2)
	if err := Try(func() { b.Add(Zeros(F32, 4)) }); err == nil {
		t.Fatal("no error")
	}
	expectT(t, "after error", b.AddScalar(1), F32, ndOf([]float64{3, 5, 7, 9, 11, 13}, 2, 3), exact)
}

// TestArangeZeroStepMessage: a zero float step is refused without the
// note about integer steps, which said "f32 steps are truncated to
// integers".
func TestArangeZeroStepMessage(t *testing.T) {
	err := Try(func() { Arange(F32, 0, 1, 0) })
	if err == nil || !strings.HasSuffix(err.Error(), "Arange: step must not be zero") {
		t.Errorf("Arange(F32, 0, 1, 0): %v, want \"step must not be zero\" alone", err)
	}
}

// TestEmptiedTensorsAndForeignSnapshots: a tensor emptied by Release (or
// by restoring an empty snapshot) is refused by ops and reads with an
// error saying so (they dereferenced nil deep in the executor), and
// Restore refuses a snapshot of another type or element count (it made
// an f32[2,3] tensor hold five f64 values).
func TestEmptiedTensorsAndForeignSnapshots(t *testing.T) {
	x := FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y.Release()
	var z Tensor
	for name, f := range map[string]func(){
		"op":       func() { y.AddScalar(1) },
		"read":     func() { y.Float32s() },
		"list":     func() { Concat(0, x, y) },
		"restored": func() { w := x.Share(); w.Restore(TensorState{}); w.Sum() },
		"zero":     func() { z.Neg() },
		"share":    func() { var n *Tensor; n.Share() },
	} {
		err := Try(f)
		if err == nil || !strings.Contains(err.Error(), "holds nothing") && !strings.Contains(err.Error(), "is nil") {
			t.Errorf("%s: %v, want an error", name, err)
		}
	}
	// Sync and Literal return the error (they dereferenced nil).
	if err := Sync(y); err == nil || !strings.Contains(err.Error(), "holds nothing") {
		t.Errorf("Sync of an emptied tensor: %v, want an error", err)
	}
	if _, err := y.Literal(); err == nil || !strings.Contains(err.Error(), "holds nothing") {
		t.Errorf("Literal of an emptied tensor: %v, want an error", err)
	}
	before := x.Float32s()
	for _, s := range []TensorState{Zeros(F64, 5).State(), Zeros(F32, 3).AddScalar(1).State()} {
		err := Try(func() { x.Restore(s) })
		if err == nil || !strings.Contains(err.Error(), "the snapshot is of another shape") {
			t.Errorf("Restore of another shape's snapshot: %v, want an error", err)
		}
	}
	if got := x.Float32s(); !slices.Equal(got, before) {
		t.Errorf("x is %v after refused Restores, want %v", got, before)
	}
	// Release then Restore into another tensor of the same shape works,
	// an emptied one too (a swap).
	w := Zeros(F32, 2, 3)
	w.Release()
	w.Restore(x.Release())
	if got := w.Float32s(); !slices.Equal(got, before) {
		t.Errorf("moved contents %v, want %v", got, before)
	}
}
