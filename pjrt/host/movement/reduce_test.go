package movement

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func reduceOpOf(dt hlo.DType, in []int64, dims []int64, out []int64, body *hlo.Region) *hlo.Op {
	op := mkOp("stablehlo.reduce", []hlo.Type{tt(dt, in...), tt(dt)}, []hlo.Type{tt(dt, out...)}, attr("dimensions", ints(dims...)))
	op.Regions = []*hlo.Region{body}
	return op
}

// naiveReduce folds in lexicographic order of the reduced index.
func naiveReduce(in, init *hlo.Literal, dims []int64, f func(a, b []byte)) *hlo.Literal {
	var out []int64
	for d, n := range in.Dims {
		if !slices.Contains(dims, int64(d)) {
			out = append(out, n)
		}
	}
	res := hlo.NewLiteral(in.DType, out...)
	for i := 0; i < res.NumElements(); i++ {
		setElem(res, i, init.Data)
	}
	for i := 0; i < in.NumElements(); i++ {
		ii := unravel(i, in.Dims)
		var oi []int64
		for d := range ii {
			if !slices.Contains(dims, int64(d)) {
				oi = append(oi, ii[d])
			}
		}
		f(elem(res, ravel(oi, out)), elem(in, i))
	}
	return res
}

func opF(name string, dt hlo.DType) func(a, b []byte) {
	return func(a, b []byte) {
		la, lb := hlo.Literal{DType: dt, Data: a}, hlo.Literal{DType: dt, Data: b}
		r, _ := evalScalar(hlo.NewOp(name, nil, []hlo.Type{tt(dt)}), []*hlo.Literal{&la, &lb})
		copy(a, r.Data)
	}
}

func TestReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	shapes := []struct{ in, dims []int64 }{
		{[]int64{1, 6}, []int64{1}},
		{[]int64{4, 5, 6}, []int64{1}},
		{[]int64{4, 5, 6}, []int64{0, 2}},
		{[]int64{4, 5, 6}, []int64{2}},
		{[]int64{4, 5, 6}, []int64{0}},
		{[]int64{40, 33}, []int64{0, 1}},
		{[]int64{3, 0, 2}, []int64{1}},
		{[]int64{2, 1, 3}, []int64{1}},
		{[]int64{300, 17}, []int64{0}},
		{[]int64{17, 300}, []int64{1}},
		{[]int64{}, []int64{}},
	}
	ops := []string{"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or", "stablehlo.xor"}
	for _, dt := range []hlo.DType{hlo.F32, hlo.F64, hlo.I32, hlo.U8, hlo.I4, hlo.BF16, hlo.F16, hlo.I64, hlo.Bool} {
		for _, name := range ops {
			if (dt.IsFloat()) && (name == "stablehlo.and" || name == "stablehlo.or" || name == "stablehlo.xor") {
				continue
			}
			for _, s := range shapes {
				in := randLit(r, dt, s.in...)
				if name == "stablehlo.multiply" && dt.IsFloat() {
					for i := 0; i < in.NumElements(); i++ {
						in.SetFloat(i, float64(r.IntN(3)-1)*0.5+1) // keep products exact
					}
				}
				init := randLit(r, dt)
				want := naiveReduce(in, init, s.dims, opF(name, dt))
				for _, body := range []*hlo.Region{binRegion(name, dt), slowRegion(name, dt)} {
					got := run(t, reduceOpOf(dt, s.in, s.dims, want.Dims, body), in, init)[0]
					if !got.Equal(want) {
						t.Fatalf("reduce %s %s %v over %v:\n got  %v\n want %v", name, dt, s.in, s.dims, got, want)
					}
				}
			}
		}
	}
}

