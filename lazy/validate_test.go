package lazy

import (
	"math"
	"sort"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
)

// operands are the tensors the bad calls use, made fresh for each mode.
type operands struct {
	f23, f4, f3, d23, f45, i3, i23, b4, b23, c2, x4, w4, scalar, e03 *Tensor
	huge                                                             *Tensor // placeholder f32[2^30, 2^30]: IR only
	bool62                                                           *Tensor // placeholder i1[2^62]
	batchA, batchB                                                   *Tensor // placeholders whose matmul overflows
	i8big                                                            *Tensor // placeholder i8[2^31, 2^31]: promoting it overflows
	emptyPH, phSum                                                   *Tensor // placeholder f32[0, 5], its sum
	other, other4, otherI                                            *Tensor // on a second device
	otherT, yNoGrad, yLoss, yHost                                    *Tensor // other.T(); scalars through Unique, f4.Sum(), a HostFunc
	noGradFn                                                         func(...*Tensor) []*Tensor
	memo                                                             map[string]*Tensor
}

// z returns zeros of dt[dims] made once: a case that needs an operand of
// its own gets it here, so that making it is not part of the call checked
// (each case runs once before it is checked).
func (o *operands) z(dt DType, dims ...int64) *Tensor {
	k := NewShape(dt, dims...).String()
	if o.memo[k] == nil {
		o.memo[k] = Zeros(dt, dims...)
	}
	return o.memo[k]
}

var secondDevice = DevicesOf(host.NewClient(2))[1]

func newOperands() *operands {
	o := &operands{
		f23: Zeros(F32, 2, 3), f4: Zeros(F32, 4), f3: Zeros(F32, 3), d23: Zeros(F64, 2, 3), f45: Zeros(F32, 4, 5),
		i3: Zeros(I32, 3), i23: Zeros(I64, 2, 3), b4: Zeros(Bool, 4), b23: Zeros(Bool, 2, 3), c2: Zeros(C64, 2),
		x4: Zeros(F32, 1, 3, 5, 5), w4: Zeros(F32, 2, 3, 3, 3), scalar: Scalar(F32, 1), e03: Zeros(F32, 0, 3),
		huge:    NewPlaceholder(NewShape(F32, 1<<30, 1<<30), DefaultDevice()),
		bool62:  NewPlaceholder(NewShape(Bool, 1<<62), DefaultDevice()),
		batchA:  NewPlaceholder(NewShape(F32, 1<<20, 1, 1, 2), DefaultDevice()),
		emptyPH: NewPlaceholder(NewShape(F32, 0, 5), DefaultDevice()),
		i8big:   NewPlaceholder(NewShape(I8, 1<<31, 1<<31), DefaultDevice()),
		batchB:  NewPlaceholder(NewShape(F32, 1, 1<<20, 2, 1<<22), DefaultDevice()),
		other:   FullOn(secondDevice, F32, 0, 2, 3), other4: FullOn(secondDevice, F32, 0, 4), otherI: FullOn(secondDevice, I64, 0, 2),
	}
	o.memo = map[string]*Tensor{}
	o.phSum = o.emptyPH.Sum()
	o.otherT = o.other.T()
	o.yLoss = o.f4.Sum()
	o.yNoGrad = o.f4.Unique().Sum().Add(o.f4.Sum())
	o.noGradFn = HostFunc("validate_test_copy", copyLiterals, NewShape(F32, 4))
	o.yHost = o.noGradFn(o.f4)[0].Sum()
	return o
}

func (o *operands) all() []*Tensor {
	ts := []*Tensor{o.f23, o.f4, o.f3, o.d23, o.f45, o.i3, o.i23, o.b4, o.b23, o.c2, o.x4, o.w4, o.scalar, o.e03,
		o.huge, o.bool62, o.batchA, o.batchB, o.emptyPH, o.phSum, o.i8big, o.other, o.other4, o.otherI, o.otherT, o.yNoGrad, o.yLoss, o.yHost}
	keys := make([]string, 0, len(o.memo))
	for k := range o.memo {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ts = append(ts, o.memo[k])
	}
	return ts
}

// mustErr panics with err (a call's returned error, checked like a panic).
func mustErr(_ any, err error) {
	if err != nil {
		panic(err)
	}
}

func pair(a, b int64) [2]int64 { return [2]int64{a, b} }

var nilT *Tensor

// copyLiterals is a host function returning its inputs.
func copyLiterals(in []*hlo.Literal) ([]*hlo.Literal, error) { return in, nil }

