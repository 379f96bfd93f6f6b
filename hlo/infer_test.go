package hlo

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// tt parses a compact tensor type for tests: "2x?x3xf32", "f32",
// "4xcomplex<f32>".
func ttype(s string) *TensorType {
	var dims []int64
	for {
		i := strings.IndexByte(s, 'x')
		if i <= 0 {
			break
		}
		head := s[:i]
		if head == "?" {
			dims = append(dims, DynamicDim)
		} else if n, err := strconv.ParseInt(head, 10, 64); err == nil {
			dims = append(dims, n)
		} else {
			break
		}
		s = s[i+1:]
	}
	dt, ok := DTypeByName(s)
	if !ok {
		panic("tt: bad element type " + s)
	}
	if dims == nil {
		dims = []int64{}
	}
	return &TensorType{DType: dt, Dims: dims}
}

// tys parses a space-separated list of compact types ("!token" for a token).
func ttypes(s string) []Type {
	var out []Type
	for _, f := range strings.Fields(s) {
		if f == "!token" {
			out = append(out, &TokenType{})
			continue
		}
		out = append(out, ttype(f))
	}
	return out
}

// reg builds a one-block region for inference tests: block arguments of
// the given types and a stablehlo.return of values of the ret types.
func tregion(args, ret string) *Region {
	b := &Block{}
	for i, t := range ttypes(args) {
		b.Args = append(b.Args, &Value{Type: t, Index: i})
	}
	var outs []*Value
	for _, t := range ttypes(ret) {
		outs = append(outs, &Value{Type: t})
	}
	b.Ops = append(b.Ops, NewOp("stablehlo.return", outs, nil))
	return &Region{Blocks: []*Block{b}}
}

func nattrs(kv ...any) []NamedAttr {
	var out []NamedAttr
	for i := 0; i < len(kv); i += 2 {
		out = append(out, NamedAttr{kv[i].(string), kv[i+1].(Attr)})
	}
	return out
}

func enumA(kind, v string) EnumAttr { return EnumOf(kind, v) }

type inferTC struct {
	name     string
	op       string
	operands string // compact types
	attrs    []NamedAttr
	regions  []*Region
	given    string // declared result types, "" for none
	want     string // printed result types joined by ", "
	err      string // substring of the error; "" for success
}

