package movement

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// naiveGather follows the spec's formulas index by index.
func naiveGather(operand, idx *hlo.Literal, dn *hlo.GatherDimsAttr, sizes, outDims []int64) *hlo.Literal {
	out := hlo.NewLiteral(operand.DType, outDims...)
	ivd := int(dn.IndexVectorDim)
	var batchDims []int
	for d := range outDims {
		if !slices.Contains(dn.OffsetDims, int64(d)) {
			batchDims = append(batchDims, d)
		}
	}
	for i := 0; i < out.NumElements(); i++ {
		ri := unravel(i, outDims)
		var bi []int64
		for _, d := range batchDims {
			bi = append(bi, ri[d])
		}
		var start []int64
		if ivd < len(idx.Dims) {
			for k := int64(0); k < idx.Dims[ivd]; k++ {
				ii := slices.Insert(slices.Clone(bi), ivd, k)
				start = append(start, idx.Int(ravel(ii, idx.Dims)))
			}
		} else {
			start = []int64{idx.Int(ravel(bi, idx.Dims))}
		}
		oi := make([]int64, len(operand.Dims))
		for k, d := range dn.StartIndexMap {
			oi[d] += clampI(start[k], 0, operand.Dims[d]-sizes[d])
		}
		for k, d := range dn.OperandBatchingDims {
			sd := int(dn.StartIndicesBatchingDims[k])
			if sd > ivd {
				sd--
			}
			oi[d] += bi[sd]
		}
		w := 0
		for d := range oi {
			if slices.Contains(dn.CollapsedSliceDims, int64(d)) || slices.Contains(dn.OperandBatchingDims, int64(d)) {
				continue
			}
			oi[d] += ri[dn.OffsetDims[w]]
			w++
		}
		setElem(out, i, elem(operand, ravel(oi, operand.Dims)))
	}
	return out
}

func gatherOp(dt hlo.DType, opDims, idxDims, outDims []int64, idt hlo.DType, dn *hlo.GatherDimsAttr, sizes []int64) *hlo.Op {
	return mkOp("stablehlo.gather", []hlo.Type{tt(dt, opDims...), tt(idt, idxDims...)}, []hlo.Type{tt(dt, outDims...)},
		attr("dimension_numbers", dn), attr("slice_sizes", ints(sizes...)))
}

func TestGatherSpecExamples(t *testing.T) {
	operand := iotaLit(hlo.I64, 3, 4, 2)
	for i := range operand.I64() {
		operand.I64()[i]++
	}
	idx := hlo.LiteralFromSlice([]int64{0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9}, 2, 3, 2)
	dn := &hlo.GatherDimsAttr{OffsetDims: []int64{2, 3}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{1, 0}, IndexVectorDim: 2}
	got := run(t, gatherOp(hlo.I64, []int64{3, 4, 2}, []int64{2, 3, 2}, []int64{2, 3, 2, 2}, hlo.I64, dn, []int64{1, 2, 2}), operand, idx)[0]
	want := hlo.LiteralFromSlice([]int64{1, 2, 3, 4, 3, 4, 5, 6, 13, 14, 15, 16, 9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20}, 2, 3, 2, 2)
	sameLit(t, "gather example", got, want)

	// The same gather through dynamic_gather with slice sizes as an operand.
	dop := mkOp("stablehlo.dynamic_gather", []hlo.Type{operand.Type(), idx.Type(), tt(hlo.I64, 3)}, []hlo.Type{tt(hlo.I64, 2, 3, 2, 2)}, attr("dimension_numbers", dn))
	got = run(t, dop, operand, idx, hlo.LiteralFromSlice([]int64{1, 2, 2}))[0]
	sameLit(t, "dynamic_gather example", got, want)
}

func TestGatherRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	type gcase struct {
		opDims, idxDims, sizes []int64
		dn                     *hlo.GatherDimsAttr
	}
	cases := []gcase{
		{[]int64{3, 4, 2}, []int64{2, 3, 2}, []int64{1, 2, 2},
			&hlo.GatherDimsAttr{OffsetDims: []int64{2, 3}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{1, 0}, IndexVectorDim: 2}},
		// Batching dims with the index vector in the middle.
		{[]int64{2, 3, 4, 2}, []int64{2, 2, 3, 2}, []int64{1, 1, 2, 2},
			&hlo.GatherDimsAttr{OffsetDims: []int64{3, 4}, CollapsedSliceDims: []int64{1}, OperandBatchingDims: []int64{0}, StartIndicesBatchingDims: []int64{1}, StartIndexMap: []int64{2, 1}, IndexVectorDim: 3}},
		{[]int64{5, 6}, []int64{4, 2, 3}, []int64{1, 3},
			&hlo.GatherDimsAttr{OffsetDims: []int64{0}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0, 1}, IndexVectorDim: 1}},
		// Implicit trailing index vector dim (take along axis 0).
		{[]int64{7, 5}, []int64{4, 3}, []int64{1, 5},
			&hlo.GatherDimsAttr{OffsetDims: []int64{2}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 2}},
		// Batching dim after the index vector dim.
		{[]int64{3, 4, 5}, []int64{1, 3}, []int64{1, 1, 5},
			&hlo.GatherDimsAttr{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{1}, OperandBatchingDims: []int64{0}, StartIndicesBatchingDims: []int64{1}, StartIndexMap: []int64{1}, IndexVectorDim: 0}},
	}
	for _, dt := range allTypes {
		for ci, c := range cases {
			// Output dims from the spec's shape rule, via the plan.
			p, err := newGatherPlan(c.dn, c.opDims, c.idxDims, c.sizes, dt.Size())
			if err != nil {
				t.Fatalf("case %d: %v", ci, err)
			}
			operand := randLit(r, dt, c.opDims...)
			for _, idt := range []hlo.DType{hlo.I32, hlo.I64, hlo.U8} {
				idx := hlo.NewLiteral(idt, c.idxDims...)
				for i := 0; i < idx.NumElements(); i++ {
					v := int64(r.IntN(9)) - 2
					if idt.IsUnsigned() && v < 0 {
						v = 200
					}
					idx.SetInt(i, v)
				}
				got := run(t, gatherOp(dt, c.opDims, c.idxDims, p.outDims, idt, c.dn, c.sizes), operand, idx)[0]
				want := naiveGather(operand, idx, c.dn, c.sizes, p.outDims)
				sameLit(t, "gather", got, want)
			}
		}
	}
	// Bad attributes are compile errors naming the attribute.
	bad := gatherOp(hlo.F32, []int64{3, 4}, []int64{2, 1}, []int64{2, 4}, hlo.I32,
		&hlo.GatherDimsAttr{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}, []int64{2, 4})
	if _, err := compile(bad); err == nil {
		t.Fatal("slice size 2 in a collapsed dim accepted")
	}
}

// naiveScatter follows the spec: every update element in row-major order,
// skipped when its result index is out of bounds.
func naiveScatter(in, idx, upd *hlo.Literal, dn *hlo.ScatterDimsAttr, f func(a, b []byte)) *hlo.Literal {
	out := in.Clone()
	ivd := int(dn.IndexVectorDim)
	var scatterDims []int
	for d := range upd.Dims {
		if !slices.Contains(dn.UpdateWindowDims, int64(d)) {
			scatterDims = append(scatterDims, d)
		}
	}
	for u := 0; u < upd.NumElements(); u++ {
		ui := unravel(u, upd.Dims)
		var si []int64
		for _, d := range scatterDims {
			si = append(si, ui[d])
		}
		var start []int64
		if ivd < len(idx.Dims) {
			for k := int64(0); k < idx.Dims[ivd]; k++ {
				ii := slices.Insert(slices.Clone(si), ivd, k)
				start = append(start, idx.Int(ravel(ii, idx.Dims)))
			}
		} else {
			start = []int64{idx.Int(ravel(si, idx.Dims))}
		}
		ri := make([]int64, len(in.Dims))
		for k, d := range dn.ScatterDimsToOperandDims {
			ri[d] += start[k]
		}
		for k, d := range dn.InputBatchingDims {
			sd := int(dn.ScatterIndicesBatchingDims[k])
			if sd > ivd {
				sd--
			}
			ri[d] += si[sd]
		}
		w := 0
		for d := range ri {
			if slices.Contains(dn.InsertedWindowDims, int64(d)) || slices.Contains(dn.InputBatchingDims, int64(d)) {
				continue
			}
			ri[d] += ui[dn.UpdateWindowDims[w]]
			w++
		}
		if !inBounds(ri, in.Dims) {
			continue
		}
		f(elem(out, ravel(ri, in.Dims)), elem(upd, u))
	}
	return out
}

func scatterOpOf(dt hlo.DType, inDims, idxDims, updDims []int64, dn *hlo.ScatterDimsAttr, body *hlo.Region) *hlo.Op {
	op := mkOp("stablehlo.scatter", []hlo.Type{tt(dt, inDims...), tt(hlo.I32, idxDims...), tt(dt, updDims...)}, []hlo.Type{tt(dt, inDims...)},
		attr("scatter_dimension_numbers", dn))
	op.Regions = []*hlo.Region{body}
	return op
}

func TestScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	type scase struct {
		inDims, idxDims, updDims []int64
		dn                       *hlo.ScatterDimsAttr
	}
	cases := []scase{
		{[]int64{3, 4, 2}, []int64{2, 3, 2}, []int64{2, 3, 2, 2},
			&hlo.ScatterDimsAttr{UpdateWindowDims: []int64{2, 3}, InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{1, 0}, IndexVectorDim: 2}},
		{[]int64{2, 3, 4, 2}, []int64{2, 2, 3, 2}, []int64{2, 2, 3, 2, 2},
			&hlo.ScatterDimsAttr{UpdateWindowDims: []int64{3, 4}, InsertedWindowDims: []int64{1}, InputBatchingDims: []int64{0}, ScatterIndicesBatchingDims: []int64{1}, ScatterDimsToOperandDims: []int64{2, 1}, IndexVectorDim: 3}},
		{[]int64{3, 5, 4}, []int64{2, 1}, []int64{3, 2, 4},
			&hlo.ScatterDimsAttr{UpdateWindowDims: []int64{0, 2}, InsertedWindowDims: []int64{1}, ScatterDimsToOperandDims: []int64{1}, IndexVectorDim: 1}},
		{[]int64{8}, []int64{6}, []int64{6},
			&hlo.ScatterDimsAttr{InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}},
		// A leading window dim: overlapping windows of different scatter
		// points collide, and the update order shows.
		{[]int64{8}, []int64{4, 1}, []int64{3, 4},
			&hlo.ScatterDimsAttr{UpdateWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}},
		{[]int64{6, 5}, []int64{3, 1}, []int64{3, 3, 5},
			&hlo.ScatterDimsAttr{UpdateWindowDims: []int64{1, 2}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}},
	}
	bodies := []struct {
		name string
		reg  func(dt hlo.DType) *hlo.Region
		f    func(dt hlo.DType) func(a, b []byte)
	}{
		{"add", func(dt hlo.DType) *hlo.Region { return binRegion("stablehlo.add", dt) }, addF},
		{"add-slow", func(dt hlo.DType) *hlo.Region { return slowRegion("stablehlo.add", dt) }, addF},
		{"set", func(dt hlo.DType) *hlo.Region { b := newBody(dt, dt); return b.ret(b.arg(1)) }, func(hlo.DType) func(a, b []byte) { return func(a, b []byte) { copy(a, b) } }},
	}
	for _, dt := range []hlo.DType{hlo.F32, hlo.I8, hlo.F64, hlo.BF16, hlo.I32, hlo.C64} {
		for ci, c := range cases {
			in := randLit(r, dt, c.inDims...)
			upd := randLit(r, dt, c.updDims...)
			idx := hlo.NewLiteral(hlo.I32, c.idxDims...)
			for i := 0; i < idx.NumElements(); i++ {
				idx.SetInt(i, int64(r.IntN(8))-2)
			}
			for _, b := range bodies {
				got := run(t, scatterOpOf(dt, c.inDims, c.idxDims, c.updDims, c.dn, b.reg(dt)), in, idx, upd)[0]
				want := naiveScatter(in, idx, upd, c.dn, b.f(dt))
				// Updates apply in row-major order of the updates (the
				// reference's), so even colliding set updates agree.
				if !got.Equal(want) {
					t.Fatalf("scatter %s %s case %d:\n got  %v\n want %v", b.name, dt, ci, got, want)
				}
			}
		}
	}
}

func addF(dt hlo.DType) func(a, b []byte) {
	return func(a, b []byte) {
		la, lb := hlo.Literal{DType: dt, Data: a}, hlo.Literal{DType: dt, Data: b}
		switch {
		case dt.IsComplex():
			la.SetComplex(0, la.Complex(0)+lb.Complex(0))
		case dt.IsFloat():
			la.SetFloat(0, la.Float(0)+lb.Float(0))
		default:
			la.SetInt(0, la.Int(0)+lb.Int(0))
		}
	}
}

func TestScatterMultiInput(t *testing.T) {
	// Two inputs scattered together; the body swaps roles to exercise the
	// generic path: results (a + u, b * v).
	in0 := hlo.LiteralFromSlice([]int32{1, 2, 3, 4})
	in1 := hlo.LiteralFromSlice([]float32{1, 1, 1, 1})
	idx := hlo.LiteralFromSlice([]int32{1, 3, 1, 7}, 4, 1)
	u0 := hlo.LiteralFromSlice([]int32{10, 20, 30, 40})
	u1 := hlo.LiteralFromSlice([]float32{2, 3, 4, 5})
	b := newBody(hlo.I32, hlo.F32, hlo.I32, hlo.F32)
	s := b.op("stablehlo.add", hlo.I32, []*hlo.Value{b.arg(0), b.arg(2)})
	m := b.op("stablehlo.multiply", hlo.F32, []*hlo.Value{b.arg(1), b.arg(3)})
	op := mkOp("stablehlo.scatter", []hlo.Type{in0.Type(), in1.Type(), idx.Type(), u0.Type(), u1.Type()}, []hlo.Type{in0.Type(), in1.Type()},
		attr("scatter_dimension_numbers", &hlo.ScatterDimsAttr{InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}))
	op.Regions = []*hlo.Region{b.ret(s, m)}
	res := run(t, op, in0, in1, idx, u0, u1)
	sameLit(t, "scatter input 0", res[0], hlo.LiteralFromSlice([]int32{1, 42, 3, 24}))
	sameLit(t, "scatter input 1", res[1], hlo.LiteralFromSlice([]float32{1, 8, 1, 3}))
}