// badCalls is one case per way of calling the public API wrongly. Each fn
// sits on one line: its line is the site the error must name.
func badCalls(o *operands) []errCase {
	f23, f4, f3, d23, f45, i3, i23, b4, b23, c2, x4, w4 := o.f23, o.f4, o.f3, o.d23, o.f45, o.i3, o.i23, o.b4, o.b23, o.c2, o.x4, o.w4
	nan, inf := math.NaN(), math.Inf(1)
	dev := DefaultDevice()
	badLit := &hlo.Literal{DType: F32, Dims: []int64{4}, Data: make([]byte, 3)}
	ident := copyLiterals
	return []errCase{
		// Random ops: nothing may reach the RNG state.
		{"RandN", nil, "negative dimension -3", func() { RandN(F32, -3) }},
		{"RandN", nil, "floating-point", func() { RandN(I32, 2) }},
		{"RandN", nil, "floating-point", func() { RandN(C64, 2) }},
		{"RandN", nil, "device is nil", func() { RandNOn(nil, F32, 2) }},
		{"RandN", nil, "2^63-1", func() { RandN(F32, 1<<40, 1<<40) }},
		{"RandUniform", nil, "lo = 1 is above hi = 0", func() { RandUniform(F32, 1, 0, 2) }},
		{"RandUniform", nil, "finite", func() { RandUniform(F32, nan, 1, 2) }},
		{"RandUniform", nil, "finite", func() { RandUniform(F64, 0, inf, 2) }},
		{"RandUniform", nil, "overflows f16", func() { RandUniform(F16, -60000, 60000, 2) }},
		{"RandUniform", nil, "negative dimension", func() { RandUniform(F32, 0, 1, 2, -1) }},
		{"RandUniform", nil, "floating-point", func() { RandUniform(Bool, 0, 1, 2) }},
		{"RandUniform", nil, "device is nil", func() { RandUniformOn(nil, F32, 0, 1, 2) }},
		{"Dropout", nil, "[0, 1]", func() { f23.Dropout(nan, true) }},
		{"Dropout", nil, "[0, 1]", func() { f23.Dropout(-0.1, true) }},
		{"Dropout", nil, "[0, 1]", func() { f23.Dropout(1.5, false) }},
		{"Dropout", nil, "floating-point", func() { i3.Dropout(0.5, true) }},
		{"Dropout", nil, "x is nil", func() { nilT.Dropout(0.5, true) }},
		// Creation.
		{"Zeros", nil, "negative dimension -1", func() { Zeros(F32, -1) }},
		{"Zeros", nil, "2^63-1 elements", func() { Zeros(F32, 1<<32, 1<<32, 16) }},
		{"Zeros", nil, "2^63-1 bytes", func() { Zeros(F64, 1<<31, 1<<31) }},
		{"Zeros", nil, "invalid element type", func() { Zeros(DType(0), 2) }},
		{"Ones", nil, "negative dimension", func() { Ones(F32, 2, -2) }},
		{"Full", nil, "invalid element type", func() { Full(DType(200), 1, 2) }},
		{"Full", nil, "negative dimension", func() { Full(F32, 1, -5) }},
		{"Full", nil, "device is nil", func() { FullOn(nil, F32, 1, 2) }},
		{"Scalar", nil, "invalid element type", func() { Scalar(DType(0), 1) }},
		{"ZerosLike", nil, "x is nil", func() { ZerosLike(nil) }},
		{"OnesLike", nil, "x is nil", func() { OnesLike(nil) }},
		{"Constant", nil, "literal is nil", func() { Constant(nil) }},
		{"Constant", nil, "3 bytes of data", func() { Constant(badLit) }},
		{"Iota", nil, "axis 2 out of range", func() { Iota(F32, 2, 3, 4) }},
		{"Iota", nil, "axis -3 out of range", func() { Iota(F32, -3, 3, 4) }},
		{"Iota", nil, "numeric element type", func() { Iota(Bool, 0, 3) }},
		{"Iota", nil, "negative dimension", func() { Iota(I32, 0, -3) }},
		{"Iota", nil, "device is nil", func() { IotaOn(nil, I32, 0, 3) }},
		{"Arange", nil, "finite", func() { Arange(F32, nan, 1, 1) }},
		{"Arange", nil, "finite", func() { Arange(F32, 0, inf, 1) }},
		{"Arange", nil, "2^53", func() { Arange(F32, 0, 1e300, 1) }},
		{"Arange", nil, "numeric", func() { Arange(Bool, 0, 2, 1) }},
		{"Arange", nil, "step must not be zero (i32 steps are truncated to integers)", func() { Arange(I32, 0, 2, 0.5) }},
		{"Arange", nil, "invalid element type", func() { Arange(DType(0), 0, 2, 1) }},
		{"FromSlice", nil, "2^63-1", func() { FromSlice([]float32{}, 1<<32, 1<<32) }},
		{"FromSlice", nil, "negative dimension", func() { FromSlice([]float32{}, -1, 0) }},
		{"FromSlice", nil, "do not fill", func() { FromSlice([]int64{1, 2}, 3) }},
		{"FromLiteral", nil, "literal is nil", func() { FromLiteral(nil) }},
		{"FromLiteral", nil, "3 bytes of data", func() { FromLiteral(badLit) }},
		{"FromLiteral", nil, "device is nil", func() { FromLiteralOn(nil, hlo.LiteralFromSlice([]float32{1})) }},
		{"FromBuffer", nil, "buffer is nil", func() { FromBuffer(nil, dev) }},
		{"NewShape", nil, "negative dimension", func() { NewShape(F32, 2, -1) }},
		{"NewShape", nil, "2^63-1", func() { NewShape(U8, 1<<62, 4) }},
		{"NewPlaceholder", nil, "negative dimension", func() { NewPlaceholder(Shape{F32, []int64{-1}}, dev) }},
		{"NewPlaceholder", nil, "invalid element type", func() { NewPlaceholder(Shape{DType(99), nil}, dev) }},
		{"NewPlaceholder", nil, "device is nil", func() { NewPlaceholder(NewShape(F32, 2), nil) }},
		// Nil tensors everywhere.
		{"Where", nil, "cond is nil", func() { Where(nil, f23, f23) }},
		{"Where", nil, "a is nil", func() { Where(b23, nil, f23) }},
		{"Where", nil, "b is nil", func() { Where(b23, f23, nil) }},
		{"Linear", nil, "x is nil", func() { Linear(nil, f45, nil) }},
		{"Linear", nil, "w is nil", func() { Linear(f23, nil, nil) }},
		{"Assign", nil, "v is nil", func() { f23.Assign(nil) }},
		{"Assign", nil, "t is nil", func() { nilT.Assign(f23) }},
		{"Grad", nil, "y is nil", func() { Grad(nil, f4) }},
		{"Grad", nil, "xs[1] is nil", func() { Grad(o.yLoss, f4, nil) }},
		{"GradWith", nil, "dy is nil", func() { GradWith(f4, nil, f4) }},
		{"Neg", nil, "x is nil", func() { nilT.Neg() }},
		{"Exp", nil, "x is nil", func() { nilT.Exp() }},
		{"ReLU", nil, "x is nil", func() { nilT.ReLU() }},
		{"Add", nil, "y is nil", func() { f4.Add(nil) }},
		{"Add", nil, "x is nil", func() { nilT.Add(f4) }},
		{"MulScalar", nil, "x is nil", func() { nilT.MulScalar(2) }},
		{"EqScalar", nil, "x is nil", func() { nilT.EqScalar(2) }},
		{"Compare", nil, "y is nil", func() { f4.Lt(nil) }},
		{"Square", nil, "x is nil", func() { nilT.Square() }},
		{"Reciprocal", nil, "x is nil", func() { nilT.Reciprocal() }},
		{"Cast", nil, "x is nil", func() { nilT.Cast(F64) }},
		{"Clamp", nil, "x is nil", func() { nilT.Clamp(0, 1) }},
		{"MatMul", nil, "y is nil", func() { f23.MatMul(nil) }},
		{"Concat", nil, "ts[1] is nil", func() { Concat(0, f4, nil) }},
		{"Stack", nil, "ts[0] is nil", func() { Stack(0, nil, f4) }},
		{"Einsum", nil, "ts[0] is nil", func() { Einsum("i->i", nil) }},
		{"ReduceSum", nil, "x is nil", func() { nilT.Sum() }},
		{"Mean", nil, "x is nil", func() { nilT.Mean() }},
		{"ArgMax", nil, "x is nil", func() { nilT.ArgMax(0) }},
		{"Reshape", nil, "x is nil", func() { nilT.Reshape(2) }},
		{"Softmax", nil, "x is nil", func() { nilT.Softmax(0) }},
		{"LayerNorm", nil, "x is nil", func() { LayerNorm(nil, 1, nil, nil, 1e-5) }},
		{"Conv2d", nil, "w is nil", func() { Conv2d(x4, nil, nil, Conv2dOpts{}) }},
		{"CrossEntropy", nil, "labels is nil", func() { CrossEntropy(f23, nil) }},
		{"OneHot", nil, "idx is nil", func() { OneHot(nil, 3, F32) }},
		{"TakeAlong", nil, "idx is nil", func() { f23.TakeAlong(0, nil) }},
		{"ScatterAdd", nil, "src is nil", func() { f23.ScatterAdd(1, i23, nil) }},
		{"IndexSelect", nil, "idx is nil", func() { f23.IndexSelect(0, nil) }},
		{"DynamicSlice", nil, "starts[1] is nil", func() { f23.DynamicSlice([]*Tensor{o.z(I32), nil}, []int64{1, 1}) }},
		{"DynamicUpdateSlice", nil, "upd is nil", func() { f23.DynamicUpdateSlice(nil, nil) }},
		{"MaskedSelect", nil, "mask is nil", func() { f4.MaskedSelect(nil) }},
		{"NonZero", nil, "x is nil", func() { nilT.NonZero() }},
		{"Unique", nil, "x is nil", func() { nilT.Unique() }},
		{"TopK", nil, "x is nil", func() { nilT.TopK(1) }},
		{"Item", nil, "t is nil", func() { nilT.Item() }},
		{"Float32s", nil, "t is nil", func() { nilT.Float32s() }},
		{"Int64s", nil, "t is nil", func() { nilT.Int64s() }},
		{"Dims", nil, "nil tensor", func() { nilT.Dims() }},
		{"Shape", nil, "nil tensor", func() { nilT.Shape() }},
		{"Rank", nil, "nil tensor", func() { nilT.Rank() }},
		{"Dim", nil, "t is nil", func() { nilT.Dim(0) }},
		{"Value", nil, "t is nil", func() { nilT.Value() }},
		{"TakeData", nil, "src is nil", func() { f4.TakeData(nil) }},
		{"Apply", nil, "op is nil", func() { Apply(nil, nil, f4) }},
		{"Add", nil, "operand 1 is nil", func() { Apply(LookupOp("Add"), nil, f4, nil) }},
		{"HostFunc", nil, "inputs[0] is nil", func() { o.noGradFn(nil) }},
		{"HostFunc", nil, "is nil", func() { HostFunc("validate_test_nil", nil) }},
		// Elementwise dtypes and broadcasting.
		{"Sub", nil, "do not broadcast", func() { f23.Sub(f4) }},
		{"Mul", nil, "no integer type holds both", func() { o.z(U64, 3).Mul(i3) }},
		{"Add", nil, "do not broadcast", func() { f23.Add(o.z(F64, 4)) }},
		{"Div", nil, "no integer type holds both", func() { o.z(U64, 4).Div(o.z(I8, 4)) }},
		{"Rem", nil, "real", func() { b4.Rem(b4) }},
		{"Rem", nil, "real", func() { c2.Rem(c2) }},
		{"Atan2", nil, "do not broadcast", func() { f23.Atan2(f4) }},
		{"Atan2", nil, "real floating-point", func() { c2.Atan2(c2) }},
		{"Or", nil, "boolean or integer", func() { f4.Or(f4) }},
		{"Xor", nil, "boolean or integer", func() { f4.Xor(f4) }},
		{"AddScalar", nil, "2^63-1 bytes", func() { o.i8big.AddScalar(0.5) }},
		{"SubScalar", nil, "subtraction of a bool", func() { b4.SubScalar(1) }},
		{"PowScalar", nil, "negative integer powers", func() { i3.PowScalar(-1) }},
		{"MaxScalar", nil, "bound", func() { o.z(I8, 4).MaxScalar(1000) }},
		{"DivScalar", nil, "2^63-1 bytes", func() { o.i8big.DivScalar(2) }},
		{"Reciprocal", nil, "2^63-1 bytes", func() { o.i8big.Reciprocal() }},
		{"Clamp", nil, "bound", func() { o.z(I8, 4).Clamp(0, 1000) }},
		{"Compare", nil, "do not broadcast", func() { f23.Ge(f4) }},
		{"Compare", nil, "no integer type holds both", func() { o.z(U64, 3).Eq(i3) }},
		{"Exp", nil, "2^63-1 bytes", func() { o.i8big.Exp() }},
		{"Sqrt", nil, "x is nil", func() { nilT.Sqrt() }},
		{"Floor", nil, "real floating-point", func() { c2.Floor() }},
		{"Erf", nil, "real floating-point", func() { c2.Erf() }},
		{"IsFinite", nil, "floating-point", func() { c2.IsFinite() }},
		{"Neg", nil, "numeric", func() { b4.Neg() }},
		{"Sign", nil, "x is nil", func() { nilT.Sign() }},
		{"Abs", nil, "numeric", func() { b4.Abs() }},
		{"Where", nil, "condition must be bool", func() { Where(f4, f4, f4) }},
		{"Where", nil, "no integer type holds both", func() { Where(b4, o.z(U64, 4), o.z(I8, 4)) }},
		{"Where", nil, "do not broadcast", func() { Where(b4, f23, f4) }},
		{"Where", nil, "does not broadcast", func() { Where(b4, f23, f23) }},
		{"Cast", nil, "invalid element type", func() { f4.Cast(DType(0)) }},
		{"Cast", nil, "invalid element type", func() { f4.Cast(DType(250)) }},
		{"GELU", nil, "real floating-point", func() { i3.GELU() }},
		// Reductions and axes (PyTorch's -rank..rank-1).
		{"ReduceSum", nil, "axis 2", func() { f23.Sum(2) }},
		{"ReduceSum", nil, "axis -3", func() { f23.Sum(-3) }},
		{"ReduceSum", nil, "repeated", func() { f23.Sum(0, -2) }},
		{"ReduceSum", nil, "axis 3", func() { b4.Sum(3) }},
		{"ReduceProd", nil, "repeated", func() { f23.Prod(1, 1) }},
		{"ReduceMax", nil, "axis 9", func() { f23.ReduceMaxKeepDims(9) }},
		{"ReduceMin", nil, "repeated", func() { f23.ReduceMinKeepDims(1, 1) }},
		{"ReduceSum", nil, "axis 5", func() { f23.SumKeepDims(5) }},
		{"MeanKeepDims", nil, "axis", func() { f23.MeanKeepDims(-3) }},
		{"Mean", nil, "floating-point", func() { b4.Mean() }},
		{"VarKeepDims", nil, "axis 4", func() { f23.VarKeepDims(4) }},
		{"ArgMin", nil, "out of range", func() { f23.ArgMinKeepDims(-3) }},
		{"ArgMax", nil, "empty", func() { o.e03.ArgMax(0) }},
		{"ArgMax", nil, "real", func() { b4.ArgMax(0) }},
		{"LogSumExp", nil, "real tensor", func() { c2.LogSumExp() }},
		{"LogSumExpKeepDims", nil, "axis -5", func() { f23.LogSumExpKeepDims(-5) }},
		{"Softmax", nil, "real floating-point", func() { i23.Softmax(1) }},
		{"Softmax", nil, "axis -3", func() { f23.Softmax(-3) }},
		{"LogSoftmax", nil, "real floating-point", func() { c2.LogSoftmax(0) }},
		{"Cumsum", nil, "x is nil", func() { nilT.Cumsum(0) }},
		{"Cumsum", nil, "out of range", func() { f4.Cumsum(-2) }},
		{"Sort", nil, "complex", func() { c2.Sort(0, false) }},
		{"Sort", nil, "out of range", func() { f4.Sort(1, true) }},
		{"TopK", nil, "k = -1", func() { f4.TopK(-1) }},
		{"TopK", nil, "k = 2 out of range (want 0..1)", func() { o.scalar.TopK(2) }},
		{"TopK", nil, "Sort: cannot sort complex", func() { c2.TopK(1) }},
		// Axes of 0-d tensors: PyTorch's -1..0 where it takes them (an op
		// along axis 0 of a vector of one element), none where it does not.
		{"ReduceSum", []string{"f32[]"}, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.Sum(1) }},
		{"ReduceSum", nil, "axis -1 repeated", func() { o.scalar.Sum(0, -1) }},
		{"ReduceMax", nil, "axis -2 out of range for rank 0 (want -1..0)", func() { o.scalar.ReduceMaxKeepDims(-2) }},
		{"ReduceProd", nil, "axis 1 out of range for rank 0", func() { o.scalar.Prod(1) }},
		{"Mean", nil, "axis 1 out of range for rank 0", func() { o.scalar.Mean(1) }},
		{"VarKeepDims", nil, "axis -2 out of range for rank 0", func() { o.scalar.VarKeepDims(-2) }},
		{"LogSumExp", nil, "axis 1 out of range for rank 0", func() { o.scalar.LogSumExp(1) }},
		{"ArgMax", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.ArgMax(1) }},
		{"ArgMin", nil, "axis -2 out of range for rank 0", func() { o.scalar.ArgMinKeepDims(-2) }},
		{"ArgMax", []string{"i1[]"}, "real", func() { o.z(Bool).ArgMax(0) }},
		{"Softmax", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.Softmax(1) }},
		{"LogSoftmax", nil, "axis -2 out of range for rank 0", func() { o.scalar.LogSoftmax(-2) }},
		{"Cumsum", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.Cumsum(1) }},
		{"Sort", nil, "axis -2 out of range for rank 0 (want -1..0)", func() { o.scalar.Sort(-2, false) }},
		{"Sort", []string{"complex<f32>[]"}, "cannot sort complex", func() { o.z(C64).Sort(0, false) }},
		{"TopK", nil, "Sort: cannot sort complex", func() { o.z(C64).TopK(1) }},
		{"Flip", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.Flip(1) }},
		{"Flip", nil, "axis -1 repeated", func() { o.scalar.Flip(0, -1) }},
		{"Squeeze", nil, "axis -2 out of range for rank 0 (want -1..0)", func() { o.scalar.Squeeze(-2) }},
		{"Unsqueeze", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.Unsqueeze(1) }},
		{"Transpose", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.Transpose(0, 1) }},
		{"Transpose", nil, "axis -2 out of range for rank 0", func() { o.scalar.T() }},
		{"Permute", nil, "a 0-d tensor has no axes", func() { o.scalar.Permute(0) }},
		{"Narrow", []string{"f32[]"}, "a 0-d tensor has no axes", func() { o.scalar.Narrow(0, 0, 1) }},
		{"Split", nil, "a 0-d tensor has no axes", func() { o.scalar.Split(-1, 1) }},
		{"Chunk", nil, "a 0-d tensor has no axes", func() { o.scalar.Chunk(0, 1) }},
		{"Concat", nil, "a 0-d tensor has no axes", func() { Concat(0, o.scalar, o.scalar) }},
		{"Stack", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { Stack(1, o.scalar, o.scalar) }},
		{"TakeAlong", []string{"f32[]", "i64[]"}, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.TakeAlong(1, o.z(I64)) }},
		{"TakeAlong", []string{"f32[]", "f32[]"}, "integers", func() { o.scalar.TakeAlong(0, o.scalar) }},
		{"TakeAlong", nil, "indices of rank 0 for an operand of rank 2", func() { o.z(F32, 1, 3).TakeAlong(0, o.z(I64)) }},
		{"ScatterAdd", nil, "axis -2 out of range for rank 0 (want -1..0)", func() { o.scalar.ScatterAdd(-2, o.z(I64), o.scalar) }},
		{"ScatterAdd", []string{"f32[]", "i64[]", "f64[]"}, "source", func() { o.scalar.ScatterAdd(0, o.z(I64), o.z(F64)) }},
		{"IndexSelect", nil, "axis 1 out of range for rank 0 (want -1..0)", func() { o.scalar.IndexSelect(1, o.z(I64, 1)) }},
		{"IndexSelect", nil, "a 0-d x takes one index, got 2", func() { o.scalar.IndexSelect(0, o.z(I64, 2)) }},
		// Shapes: negative and overflowing dims, axes, lists.
		{"Reshape", nil, "negative dimension -2", func() { f23.Reshape(-2, -3) }},
		{"Reshape", nil, "cannot reshape", func() { o.e03.Reshape(1<<32, 1<<32, 0, 16) }},
		{"Reshape", nil, "cannot reshape 6", func() { f23.Reshape(1<<32, 1<<32) }},
		{"Reshape", nil, "cannot infer", func() { f23.Reshape(4, -1) }},
		{"Reshape", nil, "cannot infer", func() { o.e03.Reshape(0, -1) }},
		{"Permute", nil, "permutation", func() { f23.Permute(0) }},
		{"Permute", nil, "out of range", func() { f23.Permute(0, -3) }},
		{"Transpose", nil, "out of range", func() { f23.Transpose(0, 2) }},
		{"BroadcastTo", nil, "negative dimension", func() { f4.BroadcastTo(-1, 4) }},
		{"BroadcastTo", nil, "2^63-1", func() { f4.BroadcastTo(1<<62, 1<<62, 4) }},
		{"BroadcastTo", nil, "cannot broadcast", func() { f4.BroadcastTo(2, 3) }},
		{"BroadcastTo", nil, "2^63-1 elements", func() { o.huge.BroadcastTo(1<<4, 1<<30, 1<<30) }},
		{"BroadcastTo", nil, "2^63-1 bytes", func() { o.huge.BroadcastTo(4, 1<<30, 1<<30) }},
		{"Concat", nil, "2^63-1 bytes", func() { Concat(0, o.huge, o.huge) }},
		{"Reshape", nil, "cannot reshape", func() { o.huge.Reshape(1<<62, 1<<62) }},
		{"Pad", nil, "2^63-1", func() { o.huge.Pad(0, 1<<30) }},
		{"MatMul", nil, "2^63-1", func() { o.batchA.MatMul(o.batchB) }},
		{"Expand", nil, "negative dimension", func() { f4.Expand(-1, 4) }},
		{"Expand", nil, "fewer", func() { f23.Expand(3) }},
		{"Unsqueeze", nil, "out of range", func() { f23.Unsqueeze(-4) }},
		{"Squeeze", nil, "out of range", func() { f23.Squeeze(5) }},
		{"Slice", nil, "entries", func() { f23.SliceStrided([]int64{0}, []int64{2}, []int64{1}) }},
		{"Slice", nil, "step 0", func() { f23.SliceStrided([]int64{0, 0}, []int64{2, 3}, []int64{1, 0}) }},
		{"Slice", nil, "step -1", func() { f23.SliceStrided([]int64{-1, 0}, []int64{2, 3}, []int64{-1, 1}) }},
		{"Slice", nil, "step", func() { f23.SliceStrided([]int64{0, 0}, []int64{2, 3}, []int64{1, math.MinInt64}) }},
		{"Narrow", nil, "out of range", func() { f23.Narrow(1, math.MaxInt64, 2) }},
		{"Narrow", nil, "out of range", func() { f23.Narrow(1, 1, -1) }},
		{"Narrow", nil, "axis 2 out of range", func() { f23.Narrow(2, 0, 1) }},
		{"Concat", nil, "no tensors", func() { Concat(0) }},
		{"Concat", nil, "more than 2^63-1", func() { Concat(0, o.bool62, o.bool62) }},
		{"Concat", nil, "axis -3", func() { Concat(-3, f23, f23) }},
		{"Stack", nil, "no tensors", func() { Stack(0) }},
		{"Stack", nil, "out of range", func() { Stack(3, f23, f23) }},
		{"Stack", nil, "2^63-1", func() { Stack(0, o.bool62, o.bool62) }},
		{"Split", nil, "add up", func() { f23.Split(1, math.MaxInt64, math.MaxInt64, 2) }},
		{"Split", nil, "out of range", func() { f23.Split(-3, 2) }},
		{"Chunk", nil, "piece", func() { f23.Chunk(0, 0) }},
		{"Chunk", nil, "piece", func() { f23.Chunk(0, -1) }},
		{"Chunk", nil, "pieces", func() { o.e03.Chunk(0, 1<<40) }},
		{"Pad", nil, "entries", func() { f23.PadWith([]int64{0}, []int64{0}, []int64{0}, 0) }},
		{"Pad", nil, "negative interior", func() { f23.PadWith([]int64{0, 0}, []int64{0, 0}, []int64{0, -1}, 0) }},
		{"Pad", nil, "overflows", func() { f23.PadWith([]int64{0, math.MaxInt64}, []int64{0, 1}, []int64{0, 0}, 0) }},
		{"Pad", nil, "overflows", func() { f23.PadWith([]int64{0, 0}, []int64{0, 0}, []int64{0, math.MaxInt64}, 0) }},
		{"Pad", nil, "2^63-1", func() { f23.Pad(0, 1<<61, 0, 1<<61) }},
		{"Pad", nil, "lo/hi pairs", func() { f23.Pad(1, 1, 1, 1, 1, 1) }},
		{"Flip", nil, "repeated", func() { f23.Flip(1, -1) }},
		{"Flip", nil, "out of range", func() { f23.Flip(-3) }},
		// Linear algebra and layers.
		{"MatMul", nil, "numeric", func() { o.z(Bool, 2, 2).MatMul(o.z(Bool, 2, 2)) }},
		{"MatMul", nil, "inner", func() { f4.MatMul(f23) }},
		{"MatMul", nil, "rank", func() { f4.MatMul(o.scalar) }},
		{"Linear", nil, "2-D", func() { Linear(f23, f4, nil) }},
		{"Linear", nil, "Add: ", func() { Linear(f23, o.z(F32, 4, 3), f3) }},
		{"Linear", nil, "element types", func() { Linear(f23, o.z(F64, 4, 3), nil) }},
		{"Einsum", nil, "one or two operands", func() { Einsum("i,i,i->", f4, f4, f4) }},
		{"Einsum", nil, "one or two operands", func() { Einsum("i,i->", f4) }},
		{"Einsum", nil, "repeated output label", func() { Einsum("ij->ii", f23) }},
		{"Einsum", nil, "output label k", func() { Einsum("ij->k", f23) }},
		{"Einsum", nil, "element types differ", func() { Einsum("ij,jk->ik", f23, o.z(F64, 3, 4)) }},
		{"LayerNorm", nil, "last 0 axes", func() { LayerNorm(f23, 0, nil, nil, 1e-5) }},
		{"LayerNorm", nil, "eps", func() { LayerNorm(f23, 1, nil, nil, nan) }},
		{"LayerNorm", nil, "eps", func() { LayerNorm(f23, 1, nil, nil, -1) }},
		{"LayerNorm", nil, "real floating-point", func() { LayerNorm(i23, 1, nil, nil, 1e-5) }},
		{"LayerNorm", nil, "bias of shape [4] must have the normalised shape [3]", func() { LayerNorm(f23, 1, f3, f4, 1e-5) }},
		// Weights that broadcast are refused too, as F.layer_norm refuses them.
		{"LayerNorm", nil, "weight of shape [1 3] must have", func() { LayerNorm(f23, 1, o.z(F32, 1, 3), nil, 1e-5) }},
		{"LayerNorm", nil, "bias of shape [1] must have", func() { LayerNorm(f23, 1, nil, o.z(F32, 1), 1e-5) }},
		{"LayerNorm", nil, "weight of shape [3] must have the normalised shape [2 3]", func() { LayerNorm(f23, 2, f3, nil, 1e-5) }},
		{"Conv2d", nil, "kernel [7 7] (dilation [1 1]) is larger than the padded input", func() { Conv2d(x4, o.z(F32, 2, 3, 7, 7), nil, Conv2dOpts{}) }},
		{"Conv2d", nil, "larger than the padded input", func() { Conv2d(x4, w4, nil, Conv2dOpts{Dilation: pair(3, 1)}) }},
		{"Conv2d", nil, "negative", func() { Conv2d(x4, w4, nil, Conv2dOpts{Stride: pair(-1, 1)}) }},
		{"Conv2d", nil, "negative", func() { Conv2d(x4, w4, nil, Conv2dOpts{Padding: pair(0, -1)}) }},
		{"Conv2d", nil, "negative", func() { Conv2d(x4, w4, nil, Conv2dOpts{Dilation: pair(-2, 1)}) }},
		{"Conv2d", nil, "groups = -1", func() { Conv2d(x4, w4, nil, Conv2dOpts{Groups: -1}) }},
		{"Conv2d", nil, "input features", func() { Conv2d(x4, w4, nil, Conv2dOpts{Groups: 2}) }},
		{"Conv2d", nil, "empty spatial", func() { Conv2d(x4, o.z(F32, 2, 3, 0, 3), nil, Conv2dOpts{}) }},
		{"Conv2d", nil, "element type", func() { Conv2d(x4, o.z(F64, 2, 3, 3, 3), nil, Conv2dOpts{}) }},
		{"Conv2d", nil, "bias must be", func() { Conv2d(x4, w4, o.z(F32, 3), Conv2dOpts{}) }},
		{"MaxPool2d", nil, "larger than the padded input", func() { x4.MaxPool2d(pair(7, 7), pair(0, 0), pair(0, 0)) }},
		{"MaxPool2d", nil, "larger than the padded input", func() { o.z(F32, 1, 1, 2, 2).MaxPool2d(pair(3, 3), pair(1, 1), pair(0, 0)) }},
		{"AvgPool2d", nil, "larger than the padded input", func() { x4.AvgPool2d(pair(2, 9), pair(1, 1), pair(1, 1)) }},
		{"MaxPool2d", nil, "positive", func() { x4.MaxPool2d(pair(2, 2), pair(0, 1), pair(0, 0)) }},
		{"MaxPool2d", nil, "positive", func() { x4.MaxPool2d(pair(2, 2), pair(-1, -1), pair(0, 0)) }},
		{"MaxPool2d", nil, "not negative", func() { x4.MaxPool2d(pair(2, 2), pair(0, 0), pair(-1, 0)) }},
		{"MaxPool2d", nil, "at most half", func() { x4.MaxPool2d(pair(2, 2), pair(0, 0), pair(2, 2)) }},
		{"MaxPool2d", nil, "real numeric", func() { o.z(Bool, 1, 1, 2, 2).MaxPool2d(pair(2, 2), pair(0, 0), pair(0, 0)) }},
		{"AvgPool2d", nil, "real floating-point", func() { o.z(I32, 1, 1, 2, 2).AvgPool2d(pair(2, 2), pair(0, 0), pair(0, 0)) }},
		{"AvgPool2d", nil, "4-D", func() { f23.AvgPool2d(pair(2, 2), pair(0, 0), pair(0, 0)) }},
		// Unbatched [C, H, W] inputs: checked before the batch axis is
		// added, and named by the caller's shape.
		{"MaxPool2d", nil, "larger than the padded input", func() { o.z(F32, 1, 4, 4).MaxPool2d(pair(5, 2), pair(0, 0), pair(0, 0)) }},
		{"AvgPool2d", nil, "real floating-point", func() { o.z(I32, 1, 4, 4).AvgPool2d(pair(2, 2), pair(0, 0), pair(0, 0)) }},
		{"Conv2d", nil, "input features", func() { Conv2d(o.z(F32, 1, 4, 4), o.z(F32, 2, 2, 2, 2), nil, Conv2dOpts{}) }},
		{"Conv2d", nil, "bias", func() { Conv2d(o.z(F32, 1, 4, 4), o.z(F32, 2, 1, 2, 2), o.z(F32, 3), Conv2dOpts{}) }},
		{"CrossEntropy", nil, "labels", func() { CrossEntropy(f23, o.z(F32, 2)) }},
		{"CrossEntropy", nil, "labels", func() { CrossEntropy(f4, i3) }},
		{"CrossEntropy", nil, "C = 0", func() { CrossEntropy(o.z(F32, 2, 0), o.z(I64, 2)) }},
		{"CrossEntropy", nil, "real floating-point", func() { CrossEntropy(i23, o.z(I64, 2)) }},
		{"OneHot", nil, "n = -1", func() { OneHot(i3, -1, F32) }},
		{"OneHot", nil, "n = 0", func() { OneHot(i3, 0, F32) }},
		{"OneHot", nil, "2^63-1", func() { OneHot(i3, 1<<62, F32) }},
		{"OneHot", nil, "invalid element type", func() { OneHot(i3, 3, DType(0)) }},
		// Indexing.
		{"TakeAlong", nil, "larger than the operand", func() { f23.TakeAlong(1, o.z(I64, 3, 3)) }},
		{"TakeAlong", nil, "size 0", func() { o.z(F32, 2, 0).TakeAlong(1, o.z(I64, 2, 1)) }},
		{"TakeAlong", nil, "integers", func() { f45.TakeAlong(1, f23) }},
		{"ScatterAdd", nil, "out of range", func() { f23.ScatterAdd(2, i23, f23) }},
		{"ScatterAdd", nil, "integers", func() { f23.ScatterAdd(1, f23, f23) }},
		{"IndexSelect", nil, "integer indices", func() { f23.IndexSelect(0, f4) }},
		{"IndexSelect", nil, "axis 3 out of range for rank 2 (want -2..1)", func() { f23.IndexSelect(3, i3) }},
		{"DynamicSlice", nil, "size -1", func() { f23.DynamicSlice([]*Tensor{o.z(I32), o.z(I32)}, []int64{-1, 1}) }},
		{"DynamicSlice", nil, "size 4", func() { f23.DynamicSlice([]*Tensor{o.z(I32), o.z(I64)}, []int64{1, 4}) }},
		{"DynamicUpdateSlice", nil, "dtype", func() { f23.DynamicUpdateSlice(o.z(F64, 1, 1), []*Tensor{o.z(I32), o.z(I32)}) }},
		{"DynamicUpdateSlice", nil, "integer scalar", func() { f23.DynamicUpdateSlice(o.z(F32, 1, 1), []*Tensor{o.z(I32), o.z(F32)}) }},
		{"MaskedSelect", nil, "mask must be bool, got f32", func() { f4.MaskedSelect(f4) }},
		{"Unique", nil, "complex", func() { o.z(C64, 2, 2).Unique() }},
		// Devices.
		{"Add", nil, "different devices", func() { f23.Add(o.other) }},
		{"Compare", nil, "different devices", func() { f23.Lt(o.other) }},
		{"Where", nil, "different devices", func() { Where(b23, f23, o.other) }},
		{"Concat", nil, "different devices", func() { Concat(0, f23, o.other) }},
		{"MatMul", nil, "different devices", func() { f23.MatMul(o.otherT) }},
		{"Linear", nil, "different devices", func() { Linear(f23, o.other, nil) }},
		{"CrossEntropy", nil, "different devices", func() { CrossEntropy(f23, o.otherI) }},
		{"Assign", nil, "different devices", func() { f23.Assign(o.other) }},
		{"Assign", nil, "shapes differ", func() { f23.Assign(d23) }},
		{"Grad", nil, "is on", func() { Grad(o.yLoss, o.other4) }},
		{"Stack", nil, "different devices", func() { Stack(0, f23, o.other) }},
		// Gradients.
		{"Grad", nil, "one element", func() { Grad(f23, f23) }},
		{"Grad", nil, "floating-point", func() { Grad(o.z(I32, 1), f4) }},
		{"Grad", nil, "xs[0] must be a floating-point", func() { Grad(o.yLoss, i3) }},
		{"Grad", nil, "Unique is not differentiable", func() { Grad(o.yNoGrad, f4) }},
		{"Grad", nil, "HostFunc is not differentiable", func() { Grad(o.yHost, f4) }},
		{"GradWith", nil, "seed shape", func() { GradWith(f4, f3, f4) }},
		// Apply with table ops.
		{"Add", nil, "unsupported type int", func() { Apply(LookupOp("Add"), Attrs{{"x", 3}}, f4, f4) }},
		{"Constant", nil, "nil literal", func() { Apply(LookupOp("Constant"), Attrs{{"value", (*hlo.Literal)(nil)}}) }},
		{"Reshape", nil, "negative dimension", func() { Apply(LookupOp("Reshape"), Attrs{{"dims", []int64{-4}}}, f4) }},
		{"Broadcast", nil, "2^63-1", func() { Apply(LookupOp("Broadcast"), Attrs{{"dims", []int64{1 << 62, 4}}, {"bdims", []int64{1}}}, f4) }},
		{"DeviceData", nil, "made by tensors", func() { Apply(LookupOp("DeviceData"), nil) }},
		{"HostFunc", nil, "no host function", func() { Apply(LookupOp("HostFunc"), Attrs{{"name", "validate_test_none"}, {"outs", []int64{}}}) }},
		{"HostFunc", nil, "negative dimension", func() { HostFunc("validate_test_neg", ident, Shape{F32, []int64{-1}}) }},
		{"HostFunc", nil, "invalid element type", func() { HostFunc("validate_test_neg", ident, Shape{DType(0), nil}) }},
		{"RngBits", nil, "negative dimension", func() { Apply(LookupOp("RngBits"), Attrs{{"dtype", U32}, {"dims", []int64{-3}}}, o.z(U64, 2)) }},
		{"Iota", nil, "numeric element type", func() { Apply(LookupOp("Iota"), Attrs{{"dtype", DType(0)}, {"dims", []int64{2}}, {"axis", int64(0)}}) }},
		{"Add", nil, "takes 2 operands, got 1", func() { Apply(LookupOp("Add"), nil, f4) }},
		{"Where", nil, "takes 3 operands, got 4", func() { Apply(LookupOp("Where"), nil, b4, f4, f4, f4) }},
		{"Concat", nil, "at least 1 operands, got 0", func() { Apply(LookupOp("Concat"), Attrs{{"axis", int64(0)}}) }},
		{"Constant", nil, "takes 0 operands, got 1", func() { Apply(LookupOp("Constant"), Attrs{{"value", hlo.ScalarLiteral(F32, 1)}}, f4) }},
		{"NonZero", nil, "placeholder", func() { o.emptyPH.NonZero() }},
		{"Literal", nil, "placeholder", func() { mustErr(o.emptyPH.Literal()) }},
		{"ManualSeed", nil, "device is nil", func() { (*Device)(nil).ManualSeed(1) }},
		{"RNGState", nil, "device is nil", func() { (*Device)(nil).RNGState() }},
		{"Item", nil, "6 elements", func() { f23.Item() }},
		{"Dim", nil, "out of range", func() { f23.Dim(2) }},
	}
}

