package movement

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// torch_index_select against its definition on random shapes, dims,
// batch dims and index types: result[p..., q..., s...] =
// operand[p..., index[p[:b]..., q...], s...].
func TestTorchIndexSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	dtypes := []hlo.DType{hlo.F32, hlo.I8, hlo.Bool, hlo.C128, hlo.BF16}
	idxTypes := []hlo.DType{hlo.I32, hlo.I64, hlo.U8, hlo.I16}
	runs := 0
	for range 400 {
		rank := 1 + r.IntN(4)
		in := make([]int64, rank)
		for i := range in {
			in[i] = int64(r.IntN(4))
		}
		dim := r.IntN(rank)
		if in[dim] == 0 {
			in[dim] = 1 + int64(r.IntN(3))
		}
		batch := r.IntN(dim + 1)
		idxDims := append([]int64{}, in[:batch]...)
		for range r.IntN(3) {
			idxDims = append(idxDims, int64(r.IntN(3)))
		}
		dt := dtypes[r.IntN(len(dtypes))]
		it := idxTypes[r.IntN(len(idxTypes))]
		x := randLit(r, dt, in...)
		idx := hlo.NewLiteral(it, idxDims...)
		for i := range idx.NumElements() {
			idx.SetInt(i, int64(r.IntN(int(in[dim]))))
		}
		outDims := append(append(append([]int64{}, in[:dim]...), idxDims[batch:]...), in[dim+1:]...)
		op := mkOp("stablehlo.torch_index_select", []hlo.Type{x.Type(), idx.Type()}, []hlo.Type{tt(dt, outDims...)},
			attr("dim", hlo.IntAttr{Value: int64(dim)}), attr("batch_dims", hlo.IntAttr{Value: int64(batch)}))
		got := run(t, op, x, idx)[0]
		want := hlo.NewLiteral(dt, outDims...)
		nq := len(idxDims) - batch
		for e := range want.NumElements() {
			o := unravel(e, outDims)
			p, q, s := o[:dim], o[dim:dim+nq], o[dim+nq:]
			ii := append(append([]int64{}, p[:batch]...), q...)
			k := idx.Int(ravel(ii, idxDims))
			src := append(append(append([]int64{}, p...), k), s...)
			setElem(want, e, elem(x, ravel(src, in)))
		}
		sameLit(t, "torch_index_select "+x.ShapeString()+" "+idx.ShapeString(), got, want)
		runs++
	}
	if runs < 400 {
		t.Fatalf("%d runs", runs)
	}
}

func TestTorchIndexSelectErrors(t *testing.T) {
	i64 := func(v int64) hlo.Attr { return hlo.IntAttr{Value: v} }
	x := tt(hlo.F32, 3, 4)
	for _, c := range []struct {
		idx      *hlo.TensorType
		out      *hlo.TensorType
		attrs    []hlo.NamedAttr
		contains string
	}{
		{tt(hlo.I32, 2), tt(hlo.F32, 2, 4), nil, "missing attribute dim"},
		{tt(hlo.I32, 2), tt(hlo.F32, 2, 4), []hlo.NamedAttr{attr("dim", i64(2))}, "dim 2 is outside the operand's rank 2"},
		{tt(hlo.I32, 2), tt(hlo.F32, 2, 4), []hlo.NamedAttr{attr("dim", i64(0)), attr("batch_dims", i64(1))}, "batch_dims 1 must be"},
		{tt(hlo.I32, 2, 5), tt(hlo.F32, 2, 5), []hlo.NamedAttr{attr("dim", i64(1)), attr("batch_dims", i64(1))}, "batch dimension 0 differs"},
		{tt(hlo.F32, 2), tt(hlo.F32, 2, 4), []hlo.NamedAttr{attr("dim", i64(0))}, "integer elements"},
		{tt(hlo.I32, 2), tt(hlo.F32, 3, 4), []hlo.NamedAttr{attr("dim", i64(0))}, "does not match the computed shape f32[2,4]"},
	} {
		_, err := compile(mkOp("stablehlo.torch_index_select", []hlo.Type{x, c.idx}, []hlo.Type{c.out}, c.attrs...))
		if err == nil || !strings.Contains(err.Error(), c.contains) || !strings.Contains(err.Error(), "stablehlo.torch_index_select") {
			t.Errorf("%s: got %v, want an error containing %q", c.contains, err, c.contains)
		}
	}
	// An index out of range fails at run time, naming it.
	op := mkOp("stablehlo.torch_index_select", []hlo.Type{x, tt(hlo.I32, 1)}, []hlo.Type{tt(hlo.F32, 1, 4)}, attr("dim", i64(0)))
	idx := hlo.NewLiteral(hlo.I32, 1)
	idx.SetInt(0, 3)
	if _, err := tryRun(op, hlo.NewLiteral(hlo.F32, 3, 4), idx); err == nil || !strings.Contains(err.Error(), "index 3 at [0] is outside [0, 3)") {
		t.Errorf("out-of-range index: %v", err)
	}
}