func TestReduceLargeFloat(t *testing.T) {
	// Large enough for the parallel and split paths; float sums compared
	// with a tolerance since the tree differs from a left fold.
	r := rand.New(rand.NewPCG(43, 44))
	for _, s := range []struct{ in, dims []int64 }{
		{[]int64{1 << 18}, []int64{0}},
		{[]int64{512, 512}, []int64{0}},
		{[]int64{512, 512}, []int64{1}},
		{[]int64{64, 64, 64}, []int64{0, 2}},
	} {
		in := hlo.NewLiteral(hlo.F32, s.in...)
		for i := range in.F32() {
			in.F32()[i] = r.Float32()
		}
		init := hlo.ScalarLiteral(hlo.F32, 0)
		want := naiveReduce(in, init, s.dims, opF("stablehlo.add", hlo.F32))
		got := run(t, reduceOpOf(hlo.F32, s.in, s.dims, want.Dims, binRegion("stablehlo.add", hlo.F32)), in, init)[0]
		if !hlo.AllClose(got, want, 1e-2, 1e-5) {
			t.Fatalf("large reduce %v over %v differs", s.in, s.dims)
		}
		mx := run(t, reduceOpOf(hlo.F32, s.in, s.dims, want.Dims, binRegion("stablehlo.maximum", hlo.F32)), in, hlo.ScalarLiteral(hlo.F32, math.Inf(-1)))[0]
		sameLit(t, "large max", mx, naiveReduce(in, hlo.ScalarLiteral(hlo.F32, math.Inf(-1)), s.dims, opF("stablehlo.maximum", hlo.F32)))
	}
}

func TestReduceArgmax(t *testing.T) {
	// Variadic reduce (value, index) with a body of several ops: ties go to
	// the smaller index.
	vals := hlo.LiteralFromSlice([]float32{3, 7, 7, 1, 5, 2, 9, 9, 0, 4, 4, 4}, 3, 4)
	idx := iotaLit(hlo.I32, 3, 4)
	for i := range idx.I32() {
		idx.I32()[i] %= 4
	}
	b := newBody(hlo.F32, hlo.I32, hlo.F32, hlo.I32)
	gt := b.cmp("GT", b.arg(2), b.arg(0))
	eq := b.cmp("EQ", b.arg(2), b.arg(0))
	lt := b.cmp("LT", b.arg(3), b.arg(1))
	take := b.op("stablehlo.or", hlo.Bool, []*hlo.Value{gt, b.op("stablehlo.and", hlo.Bool, []*hlo.Value{eq, lt})})
	v := b.op("stablehlo.select", hlo.F32, []*hlo.Value{take, b.arg(2), b.arg(0)})
	i := b.op("stablehlo.select", hlo.I32, []*hlo.Value{take, b.arg(3), b.arg(1)})
	op := mkOp("stablehlo.reduce", []hlo.Type{vals.Type(), idx.Type(), tt(hlo.F32), tt(hlo.I32)}, []hlo.Type{tt(hlo.F32, 3), tt(hlo.I32, 3)}, attr("dimensions", ints(1)))
	op.Regions = []*hlo.Region{b.ret(v, i)}
	res := run(t, op, vals, idx, hlo.ScalarLiteral(hlo.F32, math.Inf(-1)), hlo.ScalarLiteral(hlo.I32, 0))
	sameLit(t, "argmax values", res[0], hlo.LiteralFromSlice([]float32{7, 9, 4}))
	sameLit(t, "argmax indices", res[1], hlo.LiteralFromSlice([]int32{1, 2, 1}))
}

// naiveReduceWindow pads with the init value (edges and base dilation) and
// folds each window, as the spec defines it.
func naiveReduceWindow(in, init *hlo.Literal, a *windowAttrs, f func(a, b []byte)) *hlo.Literal {
	r := len(in.Dims)
	padded := make([]int64, r)
	for d := 0; d < r; d++ {
		dil := int64(0)
		if in.Dims[d] > 0 {
			dil = (in.Dims[d]-1)*a.baseDil[d] + 1
		}
		padded[d] = dil + a.lo[d] + a.hi[d]
	}
	out := make([]int64, r)
	for d := 0; d < r; d++ {
		span := (a.win[d]-1)*a.winDil[d] + 1
		if padded[d] >= span {
			out[d] = (padded[d]-span)/a.strides[d] + 1
		}
	}
	res := hlo.NewLiteral(in.DType, out...)
	for o := 0; o < res.NumElements(); o++ {
		oi := unravel(o, out)
		acc := append([]byte(nil), init.Data...)
		for w := 0; w < int(hlo.NumElements(a.win)); w++ {
			wi := unravel(w, a.win)
			ii := make([]int64, r)
			ok := true
			for d := 0; d < r; d++ {
				q := oi[d]*a.strides[d] + wi[d]*a.winDil[d] - a.lo[d]
				if q < 0 || q%a.baseDil[d] != 0 {
					ok = false
				}
				ii[d] = q / a.baseDil[d]
			}
			if ok && inBounds(ii, in.Dims) {
				f(acc, elem(in, ravel(ii, in.Dims)))
			} else {
				f(acc, init.Data)
			}
		}
		setElem(res, o, acc)
	}
	return res
}

func TestReduceWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	cases := []*windowAttrs{
		{win: []int64{2, 1}, strides: []int64{4, 1}, baseDil: []int64{2, 1}, winDil: []int64{3, 1}, lo: []int64{2, 0}, hi: []int64{1, 0}},
		{win: []int64{3, 3}, strides: []int64{1, 1}, baseDil: []int64{1, 1}, winDil: []int64{1, 1}, lo: []int64{1, 1}, hi: []int64{1, 1}},
		{win: []int64{2, 2}, strides: []int64{2, 2}, baseDil: []int64{1, 1}, winDil: []int64{1, 1}, lo: []int64{0, 0}, hi: []int64{0, 0}},
		{win: []int64{4, 1}, strides: []int64{1, 1}, baseDil: []int64{1, 1}, winDil: []int64{1, 1}, lo: []int64{3, 0}, hi: []int64{0, 0}},
		{win: []int64{1, 2}, strides: []int64{1, 3}, baseDil: []int64{1, 2}, winDil: []int64{1, 2}, lo: []int64{-1, 0}, hi: []int64{0, 2}},
	}
	for _, dt := range []hlo.DType{hlo.I64, hlo.F32, hlo.BF16} {
		for _, a := range cases {
			in := randLit(r, dt, 4, 5)
			init := randLit(r, dt)
			for _, name := range []string{"stablehlo.add", "stablehlo.maximum"} {
				want := naiveReduceWindow(in, init, a, opF(name, dt))
				for _, body := range []*hlo.Region{binRegion(name, dt), slowRegion(name, dt)} {
					op := mkOp("stablehlo.reduce_window", []hlo.Type{in.Type(), init.Type()}, []hlo.Type{want.Type()},
						attr("window_dimensions", ints(a.win...)), attr("window_strides", ints(a.strides...)),
						attr("base_dilations", ints(a.baseDil...)), attr("window_dilations", ints(a.winDil...)),
						attr("padding", &hlo.DenseElementsAttr{Type: tt(hlo.I64, 2, 2), Value: hlo.LiteralFromSlice([]int64{a.lo[0], a.hi[0], a.lo[1], a.hi[1]}, 2, 2)}))
					op.Regions = []*hlo.Region{body}
					got := run(t, op, in, init)[0]
					sameLit(t, "reduce_window "+name, got, want)
				}
			}
		}
	}
	// The spec's example: [[1,2],[3,4],[5,6]], window 2x1, strides 4x1,
	// base dilation 2x1, window dilation 3x1, padding [[2,1],[0,0]] -> [[0,0],[3,4]].
	in := hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 5, 6}, 3, 2)
	got := naiveReduceWindow(in, hlo.ScalarLiteral(hlo.I64, 0), cases[0], opF("stablehlo.add", hlo.I64))
	sameLit(t, "spec example", got, hlo.LiteralFromSlice([]int64{0, 0, 3, 4}, 2, 2))
	op := mkOp("stablehlo.reduce_window", []hlo.Type{in.Type(), tt(hlo.I64)}, []hlo.Type{got.Type()},
		attr("window_dimensions", ints(2, 1)), attr("window_strides", ints(4, 1)), attr("base_dilations", ints(2, 1)), attr("window_dilations", ints(3, 1)),
		attr("padding", &hlo.DenseElementsAttr{Type: tt(hlo.I64, 2, 2), Value: hlo.LiteralFromSlice([]int64{2, 1, 0, 0}, 2, 2)}))
	op.Regions = []*hlo.Region{binRegion("stablehlo.add", hlo.I64)}
	sameLit(t, "spec example kernel", run(t, op, in, hlo.ScalarLiteral(hlo.I64, 0))[0], got)
}