// readCalls read placeholders: an error everywhere, and a cut the tracer
// is told about (a graph break) while tracing.
func readCalls(o *operands) []errCase {
	return []errCase{
		{"Float32s", nil, "placeholder", func() { o.huge.Float32s() }},
		{"Item", nil, "placeholder", func() { o.phSum.Item() }},
		{"Int64s", nil, "placeholder", func() { o.emptyPH.Int64s() }},
	}
}

// TestBadCalls: every bad call of the table is an *Error naming the op and
// the call site, and changes nothing, in lazy mode, in eager mode and
// while a function is traced (operands made before the trace are pending
// there: a rejected op must not compute them).
func TestBadCalls(t *testing.T) {
	for _, mode := range []string{"lazy", "eager", "trace"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "eager" {
				SetEager(true)
				defer SetEager(false)
			}
			o := newOperands()
			cases := badCalls(o)
			if len(cases) < 150 {
				t.Errorf("only %d cases", len(cases))
			}
			var tr *countingTracer
			if mode == "trace" {
				tr = &countingTracer{}
				end := BeginTrace(tr)
				defer end()
			}
			for _, c := range cases {
				tryOrBug(c.fn) // makes the case's own operands (o.z)
			}
			for _, c := range cases {
				checkBadCall(t, c, o.all(), tr)
			}
			for _, c := range readCalls(o) {
				before := 0
				if tr != nil {
					before = tr.cuts
				}
				checkBadCall(t, c, o.all(), nil)
				if tr != nil && tr.cuts != before+1 {
					t.Errorf("%s: the tracer saw %d cuts, want 1", siteOf(c.fn), tr.cuts-before)
				}
			}
		})
	}
}
