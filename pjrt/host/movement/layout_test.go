package movement

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestBroadcastInDim(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		in, out, bd []int64
	}{
		{[]int64{3, 1}, []int64{3, 2, 2}, []int64{0, 2}},
		{[]int64{}, []int64{4, 5}, []int64{}},
		{[]int64{5}, []int64{4, 5}, []int64{1}},
		{[]int64{4}, []int64{4, 5}, []int64{0}},
		{[]int64{2, 3}, []int64{3, 7, 2}, []int64{2, 0}},
		{[]int64{1, 1}, []int64{0, 3}, []int64{0, 1}},
		{[]int64{300}, []int64{300, 300}, []int64{0}},
	}
	for _, dt := range allTypes {
		for _, c := range cases {
			in := randLit(r, dt, c.in...)
			op := mkOp("stablehlo.broadcast_in_dim", []hlo.Type{in.Type()}, []hlo.Type{tt(dt, c.out...)}, attr("broadcast_dimensions", ints(c.bd...)))
			got := run(t, op, in)[0]
			want := hlo.NewLiteral(dt, c.out...)
			for i := 0; i < want.NumElements(); i++ {
				ri := unravel(i, c.out)
				oi := make([]int64, len(c.in))
				for k, d := range c.bd {
					if c.in[k] != 1 {
						oi[k] = ri[d]
					}
				}
				setElem(want, i, elem(in, ravel(oi, c.in)))
			}
			sameLit(t, "broadcast "+dt.String(), got, want)
		}
	}
	op := mkOp("stablehlo.broadcast_in_dim", []hlo.Type{tt(hlo.F32, 3)}, []hlo.Type{tt(hlo.F32, 4, 2)}, attr("broadcast_dimensions", ints(1)))
	if _, err := compile(op); err == nil || !strings.Contains(err.Error(), "broadcast_dimensions") || !strings.Contains(err.Error(), "f32[3]") {
		t.Fatalf("bad broadcast: err = %v", err)
	}
}

func TestTransposeReverse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	perms := [][]int64{{1, 0}, {2, 0, 1}, {0, 2, 1}, {3, 1, 0, 2}}
	shapes := [][]int64{{3, 4}, {2, 3, 4}, {5, 40, 33}, {2, 3, 4, 5}}
	for _, dt := range allTypes {
		for k, p := range perms {
			dims := shapes[k]
			in := randLit(r, dt, dims...)
			out := make([]int64, len(dims))
			for i, q := range p {
				out[i] = dims[q]
			}
			op := mkOp("stablehlo.transpose", []hlo.Type{in.Type()}, []hlo.Type{tt(dt, out...)}, attr("permutation", ints(p...)))
			got := run(t, op, in)[0]
			want := hlo.NewLiteral(dt, out...)
			for i := 0; i < want.NumElements(); i++ {
				ri := unravel(i, out)
				oi := make([]int64, len(dims))
				for d, q := range p {
					oi[q] = ri[d]
				}
				setElem(want, i, elem(in, ravel(oi, dims)))
			}
			sameLit(t, "transpose", got, want)

			rev := p[:1]
			op = mkOp("stablehlo.reverse", []hlo.Type{in.Type()}, []hlo.Type{in.Type()}, attr("dimensions", ints(rev...)))
			got = run(t, op, in)[0]
			want = hlo.NewLiteral(dt, dims...)
			for i := 0; i < want.NumElements(); i++ {
				ri := unravel(i, dims)
				ri[rev[0]] = dims[rev[0]] - 1 - ri[rev[0]]
				setElem(want, i, elem(in, ravel(ri, dims)))
			}
			sameLit(t, "reverse", got, want)
		}
	}
	// A large transpose takes the tiled path.
	in := randLit(r, hlo.F32, 100, 70)
	got := run(t, mkOp("stablehlo.transpose", []hlo.Type{in.Type()}, []hlo.Type{tt(hlo.F32, 70, 100)}, attr("permutation", ints(1, 0))), in)[0]
	for i := 0; i < 100; i++ {
		for j := 0; j < 70; j++ {
			if got.F32()[j*100+i] != in.F32()[i*70+j] {
				t.Fatalf("tiled transpose wrong at %d,%d", i, j)
			}
		}
	}
	if _, err := compile(mkOp("stablehlo.transpose", []hlo.Type{tt(hlo.F32, 2, 3)}, []hlo.Type{tt(hlo.F32, 3, 2)}, attr("permutation", ints(0, 0)))); err == nil {
		t.Fatal("bad permutation accepted")
	}
}

