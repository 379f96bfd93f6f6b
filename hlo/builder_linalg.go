package hlo

// Builder methods for contractions, convolution, fft, linear solvers and
// random bits.

// Precision is a precision_config entry.
type Precision string

// Precisions.
const (
	PrecisionDefault Precision = "DEFAULT"
	PrecisionHigh    Precision = "HIGH"
	PrecisionHighest Precision = "HIGHEST"
)

// DotOptions are the optional knobs of DotGeneral and Dot.
type DotOptions struct {
	// Precision for lhs and rhs; both empty: no precision_config.
	Precision [2]Precision
	// ResultType is the preferred result element type (i8 x i8 -> i32,
	// bf16 x bf16 -> f32); InvalidDType keeps the operand element type.
	ResultType DType
	// Algorithm is an optional #stablehlo.dot_algorithm<...> attribute.
	Algorithm Attr
}

func (o *DotOptions) attrs() []NamedAttr {
	var out []NamedAttr
	if o.Precision[0] != "" || o.Precision[1] != "" {
		l, r := o.Precision[0], o.Precision[1]
		if l == "" {
			l = PrecisionDefault
		}
		if r == "" {
			r = PrecisionDefault
		}
		out = append(out, NamedAttr{"precision_config", PrecisionAttr(l, r)})
	}
	if o.Algorithm != nil {
		out = append(out, NamedAttr{"algorithm", o.Algorithm})
	}
	return out
}

// given returns the result-type hint carrying the preferred element type.
func (o *DotOptions) given() []Type {
	if o.ResultType == InvalidDType {
		return nil
	}
	return []Type{&TensorType{DType: o.ResultType}}
}

// DotGeneral contracts a and b per dims (batch dimensions first in the
// result, then a's free dimensions, then b's). opts: at most one.
func (s *Scope) DotGeneral(a, b *Value, dims *DotDimsAttr, opts ...DotOptions) *Value {
	const name = "stablehlo.dot_general"
	if dims == nil {
		s.b.failf(name, "dimension numbers are nil")
		return placeholder()
	}
	var o DotOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	attrs := append([]NamedAttr{{"dot_dimension_numbers", dims}}, o.attrs()...)
	return s.emit(name, []*Value{a, b}, attrs, nil, o.given(), 1)[0]
}

// Dot is the legacy stablehlo.dot of vectors and matrices.
func (s *Scope) Dot(a, b *Value, opts ...DotOptions) *Value {
	var o DotOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return s.emit("stablehlo.dot", []*Value{a, b}, o.attrs(), nil, o.given(), 1)[0]
}

// ConvOptions configure Convolution. Zero values take the defaults:
// dimension numbers [b, 0, 1, ..., f]x[0, 1, ..., i, o]->[b, 0, 1, ..., f],
// strides and dilations 1, no padding or reversal, group counts 1.
type ConvOptions struct {
	Dims              *ConvDimsAttr
	WindowStrides     []int64
	Padding           [][2]int64
	LhsDilation       []int64
	RhsDilation       []int64
	WindowReversal    []bool
	FeatureGroupCount int64
	BatchGroupCount   int64
	Precision         [2]Precision
	ResultType        DType
}

// DefaultConvDims returns the NHWC/HWIO layout for rank-n operands:
// [b, 0, 1, ..., f]x[0, 1, ..., i, o]->[b, 0, 1, ..., f].
func DefaultConvDims(n int) *ConvDimsAttr {
	s := n - 2
	sp := func(off int64) []int64 {
		xs := make([]int64, s)
		for i := range xs {
			xs[i] = int64(i) + off
		}
		return xs
	}
	return &ConvDimsAttr{
		InputBatchDim: 0, InputFeatureDim: int64(n - 1), InputSpatialDims: sp(1),
		KernelInputFeatureDim: int64(n - 2), KernelOutputFeatureDim: int64(n - 1), KernelSpatialDims: sp(0),
		OutputBatchDim: 0, OutputFeatureDim: int64(n - 1), OutputSpatialDims: sp(1),
	}
}

// Convolution convolves lhs with the kernel rhs. opts: at most one.
func (s *Scope) Convolution(lhs, rhs *Value, opts ...ConvOptions) *Value {
	const name = "stablehlo.convolution"
	var o ConvOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	t := s.tensorOf(name, lhs)
	if t == nil {
		return placeholder()
	}
	dn := o.Dims
	if dn == nil {
		dn = DefaultConvDims(t.Rank())
	}
	var attrs []NamedAttr
	if o.WindowStrides != nil {
		attrs = append(attrs, NamedAttr{"window_strides", I64sAttr(o.WindowStrides)})
	}
	if o.Padding != nil {
		attrs = append(attrs, NamedAttr{"padding", PairsAttr(o.Padding)})
	}
	if o.LhsDilation != nil {
		attrs = append(attrs, NamedAttr{"lhs_dilation", I64sAttr(o.LhsDilation)})
	}
	if o.RhsDilation != nil {
		attrs = append(attrs, NamedAttr{"rhs_dilation", I64sAttr(o.RhsDilation)})
	}
	if o.WindowReversal != nil {
		attrs = append(attrs, NamedAttr{"window_reversal", BoolsAttr(o.WindowReversal)})
	}
	fgc, bgc := o.FeatureGroupCount, o.BatchGroupCount
	if fgc == 0 {
		fgc = 1
	}
	if bgc == 0 {
		bgc = 1
	}
	attrs = append(attrs,
		NamedAttr{"dimension_numbers", dn},
		NamedAttr{"feature_group_count", I64Attr(fgc)},
		NamedAttr{"batch_group_count", I64Attr(bgc)})
	d := DotOptions{Precision: o.Precision, ResultType: o.ResultType}
	attrs = append(attrs, d.attrs()...)
	return s.emit(name, []*Value{lhs, rhs}, attrs, nil, d.given(), 1)[0]
}