func runInferCases(t *testing.T, cases []inferTC) {
	t.Helper()
	for _, c := range cases {
		var given []Type
		if c.given != "" {
			given = ttypes(c.given)
		}
		operands := ttypes(c.operands)
		if operands == nil {
			operands = []Type{}
		}
		got, err := InferResultTypesFrom(c.op, operands, c.attrs, c.regions, given)
		name := c.op + "/" + c.name
		if c.err != "" {
			if err == nil {
				t.Errorf("%s: got %s, want error containing %q", name, typeList(got), c.err)
			} else if !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %q does not contain %q", name, err, c.err)
			} else if !strings.HasPrefix(err.Error(), c.op+": ") {
				t.Errorf("%s: error %q does not start with the op name", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error: %v", name, err)
			continue
		}
		if s := typeList(got); s != c.want {
			t.Errorf("%s: got %s, want %s", name, s, c.want)
		}
	}
}

func TestInferElementwise(t *testing.T) {
	runInferCases(t, []inferTC{
		{name: "add", op: "stablehlo.add", operands: "2x3xf32 2x3xf32", want: "tensor<2x3xf32>"},
		{name: "add bool", op: "stablehlo.add", operands: "2xi1 2xi1", want: "tensor<2xi1>"},
		{name: "add dyn", op: "stablehlo.add", operands: "?x3xf32 2x?xf32", want: "tensor<2x3xf32>"},
		{name: "add mismatch", op: "stablehlo.add", operands: "2x3xf32 3x2xf32", err: "stablehlo.add: operand types tensor<2x3xf32> and tensor<3x2xf32> differ"},
		{name: "add elem", op: "stablehlo.add", operands: "2xf32 2xf64", err: "operand types tensor<2xf32> and tensor<2xf64> differ"},
		{name: "add arity", op: "stablehlo.add", operands: "2xf32", err: "expected 2 operands, got 1"},
		{name: "add token", op: "stablehlo.add", operands: "!token 2xf32", err: "operand #0 has type !stablehlo.token, want a tensor"},
		{name: "sub bool", op: "stablehlo.subtract", operands: "2xi1 2xi1", err: "want a tensor of integer, floating-point or complex type"},
		{name: "mul", op: "stablehlo.multiply", operands: "4xui8 4xui8", want: "tensor<4xui8>"},
		{name: "div", op: "stablehlo.divide", operands: "4xcomplex<f64> 4xcomplex<f64>", want: "tensor<4xcomplex<f64>>"},
		{name: "rem", op: "stablehlo.remainder", operands: "4xi32 4xi32", want: "tensor<4xi32>"},
		{name: "pow", op: "stablehlo.power", operands: "f16 f16", want: "tensor<f16>"},
		{name: "max", op: "stablehlo.maximum", operands: "3xbf16 3xbf16", want: "tensor<3xbf16>"},
		{name: "min", op: "stablehlo.minimum", operands: "3xi1 3xi1", want: "tensor<3xi1>"},
		{name: "atan2", op: "stablehlo.atan2", operands: "3xf32 3xf32", want: "tensor<3xf32>"},
		{name: "atan2 int", op: "stablehlo.atan2", operands: "3xi32 3xi32", err: "want a tensor of floating-point or complex type or a quantized tensor"},
		{name: "and", op: "stablehlo.and", operands: "3xi1 3xi1", want: "tensor<3xi1>"},
		{name: "or float", op: "stablehlo.or", operands: "3xf32 3xf32", err: "want a tensor of boolean or integer type"},
		{name: "xor", op: "stablehlo.xor", operands: "3xui64 3xui64", want: "tensor<3xui64>"},
		{name: "shl", op: "stablehlo.shift_left", operands: "3xi8 3xi8", want: "tensor<3xi8>"},
		{name: "shl bool", op: "stablehlo.shift_left", operands: "3xi1 3xi1", err: "want a tensor of integer type"},
		{name: "sra", op: "stablehlo.shift_right_arithmetic", operands: "3xi8 3xi8", want: "tensor<3xi8>"},
		{name: "srl", op: "stablehlo.shift_right_logical", operands: "3xui8 3xui8", want: "tensor<3xui8>"},
		{name: "exp", op: "stablehlo.exponential", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "exp int", op: "stablehlo.exponential", operands: "2xi32", err: "operand #0 has type tensor<2xi32>, want a tensor of floating-point or complex type"},
		{name: "expm1", op: "stablehlo.exponential_minus_one", operands: "2xcomplex<f32>", want: "tensor<2xcomplex<f32>>"},
		{name: "log", op: "stablehlo.log", operands: "?xf64", want: "tensor<?xf64>"},
		{name: "log1p", op: "stablehlo.log_plus_one", operands: "f8E4M3FN", want: "tensor<f8E4M3FN>"},
		{name: "sqrt", op: "stablehlo.sqrt", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "rsqrt", op: "stablehlo.rsqrt", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "cbrt", op: "stablehlo.cbrt", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "tanh", op: "stablehlo.tanh", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "logistic", op: "stablehlo.logistic", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "sine", op: "stablehlo.sine", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "cosine", op: "stablehlo.cosine", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "tan", op: "stablehlo.tan", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "floor", op: "stablehlo.floor", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "ceil complex", op: "stablehlo.ceil", operands: "2xcomplex<f32>", err: "want a tensor of floating-point type"},
		{name: "round even", op: "stablehlo.round_nearest_even", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "round afz", op: "stablehlo.round_nearest_afz", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "negate", op: "stablehlo.negate", operands: "2xui32", want: "tensor<2xui32>"},
		{name: "sign", op: "stablehlo.sign", operands: "2xi32", want: "tensor<2xi32>"},
		{name: "sign unsigned", op: "stablehlo.sign", operands: "2xui32", err: "want a tensor of signed integer"},
		{name: "not", op: "stablehlo.not", operands: "2xi1", want: "tensor<2xi1>"},
		{name: "popcnt", op: "stablehlo.popcnt", operands: "2xi64", want: "tensor<2xi64>"},
		{name: "clz float", op: "stablehlo.count_leading_zeros", operands: "2xf32", err: "want a tensor of integer type"},
		{name: "abs complex", op: "stablehlo.abs", operands: "2xcomplex<f64>", want: "tensor<2xf64>"},
		{name: "abs unsigned", op: "stablehlo.abs", operands: "2xui8", err: "want a tensor of signed integer, floating-point or complex type"},
		{name: "real", op: "stablehlo.real", operands: "2xcomplex<f32>", want: "tensor<2xf32>"},
		{name: "real float", op: "stablehlo.real", operands: "2xf32", want: "tensor<2xf32>"},
		{name: "imag int", op: "stablehlo.imag", operands: "2xi32", err: "want a tensor of floating-point or complex type"},
		{name: "complex", op: "stablehlo.complex", operands: "2xf64 2xf64", want: "tensor<2xcomplex<f64>>"},
		{name: "complex f16", op: "stablehlo.complex", operands: "2xf16 2xf16", err: "want a tensor of f32 or f64"},
		{name: "complex differ", op: "stablehlo.complex", operands: "2xf32 3xf32", err: "operand types tensor<2xf32> and tensor<3xf32> differ"},
		{name: "is_finite", op: "stablehlo.is_finite", operands: "2x?xf32", want: "tensor<2x?xi1>"},
		{name: "is_finite int", op: "stablehlo.is_finite", operands: "2xi32", err: "want a tensor of floating-point type"},
	})
}

func TestInferCompareSelectClampConvert(t *testing.T) {
	lt := enumA("comparison_direction", "LT")
	runInferCases(t, []inferTC{
		{name: "ok", op: "stablehlo.compare", operands: "2xf32 2xf32", attrs: nattrs("comparison_direction", lt, "compare_type", enumA("comparison_type", "FLOAT")), want: "tensor<2xi1>"},
		{name: "totalorder", op: "stablehlo.compare", operands: "2xf32 2xf32", attrs: nattrs("comparison_direction", lt, "compare_type", enumA("comparison_type", "TOTALORDER")), want: "tensor<2xi1>"},
		{name: "no type", op: "stablehlo.compare", operands: "2xui8 2xui8", attrs: nattrs("comparison_direction", lt), want: "tensor<2xi1>"},
		{name: "bad type", op: "stablehlo.compare", operands: "2xi32 2xi32", attrs: nattrs("comparison_direction", lt, "compare_type", enumA("comparison_type", "UNSIGNED")), err: "compare_type UNSIGNED is invalid for operands of type tensor<2xi32> (want SIGNED)"},
		{name: "no dir", op: "stablehlo.compare", operands: "2xi32 2xi32", err: "missing attribute comparison_direction"},
		{name: "bad dir", op: "stablehlo.compare", operands: "2xi32 2xi32", attrs: nattrs("comparison_direction", enumA("comparison_direction", "XX")), err: "comparison_direction XX is not one of"},
		{name: "differ", op: "stablehlo.compare", operands: "2xi32 2xi64", attrs: nattrs("comparison_direction", lt), err: "operand types tensor<2xi32> and tensor<2xi64> differ"},

		{name: "ok", op: "stablehlo.select", operands: "2xi1 2xf32 2xf32", want: "tensor<2xf32>"},
		{name: "scalar pred", op: "stablehlo.select", operands: "i1 2x?xf32 ?x3xf32", want: "tensor<2x3xf32>"},
		{name: "pred shape", op: "stablehlo.select", operands: "3xi1 2xf32 2xf32", err: "predicate type tensor<3xi1> is neither 0-d nor of the shape of tensor<2xf32>"},
		{name: "pred type", op: "stablehlo.select", operands: "2xi32 2xf32 2xf32", err: "predicate has type tensor<2xi32>, want a tensor of i1"},
		{name: "branches", op: "stablehlo.select", operands: "i1 2xf32 2xf64", err: "on_true type tensor<2xf32> and on_false type tensor<2xf64> differ"},

		{name: "ok", op: "stablehlo.clamp", operands: "f32 4xf32 4xf32", want: "tensor<4xf32>"},
		{name: "min shape", op: "stablehlo.clamp", operands: "3xf32 4xf32 f32", err: "min type tensor<3xf32> is neither 0-d nor of the shape of operand tensor<4xf32>"},
		{name: "max elem", op: "stablehlo.clamp", operands: "f32 4xf32 f64", err: "max type tensor<f64> and operand type tensor<4xf32> have different element types"},

		{name: "ok", op: "stablehlo.convert", operands: "2x3xf32", given: "2x3xi8", want: "tensor<2x3xi8>"},
		{name: "needs type", op: "stablehlo.convert", operands: "2x3xf32", err: "result type required"},
		{name: "shape", op: "stablehlo.convert", operands: "2x3xf32", given: "3x2xi8", err: "result type tensor<3x2xi8> does not have the shape of operand tensor<2x3xf32>"},

		{name: "same width", op: "stablehlo.bitcast_convert", operands: "2xf32", given: "2xi32", want: "tensor<2xi32>"},
		{name: "narrower", op: "stablehlo.bitcast_convert", operands: "2xf32", given: "2x4xi8", want: "tensor<2x4xi8>"},
		{name: "wider", op: "stablehlo.bitcast_convert", operands: "2x2xi32", given: "2xf64", want: "tensor<2xf64>"},
		{name: "bad narrower", op: "stablehlo.bitcast_convert", operands: "2xf32", given: "2x2xi8", err: "cannot bitcast tensor<2xf32> to tensor<2x2xi8>"},
		{name: "complex", op: "stablehlo.bitcast_convert", operands: "2xcomplex<f32>", given: "2xf64", err: "complex types convert only to complex types"},

		{name: "ok", op: "stablehlo.reduce_precision", operands: "4xf32", attrs: nattrs("exponent_bits", I32Attr(5), "mantissa_bits", I32Attr(10)), want: "tensor<4xf32>"},
		{name: "bits", op: "stablehlo.reduce_precision", operands: "4xf32", attrs: nattrs("exponent_bits", I32Attr(0), "mantissa_bits", I32Attr(10)), err: "exponent_bits = 0, want >= 1"},
		{name: "int", op: "stablehlo.reduce_precision", operands: "4xi32", attrs: nattrs("exponent_bits", I32Attr(5), "mantissa_bits", I32Attr(10)), err: "want a tensor of floating-point type"},
	})
}

func TestInferShapeOps(t *testing.T) {
	lit := NewLiteral(F32, 2, 3)
	runInferCases(t, []inferTC{
		{name: "ok", op: "stablehlo.constant", attrs: nattrs("value", &DenseElementsAttr{Type: lit.Type(), Value: lit}), want: "tensor<2x3xf32>"},
		{name: "missing", op: "stablehlo.constant", err: "missing attribute value"},

		{name: "ok", op: "stablehlo.iota", attrs: nattrs("iota_dimension", I64Attr(1)), given: "2x3xi32", want: "tensor<2x3xi32>"},
		{name: "dim", op: "stablehlo.iota", attrs: nattrs("iota_dimension", I64Attr(2)), given: "2x3xi32", err: "iota_dimension 2 is out of range for result type tensor<2x3xi32>"},
		{name: "bool", op: "stablehlo.iota", attrs: nattrs("iota_dimension", I64Attr(0)), given: "2xi1", err: "is not a tensor of integer, floating-point or complex type"},
		{name: "ok", op: "stablehlo.dynamic_iota", operands: "2xi64", attrs: nattrs("iota_dimension", I64Attr(0)), given: "?x3xf32", want: "tensor<?x3xf32>"},
		{name: "rank", op: "stablehlo.dynamic_iota", operands: "3xi64", attrs: nattrs("iota_dimension", I64Attr(0)), given: "?x3xf32", err: "has 3 entries, result type tensor<?x3xf32> has rank 2"},

		{name: "ok", op: "stablehlo.broadcast_in_dim", operands: "1x3xf32", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{0, 2})), given: "4x5x3xf32", want: "tensor<4x5x3xf32>"},
		{name: "size", op: "stablehlo.broadcast_in_dim", operands: "2x3xf32", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{0, 2})), given: "4x5x3xf32", err: "operand tensor<2x3xf32> dimension 0 (size 2) cannot broadcast to result tensor<4x5x3xf32> dimension 0 (size 4)"},
		{name: "count", op: "stablehlo.broadcast_in_dim", operands: "2x3xf32", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{0})), given: "2x3xf32", err: "broadcast_dimensions [0] has 1 entries, operand tensor<2x3xf32> has rank 2"},
		{name: "dup", op: "stablehlo.broadcast_in_dim", operands: "3x3xf32", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{1, 1})), given: "3x3xf32", err: "broadcast_dimensions [1, 1]: 1 repeats"},
		{name: "elem", op: "stablehlo.broadcast_in_dim", operands: "3xf32", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{0})), given: "3xf64", err: "different element types"},
		{name: "ok", op: "stablehlo.broadcast", operands: "3xf32", attrs: nattrs("broadcast_sizes", I64sAttr([]int64{2})), want: "tensor<2x3xf32>"},
		{name: "ok", op: "stablehlo.dynamic_broadcast_in_dim", operands: "3xf32 2xi64", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{1})), given: "?x3xf32", want: "tensor<?x3xf32>"},
		{name: "known", op: "stablehlo.dynamic_broadcast_in_dim", operands: "3xf32 2xi64", attrs: nattrs("broadcast_dimensions", I64sAttr([]int64{1}), "known_expanding_dimensions", I64sAttr([]int64{0}), "known_nonexpanding_dimensions", I64sAttr([]int64{0})), given: "?x3xf32", err: "0 repeats"},

		{name: "ok", op: "stablehlo.reshape", operands: "2x3xf32", given: "3x2xf32", want: "tensor<3x2xf32>"},
		{name: "count", op: "stablehlo.reshape", operands: "2x3xf32", given: "4xf32", err: "operand tensor<2x3xf32> has 6 elements, result tensor<4xf32> has 4"},
		{name: "needs type", op: "stablehlo.reshape", operands: "2x3xf32", err: "stablehlo.reshape: result type required"},
		{name: "dynamic", op: "stablehlo.reshape", operands: "?x3xf32", given: "7xf32", want: "tensor<7xf32>"},
		{name: "ok", op: "stablehlo.dynamic_reshape", operands: "?x3xf32 2xi32", given: "3x?xf32", want: "tensor<3x?xf32>"},
		{name: "shape", op: "stablehlo.dynamic_reshape", operands: "?x3xf32 2xf32", given: "3x?xf32", err: "output_shape has type tensor<2xf32>, want a 1-d tensor of integer type"},

		{name: "ok", op: "stablehlo.transpose", operands: "2x3x4xf32", attrs: nattrs("permutation", I64sAttr([]int64{2, 0, 1})), want: "tensor<4x2x3xf32>"},
		{name: "perm", op: "stablehlo.transpose", operands: "2x3xf32", attrs: nattrs("permutation", I64sAttr([]int64{0, 0})), err: "permutation [0, 0]: 0 repeats"},
		{name: "perm size", op: "stablehlo.transpose", operands: "2x3xf32", attrs: nattrs("permutation", I64sAttr([]int64{0})), err: "permutation [0] has 1 entries, operand tensor<2x3xf32> has rank 2"},

		{name: "ok", op: "stablehlo.slice", operands: "10x?xf32", attrs: nattrs("start_indices", I64sAttr([]int64{1, 0}), "limit_indices", I64sAttr([]int64{8, 4}), "strides", I64sAttr([]int64{3, 1})), want: "tensor<3x4xf32>"},
		{name: "huge-stride", op: "stablehlo.slice", operands: "10x3xf32", attrs: nattrs("start_indices", I64sAttr([]int64{1, 3}), "limit_indices", I64sAttr([]int64{10, 3}), "strides", I64sAttr([]int64{math.MaxInt64, math.MaxInt64})), want: "tensor<1x0xf32>"},
		{name: "limit", op: "stablehlo.slice", operands: "10xf32", attrs: nattrs("start_indices", I64sAttr([]int64{1}), "limit_indices", I64sAttr([]int64{11}), "strides", I64sAttr([]int64{1})), err: "dimension 0 of tensor<10xf32>: need 0 <= start 1 <= limit 11 <= size 10"},
		{name: "stride", op: "stablehlo.slice", operands: "10xf32", attrs: nattrs("start_indices", I64sAttr([]int64{1}), "limit_indices", I64sAttr([]int64{2}), "strides", I64sAttr([]int64{0})), err: "stride 0 is not positive"},

		{name: "ok", op: "stablehlo.dynamic_slice", operands: "5x6xf32 i32 i32", attrs: nattrs("slice_sizes", I64sAttr([]int64{2, 6})), want: "tensor<2x6xf32>"},
		{name: "too big", op: "stablehlo.dynamic_slice", operands: "5x6xf32 i32 i32", attrs: nattrs("slice_sizes", I64sAttr([]int64{2, 7})), err: "size 7 of dimension 1 is outside [0, 6]"},
		{name: "index types", op: "stablehlo.dynamic_slice", operands: "5x6xf32 i32 i64", attrs: nattrs("slice_sizes", I64sAttr([]int64{2, 6})), err: "start index types tensor<i32> and tensor<i64> differ"},
		{name: "count", op: "stablehlo.dynamic_slice", operands: "5x6xf32 i32", attrs: nattrs("slice_sizes", I64sAttr([]int64{2, 6})), err: "needs 2 start indices and slice sizes, got 1"},
		{name: "ok", op: "stablehlo.real_dynamic_slice", operands: "5xf32 1xi32 1xi32 1xi32", given: "?xf32", want: "tensor<?xf32>"},

		{name: "ok", op: "stablehlo.dynamic_update_slice", operands: "5x6xf32 2x6xf32 i64 i64", want: "tensor<5x6xf32>"},
		{name: "fit", op: "stablehlo.dynamic_update_slice", operands: "5x6xf32 2x7xf32 i64 i64", err: "update tensor<2x7xf32> does not fit in operand tensor<5x6xf32>"},
		{name: "index", op: "stablehlo.dynamic_update_slice", operands: "5x6xf32 2x6xf32 i64 2xi64", err: "start index operand #3 has type tensor<2xi64>, want a 0-d tensor of integer type"},

		{name: "ok", op: "stablehlo.concatenate", operands: "2x3xf32 4x3xf32 ?x3xf32", attrs: nattrs("dimension", I64Attr(0)), want: "tensor<?x3xf32>"},
		{name: "static", op: "stablehlo.concatenate", operands: "2x3xf32 2x4xf32", attrs: nattrs("dimension", I64Attr(1)), want: "tensor<2x7xf32>"},
		{name: "other dim", op: "stablehlo.concatenate", operands: "2x3xf32 2x4xf32", attrs: nattrs("dimension", I64Attr(0)), err: "operand types tensor<2x3xf32> and tensor<2x4xf32> differ in dimension 1"},
		{name: "overflow", op: "stablehlo.concatenate", operands: "9223372036854775807xf32 1xf32", attrs: nattrs("dimension", I64Attr(0)), err: "dimension 0 of the result overflows int64"},
		{name: "size", op: "stablehlo.concatenate", operands: "4294967296x4294967296xf32 4294967296x4294967296xf32", attrs: nattrs("dimension", I64Attr(0)), err: "result #0: tensor<8589934592x4294967296xf32>: element count overflows int64"},
		{name: "dim range", op: "stablehlo.concatenate", operands: "2x3xf32", attrs: nattrs("dimension", I64Attr(2)), err: "dimension 2 is out of range for tensor<2x3xf32>"},

		{name: "ok", op: "stablehlo.pad", operands: "2x3xf32 f32", attrs: nattrs("edge_padding_low", I64sAttr([]int64{1, -1}), "edge_padding_high", I64sAttr([]int64{0, 2}), "interior_padding", I64sAttr([]int64{1, 0})), want: "tensor<4x4xf32>"},
		{name: "value", op: "stablehlo.pad", operands: "2x3xf32 1xf32", attrs: nattrs("edge_padding_low", I64sAttr([]int64{0, 0}), "edge_padding_high", I64sAttr([]int64{0, 0}), "interior_padding", I64sAttr([]int64{0, 0})), err: "padding value type tensor<1xf32> must be a 0-d tensor"},
		{name: "overflow", op: "stablehlo.pad", operands: "3xf32 f32", attrs: nattrs("edge_padding_low", I64sAttr([]int64{0}), "edge_padding_high", I64sAttr([]int64{0}), "interior_padding", I64sAttr([]int64{1 << 62})), err: "makes dimension 0 of tensor<3xf32> overflow int64"},
		{name: "size", op: "stablehlo.pad", operands: "3x3xf32 f32", attrs: nattrs("edge_padding_low", I64sAttr([]int64{1 << 40, 1 << 40}), "edge_padding_high", I64sAttr([]int64{0, 0}), "interior_padding", I64sAttr([]int64{0, 0})), err: "element count overflows int64"},
		{name: "interior", op: "stablehlo.pad", operands: "2xf32 f32", attrs: nattrs("edge_padding_low", I64sAttr([]int64{0}), "edge_padding_high", I64sAttr([]int64{0}), "interior_padding", I64sAttr([]int64{-1})), err: "interior_padding [-1] is negative"},
		{name: "ok", op: "stablehlo.dynamic_pad", operands: "2xf32 f32 1xi32 1xi32 1xi32", given: "?xf32", want: "tensor<?xf32>"},

		{name: "ok", op: "stablehlo.reverse", operands: "2x3xf32", attrs: nattrs("dimensions", I64sAttr([]int64{1})), want: "tensor<2x3xf32>"},
		{name: "dims", op: "stablehlo.reverse", operands: "2x3xf32", attrs: nattrs("dimensions", I64sAttr([]int64{2})), err: "dimensions [2]: 2 is out of range [0, 2)"},

		{name: "ok", op: "stablehlo.get_dimension_size", operands: "2x3xf32", attrs: nattrs("dimension", I64Attr(1)), want: "tensor<i32>"},
		{name: "dim", op: "stablehlo.get_dimension_size", operands: "2x3xf32", attrs: nattrs("dimension", I64Attr(3)), err: "dimension 3 is out of range for tensor<2x3xf32>"},
		{name: "ok", op: "stablehlo.set_dimension_size", operands: "2x3xf32 i32", attrs: nattrs("dimension", I64Attr(1)), want: "tensor<2x?xf32>"},
	})
}