func TestSelectAndScatter(t *testing.T) {
	operand := hlo.LiteralFromSlice([]int64{1, 5, 2, 5, 3, 6, 4, 4}, 4, 2)
	source := hlo.LiteralFromSlice([]int64{5, 6, 7, 8}, 2, 2)
	for _, slow := range []bool{false, true} {
		sb := newBody(hlo.I64, hlo.I64)
		var sel *hlo.Region
		if slow {
			// select(a, b) = !(b > a) spelled differently: not the fast form.
			c := sb.cmp("LT", sb.arg(1), sb.arg(0))
			c2 := sb.cmp("EQ", sb.arg(1), sb.arg(0))
			sel = sb.ret(sb.op("stablehlo.or", hlo.Bool, []*hlo.Value{c, c2}))
		} else {
			sel = sb.ret(sb.cmp("GE", sb.arg(0), sb.arg(1)))
		}
		sca := binRegion("stablehlo.add", hlo.I64)
		if slow {
			sca = slowRegion("stablehlo.add", hlo.I64)
		}
		op := mkOp("stablehlo.select_and_scatter", []hlo.Type{operand.Type(), source.Type(), tt(hlo.I64)}, []hlo.Type{operand.Type()},
			attr("window_dimensions", ints(3, 1)), attr("window_strides", ints(2, 1)),
			attr("padding", &hlo.DenseElementsAttr{Type: tt(hlo.I64, 2, 2), Value: hlo.LiteralFromSlice([]int64{0, 1, 0, 0}, 2, 2)}))
		op.Regions = []*hlo.Region{sel, sca}
		got := run(t, op, operand, source, hlo.ScalarLiteral(hlo.I64, 0))[0]
		sameLit(t, "select_and_scatter", got, hlo.LiteralFromSlice([]int64{0, 0, 0, 0, 5, 14, 7, 0}, 4, 2))
	}
}

func TestSort(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, dt := range []hlo.DType{hlo.F32, hlo.I32, hlo.U8, hlo.F64, hlo.BF16} {
		for _, dims := range [][]int64{{17}, {5, 40}, {40, 5}, {3, 4, 5}, {0, 3}} {
			for dim := -1; dim < len(dims); dim++ {
				if dim == -1 && len(dims) == 1 {
					continue
				}
				keys := randLit(r, dt, dims...)
				vals := iotaLit(hlo.I32, dims...)
				for _, dir := range []string{"LT", "GT"} {
					for _, slow := range []bool{false, true} {
						b := newBody(dt, dt, hlo.I32, hlo.I32)
						var c *hlo.Value
						if slow {
							// The same order through a detour: x < y  <=>  !(x >= y) for these non-NaN keys.
							inv := map[string]string{"LT": "GE", "GT": "LE"}[dir]
							c = b.op("stablehlo.xor", hlo.Bool, []*hlo.Value{b.cmp(inv, b.arg(0), b.arg(1)), b.op("stablehlo.constant", hlo.Bool, nil,
								attr("value", &hlo.DenseElementsAttr{Type: tt(hlo.Bool), Value: hlo.LiteralFromSlice([]bool{true}, []int64{}...)}))})
						} else {
							c = b.cmp(dir, b.arg(0), b.arg(1))
						}
						op := mkOp("stablehlo.sort", []hlo.Type{keys.Type(), vals.Type()}, []hlo.Type{keys.Type(), vals.Type()},
							attr("dimension", hlo.IntAttr{Value: int64(dim)}), attr("is_stable", hlo.BoolAttr(true)))
						op.Regions = []*hlo.Region{b.ret(c)}
						res := run(t, op, keys, vals)
						wk, wv := naiveSort(keys, vals, dim, dir == "GT")
						sameLit(t, "sort keys "+dt.String(), res[0], wk)
						sameLit(t, "sort values "+dt.String(), res[1], wv)
					}
				}
			}
		}
	}
}

// naiveSort stable-sorts slices along dim with sort.SliceStable.
func naiveSort(keys, vals *hlo.Literal, dim int, desc bool) (*hlo.Literal, *hlo.Literal) {
	dims := keys.Dims
	if dim < 0 {
		dim += len(dims)
	}
	k2, v2 := keys.Clone(), vals.Clone()
	for i := 0; i < keys.NumElements(); i++ {
		ii := unravel(i, dims)
		if ii[dim] != 0 {
			continue
		}
		var pos []int
		for j := int64(0); j < dims[dim]; j++ {
			ii[dim] = j
			pos = append(pos, ravel(ii, dims))
		}
		perm := slices.Clone(pos)
		sort.SliceStable(perm, func(a, b int) bool {
			x, y := keys.Float(perm[a]), keys.Float(perm[b])
			if desc {
				return x > y
			}
			return x < y
		})
		for j, p := range pos {
			setElem(k2, p, elem(keys, perm[j]))
			setElem(v2, p, elem(vals, perm[j]))
		}
	}
	return k2, v2
}

