package hlo

import (
	"math"
	"strings"
	"testing"
)

// constValue parses `stablehlo.constant <lit>` and returns its literal.
func constValue(t *testing.T, lit string) *Literal {
	t.Helper()
	src := "func.func @f() {\n  %0 = stablehlo.constant " + lit + "\n  func.return\n}"
	m, err := ParseModule("lit.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", lit, err)
	}
	op := m.Funcs[0].Body.Blocks[0].Ops[0]
	d, ok := op.Attr("value").(*DenseElementsAttr)
	if !ok {
		t.Fatalf("%s: value is %T", lit, op.Attr("value"))
	}
	if !TypesEqual(op.Results[0].Type, d.Type) {
		t.Fatalf("%s: result type %s, value type %s", lit, op.Results[0].Type, d.Type)
	}
	l, err := d.Literal()
	if err != nil {
		t.Fatalf("%s: %v", lit, err)
	}
	return l
}

func TestDenseLiterals(t *testing.T) {
	l := constValue(t, "dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>")
	if got := l.I32(); got[0] != 1 || got[1] != -2 || got[3] != 4 {
		t.Errorf("nested ints: %v", got)
	}
	l = constValue(t, "dense<2.5> : tensor<2x3xf32>")
	for i, v := range l.F32() {
		if v != 2.5 {
			t.Errorf("splat element %d = %v", i, v)
		}
	}
	l = constValue(t, "dense<[true, false, 1, 0]> : tensor<4xi1>")
	if got := l.Bools(); !got[0] || got[1] || !got[2] || got[3] {
		t.Errorf("bools: %v", got)
	}
	l = constValue(t, "dense<[(1.5, -2.0), (0x7FC00000, 3)]> : tensor<2xcomplex<f32>>")
	if c := l.C64(); c[0] != complex(1.5, -2) || !math.IsNaN(float64(real(c[1]))) || imag(c[1]) != 3 {
		t.Errorf("complex: %v", c)
	}
	l = constValue(t, "dense<[0x7FC00000, 0xFF800000, 1]> : tensor<3xf32>")
	if f := l.F32(); !math.IsNaN(float64(f[0])) || !math.IsInf(float64(f[1]), -1) || f[2] != 1 {
		t.Errorf("hex float bit patterns: %v", f)
	}
	l = constValue(t, "dense<[0.1, 448.0, 1000.0]> : tensor<3xf8E4M3FN>")
	if got := []float64{l.Float(0), l.Float(1), l.Float(2)}; got[0] != 0.1015625 || got[1] != 448 || !math.IsNaN(got[2]) && got[2] != 448 {
		t.Errorf("f8E4M3FN rounding: %v", got)
	}
	l = constValue(t, "dense<18446744073709551615> : tensor<ui64>")
	if l.Uint(0) != math.MaxUint64 {
		t.Errorf("ui64 max: %d", l.Uint(0))
	}
	l = constValue(t, "dense<> : tensor<2x0xf32>")
	if l.NumElements() != 0 || len(l.Dims) != 2 {
		t.Errorf("empty: %v", l.Dims)
	}
	l = constValue(t, "dense<[-8, 7, -1]> : tensor<3xi4>")
	if l.Int(0) != -8 || l.Int(2) != -1 {
		t.Errorf("i4: %d %d", l.Int(0), l.Int(2))
	}
}

// TestDenseHexLayout checks MLIR's raw hex layout: little endian, one byte
// per i1 and sub-byte element (low bits, zero high bits), splat when one
// element is given.
func TestDenseHexLayout(t *testing.T) {
	l := constValue(t, `dense<"0x0000803F00000040"> : tensor<2xf32>`)
	if f := l.F32(); f[0] != 1 || f[1] != 2 {
		t.Errorf("f32 hex: %v", f)
	}
	l = constValue(t, `dense<"0x0000803F"> : tensor<3xf32>`)
	if f := l.F32(); f[0] != 1 || f[2] != 1 {
		t.Errorf("hex splat: %v", f)
	}
	l = constValue(t, `dense<"0x000101"> : tensor<3xi1>`)
	if b := l.Bools(); b[0] || !b[1] || !b[2] {
		t.Errorf("i1 hex: %v", b)
	}
	l = constValue(t, `dense<"0x0F0807"> : tensor<3xi4>`)
	if l.Int(0) != -1 || l.Int(1) != -8 || l.Int(2) != 7 {
		t.Errorf("i4 hex: %d %d %d", l.Int(0), l.Int(1), l.Int(2))
	}
	if got := DenseHex(l); got != `"0x0F0807"` {
		t.Errorf("i4 DenseHex = %s", got)
	}
	l = constValue(t, `dense<"0x803F0040"> : tensor<2xbf16>`)
	if l.Float(0) != 1 || l.Float(1) != 2 {
		t.Errorf("bf16 hex: %v %v", l.Float(0), l.Float(1))
	}
	l = constValue(t, `dense<"0x0000803F000000C0"> : tensor<1xcomplex<f32>>`)
	if c := l.C64()[0]; c != complex(1, -2) {
		t.Errorf("complex hex: %v", c)
	}
	// More than 100 elements print in hex, and read back the same.
	big := NewLiteral(I4, 101)
	for i := 0; i < 101; i++ {
		big.SetInt(i, int64(i%16-8))
	}
	s := DenseString(big)
	if !strings.HasPrefix(s, `dense<"0x08090A`) {
		t.Errorf("i4 hex print: %.40s", s)
	}
	back := constValue(t, s+" : tensor<101xi4>")
	if !back.Equal(big) {
		t.Error("i4 hex does not round-trip")
	}
}