// FftType is an fft_type.
type FftType string

// FFT kinds.
const (
	FFT   FftType = "FFT"
	IFFT  FftType = "IFFT"
	RFFT  FftType = "RFFT"
	IRFFT FftType = "IRFFT"
)

// Fft transforms the trailing len(length) dimensions of x.
func (s *Scope) Fft(x *Value, typ FftType, length ...int64) *Value {
	return s.emit1("stablehlo.fft", []*Value{x}, []NamedAttr{
		{"fft_type", EnumOf("fft_type", string(typ))},
		{"fft_length", I64sAttr(length)},
	})
}

// TriangularSolveOptions configure TriangularSolve; TransposeA is
// NO_TRANSPOSE (default when empty), TRANSPOSE or ADJOINT.
type TriangularSolveOptions struct {
	LeftSide     bool
	Lower        bool
	UnitDiagonal bool
	TransposeA   string
}

// TriangularSolve solves op(a) x = b (LeftSide) or x op(a) = b for x with
// a triangular.
func (s *Scope) TriangularSolve(a, b *Value, o TriangularSolveOptions) *Value {
	tr := o.TransposeA
	if tr == "" {
		tr = "NO_TRANSPOSE"
	}
	return s.emit1("stablehlo.triangular_solve", []*Value{a, b}, []NamedAttr{
		{"left_side", BoolAttr(o.LeftSide)},
		{"lower", BoolAttr(o.Lower)},
		{"unit_diagonal", BoolAttr(o.UnitDiagonal)},
		{"transpose_a", EnumOf("transpose", tr)},
	})
}

// Cholesky factors the symmetric (Hermitian) positive definite a.
func (s *Scope) Cholesky(a *Value, lower bool) *Value {
	return s.emit1("stablehlo.cholesky", []*Value{a}, []NamedAttr{{"lower", BoolAttr(lower)}})
}

// RngAlgorithm is an rng_algorithm.
type RngAlgorithm string

// RNG algorithms.
const (
	RngDefault  RngAlgorithm = "DEFAULT"
	RngThreeFry RngAlgorithm = "THREE_FRY"
	RngPhilox   RngAlgorithm = "PHILOX"
)

// RngBitGenerator draws random bits of type out from state and returns the
// next state and the bits.
func (s *Scope) RngBitGenerator(alg RngAlgorithm, state *Value, out *TensorType) (newState, bits *Value) {
	const name = "stablehlo.rng_bit_generator"
	st := s.tensorOf(name, state)
	if st == nil || out == nil {
		if st != nil {
			s.b.failf(name, "output type is nil")
		}
		return placeholder(), placeholder()
	}
	res := s.emit(name, []*Value{state}, []NamedAttr{{"rng_algorithm", EnumOf("rng_algorithm", string(alg))}}, nil, []Type{st, out}, 2)
	return res[0], res[1]
}

// RngDistribution is an rng_distribution.
type RngDistribution string

// Distributions of stablehlo.rng.
const (
	RngUniform RngDistribution = "UNIFORM" // over [a, b)
	RngNormal  RngDistribution = "NORMAL"  // mean a, standard deviation b
)

// Rng draws a tensor of type out from dist with parameters a and b, 0-d
// tensors of out's element type (the generator is the device's; the
// embedded device's is stateless, see pjrt/host/linalg/rng_dist.go).
func (s *Scope) Rng(dist RngDistribution, a, b *Value, out *TensorType) *Value {
	const name = "stablehlo.rng"
	if out == nil {
		s.b.failf(name, "result type is nil")
		return placeholder()
	}
	shape := s.Constant(LiteralFromSlice(append([]int64{}, out.Dims...)))
	return s.emit1(name, []*Value{a, b, shape}, []NamedAttr{{"rng_distribution", EnumOf("rng_distribution", string(dist))}}, out)
}

// BatchNormInference normalizes x with the given statistics along
// featureIndex.
func (s *Scope) BatchNormInference(x, scale, offset, mean, variance *Value, epsilon float64, featureIndex int64) *Value {
	return s.emit1("stablehlo.batch_norm_inference", []*Value{x, scale, offset, mean, variance}, batchNormAttrs(epsilon, featureIndex))
}

// BatchNormTraining normalizes x along featureIndex and returns the output,
// batch mean and batch variance.
func (s *Scope) BatchNormTraining(x, scale, offset *Value, epsilon float64, featureIndex int64) (out, mean, variance *Value) {
	r := s.emit("stablehlo.batch_norm_training", []*Value{x, scale, offset}, batchNormAttrs(epsilon, featureIndex), nil, nil, 3)
	return r[0], r[1], r[2]
}

// BatchNormGrad returns the gradients of batch normalization with respect
// to x, scale and offset.
func (s *Scope) BatchNormGrad(x, scale, mean, variance, gradOut *Value, epsilon float64, featureIndex int64) (gradX, gradScale, gradOffset *Value) {
	r := s.emit("stablehlo.batch_norm_grad", []*Value{x, scale, mean, variance, gradOut}, batchNormAttrs(epsilon, featureIndex), nil, nil, 3)
	return r[0], r[1], r[2]
}

func batchNormAttrs(eps float64, fi int64) []NamedAttr {
	return []NamedAttr{
		{"epsilon", FloatAttr{Value: eps, Type: scalarAttrType(F32)}},
		{"feature_index", I64Attr(fi)},
	}
}