func TestInferDotConv(t *testing.T) {
	dn := &DotDimsAttr{LhsBatchingDims: []int64{0}, RhsBatchingDims: []int64{0}, LhsContractingDims: []int64{2}, RhsContractingDims: []int64{1}}
	conv := DefaultConvDims(4)
	runInferCases(t, []inferTC{
		{name: "batched", op: "stablehlo.dot_general", operands: "8x2x3xf32 8x3x4xf32", attrs: nattrs("dot_dimension_numbers", dn), want: "tensor<8x2x4xf32>"},
		{name: "preferred", op: "stablehlo.dot_general", operands: "8x2x3xi8 8x3x4xi8", attrs: nattrs("dot_dimension_numbers", dn), given: "8x2x4xi32", want: "tensor<8x2x4xi32>"},
		{name: "contract size", op: "stablehlo.dot_general", operands: "8x2x3xf32 8x5x4xf32", attrs: nattrs("dot_dimension_numbers", dn), err: "contracting dimension sizes differ: tensor<8x2x3xf32> dimension 2 is 3, tensor<8x5x4xf32> dimension 1 is 5"},
		{name: "batch size", op: "stablehlo.dot_general", operands: "8x2x3xf32 7x3x4xf32", attrs: nattrs("dot_dimension_numbers", dn), err: "batching dimension sizes differ"},
		{name: "elem", op: "stablehlo.dot_general", operands: "8x2x3xf32 8x3x4xf16", attrs: nattrs("dot_dimension_numbers", dn), err: "operand types tensor<8x2x3xf32> and tensor<8x3x4xf16> have different element types"},
		{name: "dims overlap", op: "stablehlo.dot_general", operands: "8x2x3xf32 8x3x4xf32", attrs: nattrs("dot_dimension_numbers", &DotDimsAttr{LhsBatchingDims: []int64{0}, RhsBatchingDims: []int64{0}, LhsContractingDims: []int64{0}, RhsContractingDims: []int64{1}}), err: "0 repeats"},
		{name: "counts", op: "stablehlo.dot_general", operands: "2x3xf32 3x4xf32", attrs: nattrs("dot_dimension_numbers", &DotDimsAttr{LhsContractingDims: []int64{1}}), err: "lhs_contracting_dimensions [1] and rhs_contracting_dimensions [] differ in size"},
		{name: "missing", op: "stablehlo.dot_general", operands: "2x3xf32 3x4xf32", err: "missing attribute dot_dimension_numbers"},
		{name: "precision", op: "stablehlo.dot_general", operands: "2x3xf32 3x4xf32", attrs: nattrs("dot_dimension_numbers", &DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}, "precision_config", ArrayAttr{enumA("precision", "FAST")}), err: "precision_config entry #stablehlo<precision FAST> is not DEFAULT, HIGH or HIGHEST"},
		{name: "algorithm", op: "stablehlo.dot_general", operands: "2x3xf32 3x4xf32", attrs: nattrs("dot_dimension_numbers", &DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}, "precision_config", ArrayAttr{enumA("precision", "HIGH")}, "algorithm", OpaqueAttr{Text: "#stablehlo.dot_algorithm<...>"}), err: "precision_config must be DEFAULT when an algorithm is given, got HIGH"},
		{name: "matmul", op: "stablehlo.dot", operands: "2x3xf32 3x4xf32", want: "tensor<2x4xf32>"},
		{name: "matvec", op: "stablehlo.dot", operands: "2x3xf32 3xf32", want: "tensor<2xf32>"},
		{name: "vecvec", op: "stablehlo.dot", operands: "3xf32 3xf32", want: "tensor<f32>"},
		{name: "bad", op: "stablehlo.dot", operands: "2x3xf32 4xf32", err: "contracting dimension sizes of tensor<2x3xf32> and tensor<4xf32> differ"},

		{name: "valid", op: "stablehlo.convolution", operands: "1x8x8x3xf32 3x3x3x16xf32", attrs: nattrs("dimension_numbers", conv), want: "tensor<1x6x6x16xf32>"},
		{name: "same pad stride", op: "stablehlo.convolution", operands: "1x8x8x3xf32 3x3x3x16xf32",
			attrs: nattrs("dimension_numbers", conv, "window_strides", I64sAttr([]int64{2, 2}), "padding", PairsAttr([][2]int64{{1, 1}, {1, 1}})), want: "tensor<1x4x4x16xf32>"},
		{name: "dilated", op: "stablehlo.convolution", operands: "1x8x8x3xf32 3x3x3x16xf32",
			attrs: nattrs("dimension_numbers", conv, "lhs_dilation", I64sAttr([]int64{2, 2}), "rhs_dilation", I64sAttr([]int64{2, 1})), want: "tensor<1x11x13x16xf32>"},
		{name: "groups", op: "stablehlo.convolution", operands: "2x8x8x6xf32 3x3x2x6xf32",
			attrs: nattrs("dimension_numbers", conv, "feature_group_count", I64Attr(3), "batch_group_count", I64Attr(1)), want: "tensor<2x6x6x6xf32>"},
		{name: "features", op: "stablehlo.convolution", operands: "1x8x8x3xf32 3x3x4x16xf32", attrs: nattrs("dimension_numbers", conv), err: "rhs tensor<3x3x4x16xf32> input feature size 4 must be lhs tensor<1x8x8x3xf32> feature size 3 / feature_group_count 1"},
		{name: "rank", op: "stablehlo.convolution", operands: "1x8x8x3xf32 3x3x3xf32", attrs: nattrs("dimension_numbers", conv), err: "must have the same rank"},
		{name: "both groups", op: "stablehlo.convolution", operands: "2x8x8x6xf32 3x3x2x6xf32",
			attrs: nattrs("dimension_numbers", conv, "feature_group_count", I64Attr(3), "batch_group_count", I64Attr(2)), err: "cannot both exceed 1"},
		{name: "padding shape", op: "stablehlo.convolution", operands: "1x8x8x3xf32 3x3x3x16xf32",
			attrs: nattrs("dimension_numbers", conv, "padding", PairsAttr([][2]int64{{1, 1}})), err: "attribute padding has 2 values, want 4"},
		{name: "ok", op: "stablehlo.dynamic_conv", operands: "1x8x8x3xf32 3x3x3x16xf32 2x2xi64", attrs: nattrs("dimension_numbers", conv), given: "1x?x?x16xf32", want: "tensor<1x?x?x16xf32>"},
		{name: "features", op: "stablehlo.dynamic_conv", operands: "1x8x8x3xf32 3x3x3x16xf32 2x2xi64", attrs: nattrs("dimension_numbers", conv), given: "1x?x?x8xf32", err: "does not match the convolution shape"},
	})
}

