package linalg_test

import (
	"fmt"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

type dotCase struct {
	lhs, rhs       []int64
	lb, rb, lc, rc []int64
}

func (c dotCase) resultDims() []int64 {
	var out []int64
	for _, d := range c.lb {
		out = append(out, c.lhs[d])
	}
	out = append(out, freeOf(c.lhs, c.lb, c.lc)...)
	out = append(out, freeOf(c.rhs, c.rb, c.rc)...)
	return out
}

func freeOf(dims, b, k []int64) []int64 {
	var out []int64
	for i := range dims {
		if !has(b, int64(i)) && !has(k, int64(i)) {
			out = append(out, dims[i])
		}
	}
	return out
}

func has(xs []int64, v int64) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func dotAttr(c dotCase) hlo.NamedAttr {
	return hlo.NamedAttr{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{
		LhsBatchingDims: c.lb, RhsBatchingDims: c.rb, LhsContractingDims: c.lc, RhsContractingDims: c.rc}}
}

// refDot is dot_general by its definition, in complex128 (exact for the
// small integers the tests use), with the sum of |a*b| per element as the
// error scale.
func refDot(c dotCase, l, r *hlo.Literal) ([]complex128, []float64) {
	od := c.resultDims()
	n := int(hlo.NumElements(od))
	want := make([]complex128, n)
	scale := make([]float64, n)
	lFree, rFree := freeIdx(c.lhs, c.lb, c.lc), freeIdx(c.rhs, c.rb, c.rc)
	var kdims []int64
	for _, d := range c.lc {
		kdims = append(kdims, c.lhs[d])
	}
	nk := int(hlo.NumElements(kdims))
	for o := 0; o < n; o++ {
		oi := unravel(o, od)
		li := make([]int64, len(c.lhs))
		ri := make([]int64, len(c.rhs))
		p := 0
		for i := range c.lb {
			li[c.lb[i]], ri[c.rb[i]] = oi[p], oi[p]
			p++
		}
		for _, d := range lFree {
			li[d] = oi[p]
			p++
		}
		for _, d := range rFree {
			ri[d] = oi[p]
			p++
		}
		for k := 0; k < nk; k++ {
			ki := unravel(k, kdims)
			for i := range c.lc {
				li[c.lc[i]], ri[c.rc[i]] = ki[i], ki[i]
			}
			prod := l.Complex(ravel(li, c.lhs)) * r.Complex(ravel(ri, c.rhs))
			want[o] += prod
			scale[o] += cmplx.Abs(prod)
		}
	}
	return want, scale
}

func freeIdx(dims, b, k []int64) []int64 {
	var out []int64
	for i := range dims {
		if !has(b, int64(i)) && !has(k, int64(i)) {
			out = append(out, int64(i))
		}
	}
	return out
}

func dotCases() []dotCase {
	return []dotCase{
		{lhs: []int64{4, 3}, rhs: []int64{3, 6}, lc: []int64{1}, rc: []int64{0}},
		{lhs: []int64{3, 4}, rhs: []int64{3, 6}, lc: []int64{0}, rc: []int64{0}},
		{lhs: []int64{4, 3}, rhs: []int64{6, 3}, lc: []int64{1}, rc: []int64{1}},
		{lhs: []int64{5}, rhs: []int64{5}, lc: []int64{0}, rc: []int64{0}},
		{lhs: []int64{2, 3}, rhs: []int64{4, 5}},
		{lhs: []int64{2, 4, 3}, rhs: []int64{2, 3, 5}, lb: []int64{0}, rb: []int64{0}, lc: []int64{2}, rc: []int64{1}},
		{lhs: []int64{3, 2, 4}, rhs: []int64{5, 3, 2}, lb: []int64{1}, rb: []int64{2}, lc: []int64{0}, rc: []int64{1}},
		// Two contracting dims in reversed order: no strided view, a transposed copy.
		{lhs: []int64{2, 3, 4, 5}, rhs: []int64{5, 2, 6, 3}, lb: []int64{0}, rb: []int64{1}, lc: []int64{3, 1}, rc: []int64{0, 3}},
		// Two batch dims, free dims around them.
		{lhs: []int64{2, 7, 3, 4}, rhs: []int64{3, 4, 2, 9}, lb: []int64{0, 2}, rb: []int64{2, 0}, lc: []int64{3}, rc: []int64{1}},
		{lhs: []int64{1, 33, 70}, rhs: []int64{70, 1, 41}, lc: []int64{2}, rc: []int64{0}},
		{lhs: []int64{0, 3}, rhs: []int64{3, 6}, lc: []int64{1}, rc: []int64{0}},
		{lhs: []int64{4, 0}, rhs: []int64{0, 6}, lc: []int64{1}, rc: []int64{0}},
		{lhs: []int64{64, 130}, rhs: []int64{130, 70}, lc: []int64{1}, rc: []int64{0}},
		{lhs: []int64{300, 20}, rhs: []int64{20, 5}, lc: []int64{1}, rc: []int64{0}},
		{lhs: []int64{17, 3, 8}, rhs: []int64{17, 8, 3}, lb: []int64{0}, rb: []int64{0}, lc: []int64{2}, rc: []int64{1}},
	}
}

func TestDotGeneralTypes(t *testing.T) {
	type typeCase struct{ l, r, o hlo.DType }
	types := []typeCase{
		{hlo.F32, hlo.F32, hlo.F32}, {hlo.F64, hlo.F64, hlo.F64}, {hlo.F16, hlo.F16, hlo.F16},
		{hlo.BF16, hlo.BF16, hlo.BF16}, {hlo.BF16, hlo.BF16, hlo.F32}, {hlo.F16, hlo.F16, hlo.F32},
		{hlo.F32, hlo.F32, hlo.F64}, {hlo.I8, hlo.I8, hlo.I32}, {hlo.I16, hlo.I16, hlo.F32},
		{hlo.I32, hlo.I32, hlo.I32}, {hlo.I64, hlo.I64, hlo.I64}, {hlo.U8, hlo.U8, hlo.U8},
		{hlo.U32, hlo.U32, hlo.U32}, {hlo.U64, hlo.U64, hlo.U64}, {hlo.Bool, hlo.Bool, hlo.Bool},
		{hlo.C64, hlo.C64, hlo.C64}, {hlo.C128, hlo.C128, hlo.C128}, {hlo.F32, hlo.F32, hlo.C64},
		{hlo.I4, hlo.I4, hlo.I4}, {hlo.F8E4M3FN, hlo.F8E4M3FN, hlo.F32},
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, ty := range types {
		for ci, c := range dotCases() {
			name := fmt.Sprintf("%s_%s_%s/%d", ty.l, ty.r, ty.o, ci)
			t.Run(name, func(t *testing.T) {
				l := randLiteral(r, ty.l, c.lhs...)
				rr := randLiteral(r, ty.r, c.rhs...)
				od := c.resultDims()
				got := mustRun(t, "stablehlo.dot_general", []*hlo.Literal{l, rr}, []hlo.Type{tt(ty.o, od...)}, dotAttr(c))[0]
				if !dimsEq(got.Dims, od) || got.DType != ty.o {
					t.Fatalf("result %s, want %s", got.ShapeString(), hlo.ShapeString(ty.o, od))
				}
				want, scale := refDot(c, l, rr)
				if ty.o.IsInt() || ty.o.IsBool() {
					for i, w := range want {
						wv := hlo.WrapInt(ty.o, int64(real(w)))
						if ty.o.IsBool() && real(w) != 0 {
							wv = 1
						}
						if got.Int(i) != wv {
							t.Fatalf("element %d = %d, want %d", i, got.Int(i), wv)
						}
					}
					return
				}
				tol := max(ulpTol(ty.o), ulpTol(ty.l))
				closeTo(t, name, got, want, scale, 1e-30, tol)
			})
		}
	}
}

func dimsEq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDotLegacy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct{ l, r, o []int64 }{
		{[]int64{5}, []int64{5}, nil},
		{[]int64{3, 5}, []int64{5}, []int64{3}},
		{[]int64{5}, []int64{5, 2}, []int64{2}},
		{[]int64{3, 5}, []int64{5, 2}, []int64{3, 2}},
	} {
		l := randLiteral(r, hlo.F64, c.l...)
		rr := randLiteral(r, hlo.F64, c.r...)
		got := mustRun(t, "stablehlo.dot", []*hlo.Literal{l, rr}, []hlo.Type{tt(hlo.F64, c.o...)})[0]
		dc := dotCase{lhs: c.l, rhs: c.r, lc: []int64{int64(len(c.l) - 1)}, rc: []int64{0}}
		want, scale := refDot(dc, l, rr)
		closeTo(t, fmt.Sprint(c), got, want, scale, 0, 1e-14)
	}
}

func TestDotAlgorithm(t *testing.T) {
	// bf16 operand precision: results equal an f32 product of bf16-rounded
	// operands.
	r := rand.New(rand.NewPCG(3, 4))
	c := dotCase{lhs: []int64{8, 16}, rhs: []int64{16, 8}, lc: []int64{1}, rc: []int64{0}}
	l := randLiteral(r, hlo.F32, c.lhs...)
	rr := randLiteral(r, hlo.F32, c.rhs...)
	algo := hlo.OpaqueAttr{Text: "#stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>"}
	got := mustRun(t, "stablehlo.dot_general", []*hlo.Literal{l, rr}, []hlo.Type{tt(hlo.F32, 8, 8)}, dotAttr(c), hlo.NamedAttr{Name: "algorithm", Value: algo})[0]
	lb, rb := l.Clone(), rr.Clone()
	for _, x := range []*hlo.Literal{lb, rb} {
		for i, v := range x.F32() {
			x.F32()[i] = hlo.BF16ToF32(hlo.F32ToBF16(v))
		}
	}
	want, scale := refDot(c, lb, rb)
	closeTo(t, "bf16 algorithm", got, want, scale, 0, 1e-6)
	exact, _ := refDot(c, l, rr)
	differs := false
	for i := range exact {
		if cmplx.Abs(exact[i]-want[i]) > 1e-4 {
			differs = true
		}
	}
	if !differs {
		t.Fatal("test data too coarse: bf16 rounding changed nothing")
	}
}

func TestDotErrors(t *testing.T) {
	l := hlo.NewLiteral(hlo.F32, 4, 3)
	r := hlo.NewLiteral(hlo.F32, 4, 6)
	c := dotCase{lhs: []int64{4, 3}, rhs: []int64{4, 6}, lc: []int64{1}, rc: []int64{0}}
	_, err := runOp("stablehlo.dot_general", []*hlo.Literal{l, r}, []hlo.Type{tt(hlo.F32, 4, 6)}, dotAttr(c))
	if err == nil || !strings.Contains(err.Error(), "contracting dimension") || !strings.Contains(err.Error(), "stablehlo.dot_general") {
		t.Fatalf("want a contracting-dimension error naming the op, got %v", err)
	}
	c = dotCase{lhs: []int64{4, 3}, rhs: []int64{4, 6}, lc: []int64{0}, rc: []int64{0}}
	_, err = runOp("stablehlo.dot_general", []*hlo.Literal{l, r}, []hlo.Type{tt(hlo.F32, 6, 3)}, dotAttr(c))
	if err == nil || !strings.Contains(err.Error(), "result #0 has type tensor<6x3xf32>, inferred tensor<3x6xf32>") {
		t.Fatalf("want a result-type error, got %v", err)
	}
}