func TestSliceAndReshape(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range allTypes {
		dims := []int64{7, 9, 4}
		in := randLit(r, dt, dims...)
		start, limit, strides := []int64{1, 0, 2}, []int64{7, 9, 3}, []int64{2, 3, 1}
		out := []int64{3, 3, 1}
		op := mkOp("stablehlo.slice", []hlo.Type{in.Type()}, []hlo.Type{tt(dt, out...)},
			attr("start_indices", ints(start...)), attr("limit_indices", ints(limit...)), attr("strides", ints(strides...)))
		got := run(t, op, in)[0]
		want := hlo.NewLiteral(dt, out...)
		for i := 0; i < want.NumElements(); i++ {
			ri := unravel(i, out)
			for d := range ri {
				ri[d] = start[d] + ri[d]*strides[d]
			}
			setElem(want, i, elem(in, ravel(ri, dims)))
		}
		sameLit(t, "slice", got, want)
		// A stride near 2^63 takes one element (ceil((limit-start)/stride)
		// and the element step must not overflow).
		big := mkOp("stablehlo.slice", []hlo.Type{in.Type()}, []hlo.Type{tt(dt, 1, 1, 1)},
			attr("start_indices", ints(2, 8, 3)), attr("limit_indices", ints(7, 9, 4)), attr("strides", ints(math.MaxInt64, math.MaxInt64, math.MaxInt64)))
		want1 := hlo.NewLiteral(dt, 1, 1, 1)
		setElem(want1, 0, elem(in, ravel([]int64{2, 8, 3}, dims)))
		sameLit(t, "slice/huge-stride", run(t, big, in)[0], want1)

		rs := run(t, mkOp("stablehlo.reshape", []hlo.Type{in.Type()}, []hlo.Type{tt(dt, 63, 4)}), in)[0]
		if string(rs.Data) != string(in.Data) || rs.Dims[0] != 63 {
			t.Fatal("reshape changed data")
		}
	}
	_, err := compile(mkOp("stablehlo.slice", []hlo.Type{tt(hlo.F32, 4)}, []hlo.Type{tt(hlo.F32, 2)},
		attr("start_indices", ints(3)), attr("limit_indices", ints(5)), attr("strides", ints(1))))
	if err == nil || !strings.Contains(err.Error(), "stablehlo.slice") {
		t.Fatalf("bad slice: %v", err)
	}
}

func scalarI(dt hlo.DType, v int64) *hlo.Literal {
	l := hlo.NewLiteral(dt)
	l.SetInt(0, v)
	return l
}

func TestDynamicSliceAndUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	dims := []int64{5, 6}
	sizes := []int64{2, 4}
	for _, dt := range allTypes {
		in := randLit(r, dt, dims...)
		upd := randLit(r, dt, sizes...)
		for _, st := range [][2]int64{{0, 0}, {1, 2}, {4, 5}, {-3, 9}, {3, 1}} {
			c0 := clampI(st[0], 0, dims[0]-sizes[0])
			c1 := clampI(st[1], 0, dims[1]-sizes[1])
			op := mkOp("stablehlo.dynamic_slice", []hlo.Type{in.Type(), tt(hlo.I32), tt(hlo.U64)}, []hlo.Type{tt(dt, sizes...)}, attr("slice_sizes", ints(sizes...)))
			if st[0] < 0 {
				op = mkOp("stablehlo.dynamic_slice", []hlo.Type{in.Type(), tt(hlo.I32), tt(hlo.I64)}, []hlo.Type{tt(dt, sizes...)}, attr("slice_sizes", ints(sizes...)))
			}
			i1 := scalarI(hlo.U64, st[1])
			if st[0] < 0 {
				i1 = scalarI(hlo.I64, st[1])
			}
			got := run(t, op, in, scalarI(hlo.I32, st[0]), i1)[0]
			want := hlo.NewLiteral(dt, sizes...)
			for i := 0; i < want.NumElements(); i++ {
				ri := unravel(i, sizes)
				setElem(want, i, elem(in, ravel([]int64{ri[0] + c0, ri[1] + c1}, dims)))
			}
			sameLit(t, "dynamic_slice", got, want)

			op = mkOp("stablehlo.dynamic_update_slice", []hlo.Type{in.Type(), upd.Type(), tt(hlo.I32), tt(hlo.I32)}, []hlo.Type{in.Type()})
			got = run(t, op, in, upd, scalarI(hlo.I32, st[0]), scalarI(hlo.I32, st[1]))[0]
			want = in.Clone()
			for i := 0; i < upd.NumElements(); i++ {
				ri := unravel(i, sizes)
				setElem(want, ravel([]int64{ri[0] + c0, ri[1] + c1}, dims), elem(upd, i))
			}
			sameLit(t, "dynamic_update_slice", got, want)
		}
	}
}

