package hlo

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func tf32(dims ...int64) *TensorType { return NewTensorType(F32, dims...) }

// line returns the caller's line, for checking error locations.
func callerLine() int {
	_, _, l, _ := runtime.Caller(1)
	return l
}

func mustBuild(t *testing.T, b *Builder) *Module {
	t.Helper()
	m, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return m
}

func wantType(t *testing.T, v *Value, want string) {
	t.Helper()
	if got := v.Type.String(); got != want {
		t.Errorf("type %s, want %s", got, want)
	}
}

func sumBody(s *Scope, a []*Value) []*Value { return []*Value{s.Add(a[0], a[1])} }

func TestBuilderMLP(t *testing.T) {
	b := NewBuilder("jit_mlp")
	f := b.Func("main")
	x := f.Arg(tf32(2, 3))
	w := f.Arg(tf32(3, 4))
	bias := f.Arg(tf32(4))
	h := f.DotGeneral(x, w, &DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}})
	h = f.Add(h, f.BroadcastInDim(bias, []int64{2, 4}, []int64{1}))
	zero := f.BroadcastInDim(f.ConstantScalar(F32, 0), []int64{2, 4}, nil)
	h = f.Max(h, zero)
	s := f.Reduce([]*Value{h}, []*Value{f.ConstantScalar(F32, 0)}, []int64{1}, sumBody)
	f.Return(h, s[0])
	m := mustBuild(t, b)
	wantType(t, h, "tensor<2x4xf32>")
	wantType(t, s[0], "tensor<2xf32>")
	if got := typeList(m.Func("main").ResultTypes); got != "tensor<2x4xf32>, tensor<2xf32>" {
		t.Errorf("result types %s", got)
	}
	if m.Name != "jit_mlp" || m.Funcs[0].Visibility != "public" {
		t.Errorf("module %q visibility %q", m.Name, m.Funcs[0].Visibility)
	}
}