func TestMap(t *testing.T) {
	a := hlo.LiteralFromSlice([]int64{0, 1, 2, 3}, 2, 2)
	b := hlo.LiteralFromSlice([]int64{4, 5, 6, 7}, 2, 2)
	for _, body := range []*hlo.Region{binRegion("stablehlo.multiply", hlo.I64), slowRegion("stablehlo.multiply", hlo.I64)} {
		op := mkOp("stablehlo.map", []hlo.Type{a.Type(), b.Type()}, []hlo.Type{a.Type()}, attr("dimensions", ints(0, 1)))
		op.Regions = []*hlo.Region{body}
		sameLit(t, "map", run(t, op, a, b)[0], hlo.LiteralFromSlice([]int64{0, 5, 12, 21}, 2, 2))
	}
}

func TestDynamicShapeOps(t *testing.T) {
	// dynamic_broadcast_in_dim into a result type with a '?' dimension.
	in := hlo.LiteralFromSlice([]int64{1, 2, 3}, 3, 1)
	op := mkOp("stablehlo.dynamic_broadcast_in_dim", []hlo.Type{in.Type(), tt(hlo.I64, 3)}, []hlo.Type{tt(hlo.I64, 3, -1, 2)}, attr("broadcast_dimensions", ints(0, 2)))
	got := run(t, op, in, hlo.LiteralFromSlice([]int64{3, 2, 2}))[0]
	sameLit(t, "dynamic_broadcast_in_dim", got, hlo.LiteralFromSlice([]int64{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, 3, 2, 2))

	op = mkOp("stablehlo.dynamic_iota", []hlo.Type{tt(hlo.I32, 2)}, []hlo.Type{tt(hlo.F32, -1, -1)}, attr("iota_dimension", hlo.IntAttr{Value: 1}))
	got = run(t, op, hlo.LiteralFromSlice([]int32{2, 3}))[0]
	sameLit(t, "dynamic_iota", got, hlo.LiteralFromSlice([]float32{0, 1, 2, 0, 1, 2}, 2, 3))

	op = mkOp("stablehlo.dynamic_reshape", []hlo.Type{tt(hlo.I64, 1, 6), tt(hlo.I64, 2)}, []hlo.Type{tt(hlo.I64, -1, 2)})
	got = run(t, op, iotaLit(hlo.I64, 1, 6), hlo.LiteralFromSlice([]int64{3, 2}))[0]
	sameLit(t, "dynamic_reshape", got, iotaLit(hlo.I64, 3, 2))
	if _, err := tryRun(op, iotaLit(hlo.I64, 1, 6), hlo.LiteralFromSlice([]int64{-3, -2})); err == nil {
		t.Fatal("negative dynamic_reshape size accepted")
	}

	op = mkOp("stablehlo.real_dynamic_slice", []hlo.Type{tt(hlo.I64, 4, 4), tt(hlo.I32, 2), tt(hlo.I32, 2), tt(hlo.I32, 2)}, []hlo.Type{tt(hlo.I64, -1, -1)})
	got = run(t, op, iotaLit(hlo.I64, 4, 4), hlo.LiteralFromSlice([]int32{1, 0}), hlo.LiteralFromSlice([]int32{4, 4}), hlo.LiteralFromSlice([]int32{2, 3}))[0]
	sameLit(t, "real_dynamic_slice", got, hlo.LiteralFromSlice([]int64{4, 7, 12, 15}, 2, 2))
	if _, err := tryRun(op, iotaLit(hlo.I64, 4, 4), hlo.LiteralFromSlice([]int32{1, 0}), hlo.LiteralFromSlice([]int32{5, 4}), hlo.LiteralFromSlice([]int32{1, 1})); err == nil {
		t.Fatal("real_dynamic_slice past the end accepted")
	}

	op = mkOp("stablehlo.get_dimension_size", []hlo.Type{tt(hlo.I64, 2, 3)}, []hlo.Type{tt(hlo.I32)}, attr("dimension", hlo.IntAttr{Value: 1}))
	sameLit(t, "get_dimension_size", run(t, op, iotaLit(hlo.I64, 2, 3))[0], hlo.ScalarLiteral(hlo.I32, 3))
}