func TestInferGatherScatter(t *testing.T) {
	// Row gather: operand 5x4, indices 3x1 -> 3x4.
	g := &GatherDimsAttr{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}
	batched := &GatherDimsAttr{OffsetDims: []int64{2}, CollapsedSliceDims: []int64{1}, OperandBatchingDims: []int64{0},
		StartIndicesBatchingDims: []int64{0}, StartIndexMap: []int64{1}, IndexVectorDim: 2}
	s := &ScatterDimsAttr{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	add := tregion("f32 f32", "f32")
	runInferCases(t, []inferTC{
		{name: "rows", op: "stablehlo.gather", operands: "5x4xf32 3x1xi32", attrs: nattrs("dimension_numbers", g, "slice_sizes", I64sAttr([]int64{1, 4})), want: "tensor<3x4xf32>"},
		{name: "implicit index dim", op: "stablehlo.gather", operands: "5x4xf32 3xi32",
			attrs: nattrs("dimension_numbers", &GatherDimsAttr{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}, "slice_sizes", I64sAttr([]int64{1, 4})), want: "tensor<3x4xf32>"},
		{name: "batched", op: "stablehlo.gather", operands: "2x5x4xf32 2x3x1xi64", attrs: nattrs("dimension_numbers", batched, "slice_sizes", I64sAttr([]int64{1, 1, 4})), want: "tensor<2x3x4xf32>"},
		{name: "collapsed size", op: "stablehlo.gather", operands: "5x4xf32 3x1xi32", attrs: nattrs("dimension_numbers", g, "slice_sizes", I64sAttr([]int64{2, 4})), err: "collapsed or batching dimension 0 has size 2, want <= 1"},
		{name: "slice too big", op: "stablehlo.gather", operands: "5x4xf32 3x1xi32", attrs: nattrs("dimension_numbers", g, "slice_sizes", I64sAttr([]int64{1, 5})), err: "slice_sizes [1, 5] exceeds operand tensor<5x4xf32> in dimension 1"},
		{name: "index map", op: "stablehlo.gather", operands: "5x4xf32 3x2xi32", attrs: nattrs("dimension_numbers", g, "slice_sizes", I64sAttr([]int64{1, 4})), err: "start_index_map [0] has 1 entries, start_indices tensor<3x2xi32> has 2 in index_vector_dim 1"},
		{name: "rank", op: "stablehlo.gather", operands: "5x4x2xf32 3x1xi32", attrs: nattrs("dimension_numbers", g, "slice_sizes", I64sAttr([]int64{1, 4, 2})), err: "operand tensor<5x4x2xf32> has rank 3"},
		{name: "float indices", op: "stablehlo.gather", operands: "5x4xf32 3x1xf32", attrs: nattrs("dimension_numbers", g, "slice_sizes", I64sAttr([]int64{1, 4})), err: "start_indices has type tensor<3x1xf32>, want a tensor of integer type"},
		{name: "ok", op: "stablehlo.dynamic_gather", operands: "5x4xf32 3x1xi32 2xi32", attrs: nattrs("dimension_numbers", g), given: "3x4xf32", want: "tensor<3x4xf32>"},

		{name: "rows", op: "stablehlo.scatter", operands: "5x4xf32 3x1xi32 3x4xf32", attrs: nattrs("scatter_dimension_numbers", s), regions: []*Region{add}, want: "tensor<5x4xf32>"},
		{name: "two inputs", op: "stablehlo.scatter", operands: "5x4xf32 5x4xi32 3x1xi32 3x4xf32 3x4xi32", attrs: nattrs("scatter_dimension_numbers", s),
			regions: []*Region{tregion("f32 i32 f32 i32", "f32 i32")}, want: "tensor<5x4xf32>, tensor<5x4xi32>"},
		{name: "window too big", op: "stablehlo.scatter", operands: "5x4xf32 3x1xi32 3x5xf32", attrs: nattrs("scatter_dimension_numbers", s), regions: []*Region{add}, err: "updates tensor<3x5xf32> window dimension 1 has size 5, larger than input tensor<5x4xf32> allows (4)"},
		{name: "scatter dims", op: "stablehlo.scatter", operands: "5x4xf32 3x1xi32 2x4xf32", attrs: nattrs("scatter_dimension_numbers", s), regions: []*Region{add}, err: "updates tensor<2x4xf32> dimension 0 has size 2, scatter_indices tensor<3x1xi32> gives 3"},
		{name: "body", op: "stablehlo.scatter", operands: "5x4xf32 3x1xi32 3x4xf32", attrs: nattrs("scatter_dimension_numbers", s), regions: []*Region{tregion("f32 f32", "i32")}, err: "update_computation region returns tensor<i32> as result #0, want tensor<f32>"},
		{name: "body arity", op: "stablehlo.scatter", operands: "5x4xf32 3x1xi32 3x4xf32", attrs: nattrs("scatter_dimension_numbers", s), regions: []*Region{tregion("f32", "f32")}, err: "update_computation region takes 1 arguments (tensor<f32>), want 2"},
		{name: "operands", op: "stablehlo.scatter", operands: "5x4xf32 3x1xi32", attrs: nattrs("scatter_dimension_numbers", s), regions: []*Region{add}, err: "expected N inputs, scatter_indices and N updates, got 2 operands"},
	})
}

func TestInferReductions(t *testing.T) {
	add := tregion("f32 f32", "f32")
	pair := tregion("f32 i32 f32 i32", "f32 i32")
	cmp := tregion("f32 f32", "i1")
	runInferCases(t, []inferTC{
		{name: "ok", op: "stablehlo.reduce", operands: "2x3x4xf32 f32", attrs: nattrs("dimensions", I64sAttr([]int64{1})), regions: []*Region{add}, want: "tensor<2x4xf32>"},
		{name: "variadic", op: "stablehlo.reduce", operands: "3x4xf32 3x4xi32 f32 i32", attrs: nattrs("dimensions", I64sAttr([]int64{0, 1})), regions: []*Region{pair}, want: "tensor<f32>, tensor<i32>"},
		{name: "promote", op: "stablehlo.reduce", operands: "4xf16 f16", attrs: nattrs("dimensions", I64sAttr([]int64{0})), regions: []*Region{add}, want: "tensor<f32>"},
		{name: "narrowing", op: "stablehlo.reduce", operands: "4xf64 f64", attrs: nattrs("dimensions", I64sAttr([]int64{0})), regions: []*Region{add}, err: "accumulator type tensor<f32> cannot hold input element type f64"},
		{name: "dims", op: "stablehlo.reduce", operands: "2x3xf32 f32", attrs: nattrs("dimensions", I64sAttr([]int64{2})), regions: []*Region{add}, err: "dimensions [2]: 2 is out of range [0, 2)"},
		{name: "init", op: "stablehlo.reduce", operands: "2x3xf32 1xf32", attrs: nattrs("dimensions", I64sAttr([]int64{0})), regions: []*Region{add}, err: "init value #0 has type tensor<1xf32>, want a 0-d tensor"},
		{name: "body args", op: "stablehlo.reduce", operands: "2x3xf32 f32", attrs: nattrs("dimensions", I64sAttr([]int64{0})), regions: []*Region{tregion("f32 i32", "f32")}, err: "body region arguments #0 and #1 differ"},
		{name: "no region", op: "stablehlo.reduce", operands: "2x3xf32 f32", attrs: nattrs("dimensions", I64sAttr([]int64{0})), err: "missing body region"},
		{name: "no terminator", op: "stablehlo.reduce", operands: "2x3xf32 f32", attrs: nattrs("dimensions", I64sAttr([]int64{0})), regions: []*Region{{Blocks: []*Block{{}}}}, err: "body region: block has no terminator"},

		{name: "pool", op: "stablehlo.reduce_window", operands: "1x8x8x3xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{1, 2, 2, 1}), "window_strides", I64sAttr([]int64{1, 2, 2, 1})), regions: []*Region{add}, want: "tensor<1x4x4x3xf32>"},
		{name: "padded dilated", op: "stablehlo.reduce_window", operands: "5xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{2}), "base_dilations", I64sAttr([]int64{2}), "window_dilations", I64sAttr([]int64{3}), "padding", PairsAttr([][2]int64{{1, 1}})), regions: []*Region{add}, want: "tensor<8xf32>"},
		{name: "padding overflow", op: "stablehlo.reduce_window", operands: "5xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{1}), "padding", PairsAttr([][2]int64{{1 << 62, 1 << 62}})), regions: []*Region{add}, err: "result #0: dimension 0 of the result overflows int64"},
		{name: "dilation overflow", op: "stablehlo.reduce_window", operands: "5xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{1}), "base_dilations", I64sAttr([]int64{1 << 62})), regions: []*Region{add}, err: "result #0: dimension 0 of the result overflows int64"},
		{name: "size overflow", op: "stablehlo.reduce_window", operands: "4294967296x5xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{1, 1}), "padding", PairsAttr([][2]int64{{0, 0}, {1 << 32, 0}})), regions: []*Region{add}, err: "result #0: tensor<4294967296x4294967301xf32>: element count overflows int64"},
		{name: "window rank", op: "stablehlo.reduce_window", operands: "5x5xf32 f32", attrs: nattrs("window_dimensions", I64sAttr([]int64{2})), regions: []*Region{add}, err: "window_dimensions [2] has 1 entries, want 2"},
		{name: "window zero", op: "stablehlo.reduce_window", operands: "5xf32 f32", attrs: nattrs("window_dimensions", I64sAttr([]int64{0})), regions: []*Region{add}, err: "window_dimensions [0] must be positive"},

		{name: "ok", op: "stablehlo.select_and_scatter", operands: "4x4xf32 2x2xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{2, 2}), "window_strides", I64sAttr([]int64{2, 2})), regions: []*Region{cmp, add}, want: "tensor<4x4xf32>"},
		{name: "source", op: "stablehlo.select_and_scatter", operands: "4x4xf32 3x2xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{2, 2}), "window_strides", I64sAttr([]int64{2, 2})), regions: []*Region{cmp, add}, err: "source tensor<3x2xf32> does not have the window count shape f32[2,2] of operand tensor<4x4xf32>"},
		{name: "select", op: "stablehlo.select_and_scatter", operands: "4x4xf32 2x2xf32 f32",
			attrs: nattrs("window_dimensions", I64sAttr([]int64{2, 2}), "window_strides", I64sAttr([]int64{2, 2})), regions: []*Region{add, add}, err: "select region returns (tensor<f32>), want (tensor<i1>)"},

		{name: "ok", op: "stablehlo.sort", operands: "3x4xf32 3x4xi32", attrs: nattrs("dimension", I64Attr(-1)), regions: []*Region{tregion("f32 f32 i32 i32", "i1")}, want: "tensor<3x4xf32>, tensor<3x4xi32>"},
		{name: "dim", op: "stablehlo.sort", operands: "3x4xf32", attrs: nattrs("dimension", I64Attr(2)), regions: []*Region{cmp}, err: "dimension 2 is out of range [-2, 2) for tensor<3x4xf32>"},
		{name: "comparator", op: "stablehlo.sort", operands: "3x4xf32 3x4xi32", regions: []*Region{cmp}, err: "comparator region takes (tensor<f32>, tensor<f32>), want (tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>)"},
		{name: "shapes", op: "stablehlo.sort", operands: "3x4xf32 4x3xi32", regions: []*Region{tregion("f32 f32 i32 i32", "i1")}, err: "input shapes tensor<3x4xf32> and tensor<4x3xi32> differ"},

		{name: "ok", op: "stablehlo.map", operands: "3xf32 3xf32", attrs: nattrs("dimensions", I64sAttr([]int64{0})), regions: []*Region{add}, want: "tensor<3xf32>"},
		{name: "dims", op: "stablehlo.map", operands: "3xf32 3xf32", attrs: nattrs("dimensions", I64sAttr([]int64{1})), regions: []*Region{add}, err: "dimensions [1] must be [0, ..., 0]"},
	})
}

func TestInferControl(t *testing.T) {
	tup := &TupleType{Elems: []Type{ttype("2xf32"), &TokenType{}}}
	runInferCases(t, []inferTC{
		{name: "ok", op: "stablehlo.while", operands: "i32 2xf32", regions: []*Region{tregion("i32 2xf32", "i1"), tregion("i32 2xf32", "i32 2xf32")}, want: "tensor<i32>, tensor<2xf32>"},
		{name: "cond", op: "stablehlo.while", operands: "i32", regions: []*Region{tregion("i32", "i32"), tregion("i32", "i32")}, err: "cond region returns (tensor<i32>), want (tensor<i1>)"},
		{name: "body", op: "stablehlo.while", operands: "i32", regions: []*Region{tregion("i32", "i1"), tregion("i32", "i64")}, err: "body region returns (tensor<i64>), want (tensor<i32>)"},
		{name: "body args", op: "stablehlo.while", operands: "i32", regions: []*Region{tregion("i32", "i1"), tregion("i64", "i32")}, err: "body region takes (tensor<i64>), want (tensor<i32>)"},

		{name: "ok", op: "stablehlo.if", operands: "i1", regions: []*Region{tregion("", "2xf32"), tregion("", "2xf32")}, want: "tensor<2xf32>"},
		{name: "branches", op: "stablehlo.if", operands: "i1", regions: []*Region{tregion("", "2xf32"), tregion("", "3xf32")}, err: "false_branch region returns (tensor<3xf32>), want (tensor<2xf32>)"},
		{name: "pred", op: "stablehlo.if", operands: "2xi1", regions: []*Region{tregion("", ""), tregion("", "")}, err: "predicate has type tensor<2xi1>, want tensor<i1>"},
		{name: "args", op: "stablehlo.if", operands: "i1", regions: []*Region{tregion("f32", ""), tregion("", "")}, err: "true_branch region takes (tensor<f32>), want ()"},
		{name: "ok", op: "stablehlo.case", operands: "i32", regions: []*Region{tregion("", "f32"), tregion("", "f32"), tregion("", "f32")}, want: "tensor<f32>"},
		{name: "index", op: "stablehlo.case", operands: "i64", regions: []*Region{tregion("", "f32")}, err: "index has type tensor<i64>, want tensor<i32>"},
		{name: "branch", op: "stablehlo.case", operands: "i32", regions: []*Region{tregion("", "f32"), tregion("", "i32")}, err: "branch #1 region returns (tensor<i32>), want (tensor<f32>)"},

		{name: "ok", op: "stablehlo.tuple", operands: "2xf32 !token", want: tup.String()},
		{name: "ok", op: "stablehlo.optimization_barrier", operands: "2xf32 !token", want: "tensor<2xf32>, !stablehlo.token"},
		{name: "ok", op: "stablehlo.after_all", operands: "!token !token", want: "!stablehlo.token"},
		{name: "tensor", op: "stablehlo.after_all", operands: "!token f32", err: "operand #1 has type tensor<f32>, want !stablehlo.token"},
		{name: "ok", op: "stablehlo.replica_id", want: "tensor<ui32>"},
		{name: "ok", op: "stablehlo.partition_id", want: "tensor<ui32>"},
		{name: "ok", op: "stablehlo.outfeed", operands: "2xf32 !token", want: "!stablehlo.token"},
		{name: "ok", op: "stablehlo.infeed", operands: "!token", given: "2xf32 !token", want: "tensor<2xf32>, !stablehlo.token"},
		{name: "token", op: "stablehlo.infeed", operands: "!token", given: "2xf32", err: "last result has type tensor<2xf32>, want !stablehlo.token"},
		{name: "ok", op: "stablehlo.custom_call", operands: "2xf32", attrs: nattrs("call_target_name", StringAttr("foo")), given: "3xi8", want: "tensor<3xi8>"},
		{name: "target", op: "stablehlo.custom_call", operands: "2xf32", given: "3xi8", err: "missing attribute call_target_name"},
		{name: "types", op: "stablehlo.custom_call", operands: "2xf32", attrs: nattrs("call_target_name", StringAttr("foo")), err: "result types required"},
	})
	// get_tuple_element needs a tuple operand, which tys cannot spell.
	got, err := InferResultTypes("stablehlo.get_tuple_element", []Type{tup}, nattrs("index", I32Attr(1)), nil)
	if err != nil || typeList(got) != "!stablehlo.token" {
		t.Errorf("get_tuple_element: got %v, %v", got, err)
	}
	if _, err := InferResultTypes("stablehlo.get_tuple_element", []Type{tup}, nattrs("index", I32Attr(2)), nil); err == nil ||
		!strings.Contains(err.Error(), "index 2 is out of range for tuple<tensor<2xf32>, !stablehlo.token>") {
		t.Errorf("get_tuple_element out of range: %v", err)
	}
}

func TestInferLinalg(t *testing.T) {
	fft := func(typ string, n ...int64) []NamedAttr {
		return nattrs("fft_type", enumA("fft_type", typ), "fft_length", I64sAttr(n))
	}
	runInferCases(t, []inferTC{
		{name: "fft", op: "stablehlo.fft", operands: "3x8xcomplex<f32>", attrs: fft("FFT", 8), want: "tensor<3x8xcomplex<f32>>"},
		{name: "rfft", op: "stablehlo.fft", operands: "3x8xf32", attrs: fft("RFFT", 8), want: "tensor<3x5xcomplex<f32>>"},
		{name: "irfft", op: "stablehlo.fft", operands: "3x5xcomplex<f64>", attrs: fft("IRFFT", 8), want: "tensor<3x8xf64>"},
		{name: "rfft length", op: "stablehlo.fft", operands: "3x8xf32", attrs: fft("RFFT", 4), err: "operand trailing dimensions [8] must equal fft_length [4]"},
		{name: "fft real", op: "stablehlo.fft", operands: "8xf32", attrs: fft("FFT", 8), err: "FFT operand has type tensor<8xf32>, want a complex tensor"},
		{name: "length", op: "stablehlo.fft", operands: "8xcomplex<f32>", attrs: fft("FFT", 2, 4), err: "fft_length [2, 4] must have 1 to 3 entries"},

		{name: "left", op: "stablehlo.triangular_solve", operands: "2x3x3xf32 2x3x5xf32", attrs: nattrs("left_side", BoolAttr(true), "lower", BoolAttr(true), "unit_diagonal", BoolAttr(false), "transpose_a", enumA("transpose", "NO_TRANSPOSE")), want: "tensor<2x3x5xf32>"},
		{name: "right", op: "stablehlo.triangular_solve", operands: "3x3xf32 5x3xf32", attrs: nattrs("left_side", BoolAttr(false)), want: "tensor<5x3xf32>"},
		{name: "mismatch", op: "stablehlo.triangular_solve", operands: "3x3xf32 5x3xf32", attrs: nattrs("left_side", BoolAttr(true)), err: "a tensor<3x3xf32> does not match the rows of b tensor<5x3xf32>"},
		{name: "square", op: "stablehlo.triangular_solve", operands: "3x4xf32 4x3xf32", attrs: nattrs("left_side", BoolAttr(true)), err: "a tensor<3x4xf32> is not square"},

		{name: "ok", op: "stablehlo.cholesky", operands: "2x4x4xf64", attrs: nattrs("lower", BoolAttr(true)), want: "tensor<2x4x4xf64>"},
		{name: "square", op: "stablehlo.cholesky", operands: "4x3xf64", err: "operand tensor<4x3xf64> is not square"},

		{name: "ok", op: "stablehlo.rng_bit_generator", operands: "2xui64", attrs: nattrs("rng_algorithm", enumA("rng_algorithm", "THREE_FRY")), given: "2xui64 3x4xui32", want: "tensor<2xui64>, tensor<3x4xui32>"},
		{name: "state", op: "stablehlo.rng_bit_generator", operands: "3xui64", attrs: nattrs("rng_algorithm", enumA("rng_algorithm", "THREE_FRY")), given: "3xui64 3x4xui32", err: "THREE_FRY needs an initial_state of 2 elements, got tensor<3xui64>"},
		{name: "i32x4", op: "stablehlo.rng_bit_generator", operands: "4xi32", attrs: nattrs("rng_algorithm", enumA("rng_algorithm", "PHILOX")), given: "4xi32 8xi32", want: "tensor<4xi32>, tensor<8xi32>"},
		{name: "i32x2", op: "stablehlo.rng_bit_generator", operands: "2xi32", attrs: nattrs("rng_algorithm", enumA("rng_algorithm", "THREE_FRY")), given: "2xi32 8xi32", err: "an initial_state of 32-bit elements needs 4 of them (two 64-bit words), got tensor<2xi32>"},
		{name: "output", op: "stablehlo.rng_bit_generator", operands: "2xui64", attrs: nattrs("rng_algorithm", enumA("rng_algorithm", "DEFAULT")), err: "output type required"},
		{name: "ok", op: "stablehlo.rng", operands: "f32 f32 2xi64", attrs: nattrs("rng_distribution", enumA("rng_distribution", "NORMAL")), given: "3x4xf32", want: "tensor<3x4xf32>"},

		{name: "ok", op: "stablehlo.batch_norm_inference", operands: "2x3xf32 3xf32 3xf32 3xf32 3xf32", attrs: nattrs("epsilon", FloatAttr{Value: 1e-5}, "feature_index", I64Attr(1)), want: "tensor<2x3xf32>"},
		{name: "feature", op: "stablehlo.batch_norm_inference", operands: "2x3xf32 2xf32 3xf32 3xf32 3xf32", attrs: nattrs("epsilon", FloatAttr{Value: 1e-5}, "feature_index", I64Attr(1)), err: "operand #1 tensor<2xf32> does not have the feature size 3 of tensor<2x3xf32>"},
		{name: "ok", op: "stablehlo.batch_norm_training", operands: "2x3xf32 3xf32 3xf32", attrs: nattrs("epsilon", FloatAttr{Value: 1e-5}, "feature_index", I64Attr(1)), want: "tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>"},
		{name: "ok", op: "stablehlo.batch_norm_grad", operands: "2x3xf32 3xf32 3xf32 3xf32 2x3xf32", attrs: nattrs("epsilon", FloatAttr{Value: 1e-5}, "feature_index", I64Attr(1)), want: "tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>"},
	})
}

func TestInferCollectives(t *testing.T) {
	groups := I64ElementsAttr([][]int64{{0, 1}}, 2)
	add := tregion("f32 f32", "f32")
	runInferCases(t, []inferTC{
		{name: "ok", op: "stablehlo.all_gather", operands: "2x2xi64 2x2xi32", attrs: nattrs("all_gather_dim", I64Attr(1), "replica_groups", groups), want: "tensor<2x4xi64>, tensor<2x4xi32>"},
		{name: "partitions", op: "stablehlo.all_gather", operands: "2x2xi64", attrs: nattrs("all_gather_dim", I64Attr(1), "replica_groups", groups, "channel_handle", ChannelHandleAttr{Handle: 1}), given: "2x8xi64", want: "tensor<2x8xi64>"},
		{name: "dim", op: "stablehlo.all_gather", operands: "2x2xi64", attrs: nattrs("all_gather_dim", I64Attr(2), "replica_groups", groups), err: "all_gather_dim 2 is out of range for tensor<2x2xi64>"},
		{name: "ok", op: "stablehlo.all_reduce", operands: "4xf32", attrs: nattrs("replica_groups", groups), regions: []*Region{add}, want: "tensor<4xf32>"},
		{name: "body", op: "stablehlo.all_reduce", operands: "4xf32", attrs: nattrs("replica_groups", groups), regions: []*Region{tregion("f32 f32", "i32")}, err: "computation region returns (tensor<i32>), want (tensor<f32>)"},
		{name: "groups", op: "stablehlo.all_reduce", operands: "4xf32", attrs: nattrs("replica_groups", I64ElementsAttr([][]int64{{0, 0}}, 2)), regions: []*Region{add}, err: "replica_groups dense<0> : tensor<1x2xi64> must hold unique non-negative ids"},
		{name: "ok", op: "stablehlo.reduce_scatter", operands: "4x2xf32", attrs: nattrs("scatter_dimension", I64Attr(0), "replica_groups", groups), regions: []*Region{add}, want: "tensor<2x2xf32>"},
		{name: "divisible", op: "stablehlo.reduce_scatter", operands: "3x2xf32", attrs: nattrs("scatter_dimension", I64Attr(0), "replica_groups", groups), regions: []*Region{add}, err: "dimension 0 of size 3 is not divisible by the replica group size 2"},
		{name: "ok", op: "stablehlo.all_to_all", operands: "2x4xi64", attrs: nattrs("split_dimension", I64Attr(1), "concat_dimension", I64Attr(0), "split_count", I64Attr(2), "replica_groups", groups), want: "tensor<4x2xi64>"},
		{name: "count", op: "stablehlo.all_to_all", operands: "2x4xi64", attrs: nattrs("split_dimension", I64Attr(1), "concat_dimension", I64Attr(0), "split_count", I64Attr(4), "replica_groups", groups), err: "replica groups have size 2, split_count is 4"},
		{name: "ok", op: "stablehlo.collective_permute", operands: "2xf32", attrs: nattrs("source_target_pairs", PairsAttr([][2]int64{{0, 1}, {1, 0}})), want: "tensor<2xf32>"},
		{name: "dup", op: "stablehlo.collective_permute", operands: "2xf32", attrs: nattrs("source_target_pairs", PairsAttr([][2]int64{{0, 1}, {0, 2}})), err: "must have unique non-negative sources and targets"},
		{name: "global ids", op: "stablehlo.all_gather", operands: "2x2xi64", attrs: nattrs("all_gather_dim", I64Attr(1), "replica_groups", groups, "use_global_device_ids", UnitAttr{}), err: "use_global_device_ids needs a channel_handle with a positive handle"},
		{name: "ok", op: "stablehlo.collective_broadcast", operands: "2xf32", attrs: nattrs("replica_groups", groups), want: "tensor<2xf32>"},
	})
}

func TestInferUnknownOp(t *testing.T) {
	if _, err := InferResultTypes("stablehlo.frobnicate", nil, nil, nil); err == nil || err.Error() != "stablehlo.frobnicate: unknown op" {
		t.Errorf("got %v", err)
	}
}

func TestTypesCompatible(t *testing.T) {
	q := &TensorType{DType: I8, Dims: []int64{2}, Quant: &QuantType{Storage: I8, Expressed: F32, Axis: -1, Scales: []float64{0.5}, ZeroPoints: []int64{0}}}
	q2 := &TensorType{DType: I8, Dims: []int64{2}, Quant: &QuantType{Storage: I8, Expressed: F32, Axis: -1, Scales: []float64{0.25}, ZeroPoints: []int64{1}}}
	for _, c := range []struct {
		a, b Type
		want bool
	}{
		{ttype("2x3xf32"), ttype("?x3xf32"), true},
		{ttype("2x3xf32"), ttype("3x3xf32"), false},
		{ttype("2x3xf32"), ttype("2x3xf16"), false},
		{ttype("2xf32"), ttype("2x1xf32"), false},
		{q, q2, true},
		{q, ttype("3xi8"), false},
		{&TokenType{}, &TokenType{}, true},
		{&TokenType{}, ttype("f32"), false},
		{&TupleType{Elems: []Type{ttype("?xf32")}}, &TupleType{Elems: []Type{ttype("2xf32")}}, true},
	} {
		if got := TypesCompatible(c.a, c.b); got != c.want {
			t.Errorf("TypesCompatible(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