func TestQuantTypes(t *testing.T) {
	src := `func.func @q(%a: tensor<2x!quant.uniform<i8<-127:127>:f32:1, {0.5:-3,2.0}>>, %b: tensor<!quant.uniform<u8:f16, 0.0039215482917486456:-128>>) {
  func.return
}`
	m, err := ParseModule("q.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a := m.Funcs[0].Args[0].TensorType()
	q := a.Quant
	if q == nil || a.DType != I8 || q.Axis != 1 || q.Expressed != F32 || len(q.Scales) != 2 || q.ZeroPoints[0] != -3 || *q.StorageMin != -127 {
		t.Fatalf("per-axis quant parsed as %+v", q)
	}
	if got := a.String(); got != "tensor<2x!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01:-3,2.000000e+00}>>" {
		t.Errorf("printed %s", got)
	}
	b := m.Funcs[0].Args[1].TensorType()
	if b.DType != U8 || b.Quant.Expressed != F16 || b.Quant.StorageMin != nil {
		t.Errorf("per-tensor quant parsed as %+v", b.Quant)
	}
	if got := b.String(); got != "tensor<!quant.uniform<u8:f16, 0.0039215482917486456:-128>>" {
		t.Errorf("printed %s", got)
	}
}

func TestAttrString(t *testing.T) {
	cases := []struct {
		a    Attr
		want string
	}{
		{IntAttr{Value: 5}, "5 : i64"},
		{I32Attr(7), "7 : i32"},
		{IntAttr{Value: -1, Type: NewTensorType(U8)}, "255 : ui8"},
		{FloatAttr{Value: 0.1}, "1.000000e-01 : f64"},
		{FloatAttr{Value: 1e-3, Type: NewTensorType(F32)}, "1.000000e-03 : f32"},
		{ArrayAttr{IntAttr{Value: 1}, I32Attr(2), FloatAttr{Value: 2}}, "[1, 2 : i32, 2.000000e+00]"},
		{DictAttr{{"b", UnitAttr{}}, {"a", StringAttr("x\"y\n")}}, `{a = "x\22y\0A", b}`},
		{&DenseArrayAttr{DType: I64}, "array<i64>"},
		{&DenseArrayAttr{DType: Bool, Ints: []int64{1, 0}}, "array<i1: true, false>"},
		{&DenseArrayAttr{DType: F32, Floats: []float64{0.5}}, "array<f32: 5.000000e-01>"},
		{SymbolRefAttr{Name: "a-b", Nested: []string{"c"}}, `@"a-b"::@c`},
		{EnumAttr{"stablehlo", "comparison_direction", "GT"}, "#stablehlo<comparison_direction GT>"},
		{&GatherDimsAttr{OffsetDims: []int64{1}, StartIndexMap: []int64{0}}, "#stablehlo.gather<offset_dims = [1], start_index_map = [0]>"},
		{&BoundsAttr{Bounds: []int64{3, DynamicDim}}, "#stablehlo.bounds<3, ?>"},
		{TypeAttr{NewTensorType(F32, 2)}, "tensor<2xf32>"},
	}
	for _, c := range cases {
		if got := AttrString(c.a); got != c.want {
			t.Errorf("AttrString(%#v) = %s, want %s", c.a, got, c.want)
		}
	}
}

// TestPrettyAttrNames checks that pretty forms fill the attributes the
// generic form names, with the same values.
func TestPrettyAttrNames(t *testing.T) {
	pretty := `func.func @f(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>, %k: tensor<3x3x1x1xf32>, %img: tensor<1x4x4x1xf32>) {
  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
  %1 = stablehlo.slice %a [0:4:2, 1:6] : (tensor<4x6xf32>) -> tensor<2x5xf32>
  %2 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 0], [0, 1]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  %3 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1], precision = [HIGH, DEFAULT] : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x4xf32>
  %4 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %5 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4x6xf32>
  func.return
}`
	generic := `func.func @f(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>, %k: tensor<3x3x1x1xf32>, %img: tensor<1x4x4x1xf32>) {
  %0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
  %1 = "stablehlo.slice"(%a) <{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 4, 6>, strides = array<i64: 2, 1>}> : (tensor<4x6xf32>) -> tensor<2x5xf32>
  %2 = "stablehlo.convolution"(%img, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 2>, window_strides = array<i64: 2, 1>} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  %3 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x4xf32>
  %4 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xi32>
  %5 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return
}`
	mp, err := ParseModule("p.mlir", []byte(pretty))
	if err != nil {
		t.Fatal(err)
	}
	mg, err := ParseModule("g.mlir", []byte(generic))
	if err != nil {
		t.Fatal(err)
	}
	po, go_ := mp.Funcs[0].Body.Blocks[0].Ops, mg.Funcs[0].Body.Blocks[0].Ops
	for i := range po {
		pa, ga := sortedAttrs(po[i].Attrs), sortedAttrs(go_[i].Attrs)
		if len(pa) != len(ga) {
			t.Errorf("%s: pretty attrs %v, generic attrs %v", po[i].Name, pa, ga)
			continue
		}
		for k := range pa {
			if pa[k].Name != ga[k].Name || AttrString(pa[k].Value) != AttrString(ga[k].Value) {
				t.Errorf("%s: pretty %s = %s, generic %s = %s", po[i].Name, pa[k].Name, AttrString(pa[k].Value), ga[k].Name, AttrString(ga[k].Value))
			}
		}
	}
	if mp.String() != mg.String() {
		t.Errorf("pretty and generic sources print differently:\n%s", firstDiff(mp.String(), mg.String()))
	}
	cmp := po[0]
	if e, ok := cmp.Attr("comparison_direction").(EnumAttr); !ok || e != (EnumAttr{"stablehlo", "comparison_direction", "LT"}) {
		t.Errorf("comparison_direction = %#v", cmp.Attr("comparison_direction"))
	}
}