func TestConcatenate(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, dt := range allTypes {
		for dim := 0; dim < 3; dim++ {
			var ins []*hlo.Literal
			var types []hlo.Type
			out := []int64{2, 3, 4}
			out[dim] = 0
			for k := 0; k < 3; k++ {
				d := []int64{2, 3, 4}
				d[dim] = int64(k + 1)
				if k == 1 {
					d[dim] = 0
				}
				out[dim] += d[dim]
				l := randLit(r, dt, d...)
				ins = append(ins, l)
				types = append(types, l.Type())
			}
			op := mkOp("stablehlo.concatenate", types, []hlo.Type{tt(dt, out...)}, attr("dimension", hlo.IntAttr{Value: int64(dim)}))
			got := run(t, op, ins...)[0]
			want := hlo.NewLiteral(dt, out...)
			for i := 0; i < want.NumElements(); i++ {
				ri := unravel(i, out)
				k := 0
				for ri[dim] >= ins[k].Dims[dim] {
					ri[dim] -= ins[k].Dims[dim]
					k++
				}
				setElem(want, i, elem(ins[k], ravel(ri, ins[k].Dims)))
			}
			sameLit(t, "concatenate", got, want)
		}
	}
}

func TestPad(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cases := []struct{ in, lo, hi, interior []int64 }{
		{[]int64{5, 4}, []int64{1, -1}, []int64{1, -1}, []int64{0, 1}},
		{[]int64{3}, []int64{2}, []int64{3}, []int64{2}},
		{[]int64{4, 3}, []int64{-2, 0}, []int64{-3, -2}, []int64{1, 0}},
		{[]int64{0, 2}, []int64{1, 1}, []int64{1, 0}, []int64{3, 0}},
		{[]int64{3, 3}, []int64{-7, 0}, []int64{4, 0}, []int64{0, 0}},
	}
	for _, dt := range allTypes {
		for _, c := range cases {
			in := randLit(r, dt, c.in...)
			pv := randLit(r, dt)
			out := make([]int64, len(c.in))
			for d := range out {
				out[d] = c.lo[d] + c.hi[d] + c.in[d]
				if c.in[d] > 0 {
					out[d] += (c.in[d] - 1) * c.interior[d]
				}
			}
			op := mkOp("stablehlo.pad", []hlo.Type{in.Type(), pv.Type()}, []hlo.Type{tt(dt, out...)},
				attr("edge_padding_low", ints(c.lo...)), attr("edge_padding_high", ints(c.hi...)), attr("interior_padding", ints(c.interior...)))
			got := run(t, op, in, pv)[0]
			want := hlo.NewLiteral(dt, out...)
			for i := 0; i < want.NumElements(); i++ {
				setElem(want, i, pv.Data)
			}
			for i := 0; i < in.NumElements(); i++ {
				ii := unravel(i, c.in)
				for d := range ii {
					ii[d] = c.lo[d] + ii[d]*(c.interior[d]+1)
				}
				if inBounds(ii, out) {
					setElem(want, ravel(ii, out), elem(in, i))
				}
			}
			sameLit(t, "pad", got, want)

			// dynamic_pad computes the same from operands.
			dop := mkOp("stablehlo.dynamic_pad", []hlo.Type{in.Type(), pv.Type(), tt(hlo.I64, int64(len(out))), tt(hlo.I64, int64(len(out))), tt(hlo.I32, int64(len(out)))}, []hlo.Type{tt(dt, out...)})
			i32 := hlo.NewLiteral(hlo.I32, int64(len(out)))
			for d, v := range c.interior {
				i32.SetInt(d, v)
			}
			got = run(t, dop, in, pv, hlo.LiteralFromSlice(c.lo), hlo.LiteralFromSlice(c.hi), i32)[0]
			sameLit(t, "dynamic_pad", got, want)
		}
	}
	in := hlo.NewLiteral(hlo.F32, 2)
	dop := mkOp("stablehlo.dynamic_pad", []hlo.Type{in.Type(), tt(hlo.F32), tt(hlo.I64, 1), tt(hlo.I64, 1), tt(hlo.I64, 1)}, []hlo.Type{tt(hlo.F32, -1)})
	if _, err := tryRun(dop, in, hlo.NewLiteral(hlo.F32), hlo.LiteralFromSlice([]int64{0}), hlo.LiteralFromSlice([]int64{0}), hlo.LiteralFromSlice([]int64{-1})); err == nil {
		t.Fatal("negative interior padding accepted")
	}
}
