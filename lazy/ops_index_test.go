package lazy

import (
	"fmt"
	"strings"
	"testing"
)

var indexTypes = []DType{I32, I64}

func TestOpsTakeAlong(t *testing.T) {
	r := newRand(30)
	for _, dt := range movementTypes {
		for _, it := range indexTypes {
			x, xv := mk(seqND(3, 4, 5), dt)
			for axis := -1; axis < 3; axis++ {
				ax := (axis + 3) % 3
				// Indices may be smaller than x on the other axes (torch.gather).
				id := []int64{2, 3, 4}
				id[ax] = 6
				iv := randInts(r, 0, int(xv.dims[ax]), id...)
				want := gen(id, func(oi []int64) float64 {
					ii := append([]int64{}, oi...)
					ii[ax] = int64(iv.at(oi...))
					return xv.at(ii...)
				})
				expectT(t, fmt.Sprintf("TakeAlong/%s/%s/axis=%d", dt, it, axis), x.TakeAlong(axis, mkT(iv, it)), dt, want, exact)
			}
		}
	}
}

func TestOpsIndexSelect(t *testing.T) {
	for _, dt := range movementTypes {
		for _, it := range indexTypes {
			x, xv := mk(seqND(3, 4, 5), dt)
			for axis := -1; axis < 3; axis++ {
				ax := (axis + 3) % 3
				idx := ndOf([]float64{2, 0, 2, 1, 0}, 5)
				od := append([]int64{}, xv.dims...)
				od[ax] = 5
				want := gen(od, func(oi []int64) float64 {
					ii := append([]int64{}, oi...)
					ii[ax] = int64(idx.v[oi[ax]])
					return xv.at(ii...)
				})
				expectT(t, fmt.Sprintf("IndexSelect/%s/%s/axis=%d", dt, it, axis), x.IndexSelect(axis, mkT(idx, it)), dt, want, exact)
			}
		}
	}
}

func TestOpsScatterAdd(t *testing.T) {
	r := newRand(31)
	for _, dt := range movementTypes {
		for axis := 0; axis < 2; axis++ {
			x, xv := mk(seqND(3, 4), dt)
			id := []int64{3, 4}
			id[axis] = 5 // more sources than slots: duplicates add up
			iv := randInts(r, 0, int(xv.dims[axis]), id...)
			src, sv := mk(randInts(r, -5, 6, id...), dt)
			want := ndOf(xv.v, xv.dims...)
			for i := range sv.v {
				oi := unflat(id, i)
				ii := append([]int64{}, oi...)
				ii[axis] = int64(iv.v[i])
				want.v[want.off(ii)] += sv.v[i]
			}
			expectT(t, fmt.Sprintf("ScatterAdd/%s/axis=%d", dt, axis), x.ScatterAdd(axis, mkT(iv, I64), src), dt, want, exact)
		}
	}
}

func TestOpsOneHot(t *testing.T) {
	idx := ndOf([]float64{0, 3, 1, 2, 3, 0}, 2, 3)
	for _, it := range indexTypes {
		for _, dt := range []DType{F32, F64, I32, Bool} {
			want := gen([]int64{2, 3, 4}, func(i []int64) float64 { return boolF(idx.at(i[0], i[1]) == float64(i[2])) })
			expectT(t, fmt.Sprintf("OneHot/%s/%s", it, dt), OneHot(mkT(idx, it), 4, dt), dt, want, exact)
		}
	}
	// Out-of-range indices give an all-zero row.
	// Out of range is an error of the cut, as torch.nn.functional.one_hot raises.
	if err := Sync(OneHot(mkT(ndOf([]float64{-1, 2}, 2), I32), 3, F32)); err == nil || !strings.Contains(err.Error(), "OneHot") {
		t.Errorf("OneHot/out-of-range: err = %v, want an error naming OneHot", err)
	}
}

func TestOpsDynamicSlice(t *testing.T) {
	for _, dt := range movementTypes {
		x, xv := mk(seqND(4, 5), dt)
		cases := []struct {
			starts  []float64
			sizes   []int64
			clamped []int64 // where the slice really starts (spec: clamped into range)
		}{
			{[]float64{1, 2}, []int64{2, 3}, []int64{1, 2}},
			{[]float64{0, 0}, []int64{4, 5}, []int64{0, 0}},
			{[]float64{3, 4}, []int64{2, 2}, []int64{2, 3}},
			{[]float64{-2, 1}, []int64{1, 4}, []int64{0, 1}},
		}
		for _, c := range cases {
			for _, it := range indexTypes {
				st := []*Tensor{mkT(ndOf([]float64{c.starts[0]}), it), mkT(ndOf([]float64{c.starts[1]}), it)}
				want := refSlice(xv, c.clamped, []int64{c.clamped[0] + c.sizes[0], c.clamped[1] + c.sizes[1]}, []int64{1, 1})
				expectT(t, fmt.Sprintf("DynamicSlice/%s/%s/%v", dt, it, c.starts), x.DynamicSlice(st, c.sizes), dt, want, exact)

				u, uv := mk(mapND(seqND(c.sizes...), func(v float64) float64 { return -v }), dt)
				want2 := ndOf(xv.v, xv.dims...)
				for i := range uv.v {
					oi := unflat(uv.dims, i)
					want2.v[want2.off([]int64{oi[0] + c.clamped[0], oi[1] + c.clamped[1]})] = uv.v[i]
				}
				expectT(t, fmt.Sprintf("DynamicUpdateSlice/%s/%s/%v", dt, it, c.starts), x.DynamicUpdateSlice(u, st), dt, want2, exact)
			}
		}
	}
}

func TestOpsDynamicSliceMixedIndexTypes(t *testing.T) {
	x, xv := mk(seqND(4, 5), F32)
	st := []*Tensor{mkT(ndOf([]float64{1}), I32), mkT(ndOf([]float64{2}), I64)}
	expectT(t, "DynamicSlice/mixed", x.DynamicSlice(st, []int64{2, 2}), F32, refSlice(xv, []int64{1, 2}, []int64{3, 4}, []int64{1, 1}), exact)
	st = []*Tensor{mkT(ndOf([]float64{1}), U8), mkT(ndOf([]float64{2}), I32)}
	u := mkT(newND(2, 2), F32)
	want := ndOf(xv.v, 4, 5)
	for _, i := range []int{7, 8, 12, 13} {
		want.v[i] = 0
	}
	expectT(t, "DynamicUpdateSlice/mixed", x.DynamicUpdateSlice(u, st), F32, want, exact)
}