// buildEveryOp adds (nearly) every builder method to one function.
func buildEveryOp(b *Builder) {
	b.SetAttr("mhlo.num_replicas", I32Attr(1))
	helper := b.Func("helper").Private()
	ha := helper.Arg(tf32(2))
	helper.Return(helper.Mul(ha, ha))

	f := b.Func("main")
	x := f.ArgWithAttrs(tf32(2, 3), NamedAttr{"jax.arg_info", StringAttr("x")})
	i := f.Arg(NewTensorType(I32, 2, 3))
	c := f.Arg(NewTensorType(C64, 4))
	var outs []*Value
	keep := func(vs ...*Value) { outs = append(outs, vs...) }

	for _, op := range []func(*Value) *Value{f.Abs, f.Neg, f.Exp, f.Expm1, f.Log, f.Log1p, f.Sqrt, f.Rsqrt, f.Cbrt,
		f.Tanh, f.Logistic, f.Sin, f.Cos, f.Tan, f.Floor, f.Ceil, f.RoundNearestEven, f.RoundNearestAfz, f.Sign, f.IsFinite} {
		keep(op(x))
	}
	for _, op := range []func(*Value) *Value{f.Not, f.PopCnt, f.Clz, f.Abs, f.Sign, f.Neg} {
		keep(op(i))
	}
	keep(f.Real(c), f.Imag(c), f.Complex(f.Real(c), f.Imag(c)))
	for _, op := range []func(x, y *Value) *Value{f.Add, f.Sub, f.Mul, f.Div, f.Rem, f.Pow, f.Max, f.Min, f.Atan2} {
		keep(op(x, x))
	}
	for _, op := range []func(x, y *Value) *Value{f.And, f.Or, f.Xor, f.ShiftLeft, f.ShiftRightArithmetic, f.ShiftRightLogical, f.Rem} {
		keep(op(i, i))
	}
	p := f.Compare(CmpLT, x, x)
	keep(p, f.CompareWithType(CmpGE, x, x, "TOTALORDER"), f.Compare(CmpEQ, i, i))
	keep(f.Select(p, x, x), f.Clamp(f.ConstantScalar(F32, -1), x, f.ConstantScalar(F32, 1)))
	keep(f.Convert(x, BF16), f.BitcastConvert(x, I32), f.BitcastConvert(x, U8), f.ReducePrecision(x, 5, 10))
	keep(f.Iota(NewTensorType(I32, 4, 5), 1))
	lit := LiteralFromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	keep(f.Constant(lit))
	keep(f.BroadcastInDim(x, []int64{4, 2, 3}, []int64{1, 2}), f.Reshape(x, 3, 2), f.Transpose(x, 1, 0))
	keep(f.Slice(x, []int64{0, 1}, []int64{2, 3}, nil), f.Slice(x, []int64{0, 0}, []int64{2, 3}, []int64{1, 2}))
	zero := f.ConstantScalar(I32, 0)
	keep(f.DynamicSlice(x, []*Value{zero, zero}, []int64{1, 2}))
	keep(f.DynamicUpdateSlice(x, f.Slice(x, []int64{0, 0}, []int64{1, 3}, nil), []*Value{zero, zero}))
	keep(f.Concatenate(0, x, x), f.Pad(x, f.ConstantScalar(F32, 0), []int64{1, 0}, []int64{0, 2}, []int64{1, 1}))
	keep(f.Reverse(x, 0, 1), f.GetDimensionSize(x, 1))

	keep(f.DotGeneral(x, x, &DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{1}},
		DotOptions{Precision: [2]Precision{PrecisionHighest, PrecisionHighest}}))
	keep(f.DotGeneral(f.Convert(x, BF16), f.Convert(x, BF16), &DotDimsAttr{LhsBatchingDims: []int64{0}, RhsBatchingDims: []int64{0},
		LhsContractingDims: []int64{1}, RhsContractingDims: []int64{1}}, DotOptions{ResultType: F32}))
	keep(f.Dot(x, f.Transpose(x, 1, 0)))
	img := f.Arg(tf32(1, 8, 8, 3))
	kern := f.Arg(tf32(3, 3, 3, 4))
	keep(f.Convolution(img, kern), f.Convolution(img, kern, ConvOptions{WindowStrides: []int64{2, 2}, Padding: [][2]int64{{1, 1}, {1, 1}},
		RhsDilation: []int64{1, 1}, Precision: [2]Precision{PrecisionDefault, PrecisionDefault}}))

	idx := f.Constant(LiteralFromSlice([]int32{1, 0, 1}, 3, 1))
	gd := &GatherDimsAttr{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}
	rows := f.Gather(x, idx, gd, []int64{1, 3}, false)
	keep(rows)
	sd := &ScatterDimsAttr{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	keep(f.Scatter([]*Value{x}, idx, []*Value{rows}, sd, sumBody, ScatterOptions{UniqueIndices: false})...)

	keep(f.Reduce([]*Value{x, i}, []*Value{f.ConstantScalar(F32, 0), zero}, []int64{0}, func(s *Scope, a []*Value) []*Value {
		return []*Value{s.Add(a[0], a[2]), s.Max(a[1], a[3])}
	})...)
	keep(f.ReduceWindow([]*Value{img}, []*Value{f.ConstantScalar(F32, 0)}, Window{Dimensions: []int64{1, 2, 2, 1}, Strides: []int64{1, 2, 2, 1}}, sumBody)...)
	keep(f.SelectAndScatter(img, f.Arg(tf32(1, 4, 4, 3)), f.ConstantScalar(F32, 0), Window{Dimensions: []int64{1, 2, 2, 1}, Strides: []int64{1, 2, 2, 1}},
		func(s *Scope, a []*Value) *Value { return s.Compare(CmpGE, a[0], a[1]) },
		func(s *Scope, a []*Value) *Value { return s.Add(a[0], a[1]) }))
	keep(f.Sort([]*Value{x, i}, 1, true, func(s *Scope, a []*Value) *Value { return s.Compare(CmpLT, a[0], a[1]) })...)
	keep(f.Map([]*Value{x, x}, func(s *Scope, a []*Value) *Value { return s.Mul(a[0], a[1]) }))

	loop := f.While([]*Value{zero, x}, func(s *Scope, a []*Value) *Value {
		return s.Compare(CmpLT, a[0], s.ConstantScalar(I32, 10))
	}, func(s *Scope, a []*Value) []*Value {
		// Bodies may read enclosing values (x).
		return []*Value{s.Add(a[0], s.ConstantScalar(I32, 1)), s.Add(a[1], x)}
	})
	keep(loop...)
	pred := f.Reshape(f.Slice(p, []int64{0, 0}, []int64{1, 1}, nil))
	keep(f.If(pred, func(s *Scope) []*Value { return []*Value{x} }, func(s *Scope) []*Value { return []*Value{s.Neg(x)} })...)
	keep(f.Case(zero, func(s *Scope) []*Value { return []*Value{s.ConstantScalar(F32, 1)} },
		func(s *Scope) []*Value { return []*Value{s.ConstantScalar(F32, 2)} })...)

	keep(f.Fft(c, FFT, 4), f.Fft(f.Real(c), RFFT, 4))
	sq := f.Arg(tf32(3, 3))
	keep(f.Cholesky(sq, true), f.TriangularSolve(sq, f.Arg(tf32(3, 5)), TriangularSolveOptions{LeftSide: true, Lower: true}))
	state, bits := f.RngBitGenerator(RngThreeFry, f.Arg(NewTensorType(U64, 2)), NewTensorType(U32, 2, 3))
	keep(state, bits)
	tup := f.Tuple(x, i)
	keep(f.GetTupleElement(tup, 1))
	keep(f.OptimizationBarrier(x, i)...)
	tok := f.AfterAll()
	keep(f.AfterAll(tok, tok))
	keep(f.CustomCall("my_target", []*Value{x}, []Type{tf32(3)}, NamedAttr{"has_side_effect", BoolAttr(true)})...)
	keep(f.Call(helper, f.Slice(x, []int64{0, 0}, []int64{1, 2}, nil).reshapeTo(f, 2))...)
	keep(f.Call("helper", f.Reshape(f.Slice(x, []int64{0, 0}, []int64{1, 2}, nil), 2))...)
	keep(f.ReplicaID(), f.PartitionID())
	o := CollectiveOptions{ReplicaGroups: [][]int64{{0}}}
	keep(f.AllReduce([]*Value{x}, o, func(s *Scope, a []*Value) *Value { return s.Add(a[0], a[1]) })...)
	keep(f.AllGather([]*Value{x}, 1, o)...)
	keep(f.ReduceScatter(x, 0, o, func(s *Scope, a []*Value) *Value { return s.Add(a[0], a[1]) }))
	keep(f.AllToAll([]*Value{x}, 1, 0, 1, o)...)
	keep(f.CollectivePermute(x, [][2]int64{{0, 0}}, CollectiveOptions{ChannelID: 1, ChannelType: 1}))
	keep(f.CollectiveBroadcast([]*Value{x}, o)...)
	keep(f.BatchNormInference(x, f.Arg(tf32(3)), f.Arg(tf32(3)), f.Arg(tf32(3)), f.Arg(tf32(3)), 1e-5, 1))
	keep(f.Op("stablehlo.abs", []*Value{x}, nil)...)
	keep(f.Op("stablehlo.convert", []*Value{x}, nil, NewTensorType(F64, 2, 3))...)
	f.Return(outs...)
}

// reshapeTo is a test helper chaining Reshape.
func (v *Value) reshapeTo(f *FuncBuilder, dims ...int64) *Value { return f.Reshape(v, dims...) }

func TestBuilderEveryOp(t *testing.T) {
	b := NewBuilder("every")
	buildEveryOp(b)
	m := mustBuild(t, b)
	res := m.Func("main").ResultTypes
	if len(res) < 100 {
		t.Errorf("only %d results", len(res))
	}
	for _, want := range []string{"tensor<4x5xi32>", "tensor<1x6x6x4xf32>", "tensor<1x4x4x4xf32>", "tensor<2x3x4xui8>", "tensor<3xcomplex<f32>>", "tensor<2x3xui32>"} {
		found := false
		for _, r := range res {
			found = found || r.String() == want
		}
		if !found {
			t.Errorf("no result of type %s", want)
		}
	}
}

func TestBuilderStickyError(t *testing.T) {
	b := NewBuilder("bad")
	f := b.Func("main")
	x := f.Arg(tf32(2, 3))
	y := f.Arg(tf32(3, 2))
	l := callerLine() + 1
	z := f.Add(x, y)
	if z == nil || z.Type == nil {
		t.Fatal("placeholder is nil")
	}
	// Later calls keep going on placeholders without panicking.
	w := f.Mul(f.Exp(z), f.Reshape(z, 6))
	rs := f.Reduce([]*Value{w}, []*Value{w}, []int64{0}, sumBody)
	ws := f.While([]*Value{w, w}, func(s *Scope, a []*Value) *Value { return a[0] }, func(s *Scope, a []*Value) []*Value { return a })
	ifs := f.If(w, func(s *Scope) []*Value { return []*Value{w, w, w} }, func(s *Scope) []*Value { return []*Value{w, w, w} })
	if len(rs) != 1 || len(ws) != 2 || len(ifs) != 3 || rs[0] == nil || ws[1] == nil || ifs[2] == nil {
		t.Fatalf("placeholders: %d %d %d", len(rs), len(ws), len(ifs))
	}
	f.Return(w)
	_, err := b.Build()
	want := fmt.Sprintf("hlo/builder_test.go:%d: stablehlo.add: operand types tensor<2x3xf32> and tensor<3x2xf32> differ", l)
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
	var be *BuildError
	if !errors.As(err, &be) || be.Op != "stablehlo.add" || be.Loc.Line != l {
		t.Errorf("BuildError %+v", be)
	}
	if b.Err() != err {
		t.Errorf("Err() differs from Build's error")
	}
}

func TestBuilderErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *Builder)
		want  string
	}{
		{"region value outside", func(b *Builder) {
			f := b.Func("main")
			x := f.Arg(tf32(2))
			var inner *Value
			f.Reduce([]*Value{x}, []*Value{f.ConstantScalar(F32, 0)}, []int64{0}, func(s *Scope, a []*Value) []*Value {
				inner = s.Add(a[0], a[1])
				return []*Value{inner}
			})
			f.Return(f.Add(inner, inner))
		}, "stablehlo.add: operand #0 of type tensor<f32> is defined in a region that does not enclose this op"},
		{"other function", func(b *Builder) {
			g := b.Func("g")
			y := g.Arg(tf32(2))
			g.Return(y)
			f := b.Func("main")
			f.Return(f.Neg(y))
		}, "stablehlo.negate: operand #0 of type tensor<2xf32> belongs to function @g, not @main"},
		{"nil operand", func(b *Builder) {
			f := b.Func("main")
			f.Return(f.Neg(nil))
		}, "stablehlo.negate: operand #0 is nil"},
		{"foreign value", func(b *Builder) {
			f := b.Func("main")
			f.Return(f.Neg(&Value{Type: tf32(2)}))
		}, "stablehlo.negate: operand #0 of type tensor<2xf32> was not made by this builder"},
		{"after return", func(b *Builder) {
			f := b.Func("main")
			x := f.Arg(tf32(2))
			f.Return(x)
			f.Neg(x)
		}, "stablehlo.negate: op added to @main after Return"},
		{"no return", func(b *Builder) {
			b.Func("main")
		}, "function @main has no Return"},
		{"callee without return", func(b *Builder) {
			g := b.Func("g")
			f := b.Func("main")
			f.Return(f.Call(g)...)
		}, "func.call: callee @g has no Return yet"},
		{"call args", func(b *Builder) {
			g := b.Func("g")
			g.Return(g.Arg(tf32(2)))
			f := b.Func("main")
			f.Return(f.Call("g", f.Arg(tf32(3)))...)
		}, "func.call: argument types (tensor<3xf32>) do not match @g's (tensor<2xf32>)"},
		{"unknown callee", func(b *Builder) {
			f := b.Func("main")
			f.Return(f.Call("nope")...)
		}, "func.call: no function @nope"},
		{"duplicate func", func(b *Builder) {
			b.Func("main")
			b.Func("main")
		}, "function @main is defined twice"},
		{"reshape count", func(b *Builder) {
			f := b.Func("main")
			f.Return(f.Reshape(f.Arg(tf32(2, 3)), 5))
		}, "stablehlo.reshape: operand tensor<2x3xf32> has 6 elements, result tensor<5xf32> has 5"},
		{"reduce body", func(b *Builder) {
			f := b.Func("main")
			x := f.Arg(tf32(4))
			f.Return(f.Reduce([]*Value{x}, []*Value{f.ConstantScalar(F32, 0)}, []int64{0}, func(s *Scope, a []*Value) []*Value {
				return []*Value{s.Convert(a[0], F64)}
			})...)
		}, "stablehlo.reduce: body region returns tensor<f64> as result #0, want tensor<f32>"},
		{"escape hatch types", func(b *Builder) {
			f := b.Func("main")
			f.Return(f.Op("stablehlo.abs", []*Value{f.Arg(tf32(2))}, nil, tf32(3))...)
		}, "stablehlo.abs: result types (tensor<3xf32>) differ from inferred (tensor<2xf32>)"},
		{"nil result type", func(b *Builder) {
			f := b.Func("main")
			f.Return(f.UniformQuantize(f.Arg(tf32(2)), nil))
		}, "stablehlo.uniform_quantize: result type #0 is nil"},
	}
	for _, c := range cases {
		b := NewBuilder("m")
		c.build(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestBuilderOtherDialectOp(t *testing.T) {
	b := NewBuilder("")
	f := b.Func("main")
	x := f.Arg(tf32(2))
	y := f.Op("chlo.erf", []*Value{x}, nil, tf32(2))
	f.Op("check.expect_close", []*Value{y[0], x}, []NamedAttr{{"max_ulp_difference", I64Attr(3)}})
	f.Return()
	mustBuild(t, b)
}

func TestBuilderLocations(t *testing.T) {
	b := NewBuilder("m")
	f := b.Func("main")
	x := f.Arg(tf32(2))
	l := callerLine() + 1
	y := f.Neg(x)
	f.Return(y)
	mustBuild(t, b)
	if loc := y.Def.Loc; loc.File != "hlo/builder_test.go" || loc.Line != l {
		t.Errorf("loc %+v, want hlo/builder_test.go:%d", loc, l)
	}
	b2 := NewBuilder("m")
	b2.SetLocations(false)
	f2 := b2.Func("main")
	z := f2.Neg(f2.Arg(tf32(2)))
	f2.Return(z)
	mustBuild(t, b2)
	if z.Def.Loc != (Loc{}) {
		t.Errorf("loc %+v recorded with locations off", z.Def.Loc)
	}
}

// TestBuilderSplat: Splat's constants print as the parser reads them (a
// compact splat over several elements, the element with the result's dims
// over one, the rank-0 literal over none), parse back to the same module
// and share the element's data; a literal of other than one element is
// an error naming the op.
func TestBuilderSplat(t *testing.T) {
	b := NewBuilder("splat")
	f := b.Func("main")
	elem := ScalarLiteral(F32, 1.5)
	dims := [][]int64{{2, 3}, {1, 1}, {}, {2, 1, 1, 2, 2}}
	var outs []*Value
	for _, d := range dims {
		outs = append(outs, f.Splat(elem, d))
	}
	f.Return(outs...)
	m := mustBuild(t, b)
	text := m.String()
	for _, want := range []string{
		"stablehlo.constant dense<1.500000e+00> : tensor<2x3xf32>",
		"stablehlo.constant dense<1.500000e+00> : tensor<1x1xf32>",
		"stablehlo.constant dense<1.500000e+00> : tensor<f32>",
		"stablehlo.constant dense<1.500000e+00> : tensor<2x1x1x2x2xf32>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("module lacks %q:\n%s", want, text)
		}
	}
	back, err := ParseModule("splat.mlir", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != text {
		t.Errorf("parsed back:\n%s\nbuilt:\n%s", back, text)
	}
	for i, v := range outs {
		a := v.Def.Attr("value").(*DenseElementsAttr)
		l, err := a.Literal()
		if err != nil {
			t.Fatal(err)
		}
		if l.NumElements() != int(NumElements(dims[i])) || l.Float(l.NumElements()-1) != 1.5 {
			t.Errorf("splat %v: literal %v", dims[i], l)
		}
		if a.Splat != nil && &a.Splat.Data[0] != &elem.Data[0] || a.Value != nil && &a.Value.Data[0] != &elem.Data[0] {
			t.Errorf("splat %v copied its element", dims[i])
		}
	}

	b = NewBuilder("bad")
	f = b.Func("main")
	f.Return(f.Splat(NewLiteral(F32, 2), []int64{2}))
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "stablehlo.constant: splat element is not a rank-0 literal") {
		t.Errorf("error %v, want the splat element's", err)
	}
}

// TestBuilderSplatTypes: splats of every kind of element type print and
// parse back to the same module, over several elements, one and none.
func TestBuilderSplatTypes(t *testing.T) {
	for _, dt := range []DType{F32, BF16, F16, F64, I32, I8, U16, Bool, C64} {
		b := NewBuilder("splat")
		f := b.Func("main")
		elem := NewLiteral(dt)
		for i := range elem.Data {
			elem.Data[i] = byte(1 + i%3) // a value of every type (bool: true)
		}
		if dt == Bool {
			elem.Data[0] = 1
		}
		f.Return(f.Splat(elem, []int64{3, 2}), f.Splat(elem, []int64{1}), f.Splat(elem, []int64{0, 3}), f.Splat(elem, []int64{2, 0, 1, 1, 3}))
		m, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		text := m.String()
		back, err := ParseModule("splat.mlir", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v\n%s", dt, err, text)
		}
		if back.String() != text {
			t.Errorf("%s: parsed back:\n%s\nbuilt:\n%s", dt, back, text)
		}
	}
}
