package lazy

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// The host-only ops run at once (their output shape depends on the data);
// each run counts HostFallback.<op>.

func TestOpsNonZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []nd{
		ndOf([]float64{0, 1, 0, 2, negZero, 0, math.NaN(), 0, 3}, 3, 3),
		ndOf([]float64{0, 0, 5, 0}, 4),
		ndOf([]float64{0, 0, 0, 0}, 2, 2),
		ndOf([]float64{7}),
		ndOf([]float64{0}),
		newND(0, 3),
	}
	for _, dt := range []DType{F32, F64, I32, Bool} {
		for _, c := range cases {
			x, xv := mk(c, dt)
			var coords []float64
			n := int64(0)
			for i, v := range xv.v {
				if v != 0 { // NaN is non-zero, -0 is zero
					coords = append(coords, func() []float64 {
						idx := unflat(xv.dims, i)
						out := make([]float64, len(idx))
						for k, v := range idx {
							out[k] = float64(v)
						}
						return out
					}()...)
					n++
				}
			}
			want := ndOf(coords, n, int64(xv.rank()))
			before := Counter(MetricHostFallbackPrefix + "NonZero")
			expectT(t, fmt.Sprintf("NonZero/%s/%v", dt, c.dims), x.NonZero(), I64, want, exact)
			if Counter(MetricHostFallbackPrefix+"NonZero") != before+1 {
				t.Errorf("NonZero did not count a host fallback")
			}
		}
	}
}

func TestOpsUnique(t *testing.T) {
	cases := []struct {
		dt DType
		in nd
	}{
		{F32, ndOf([]float64{3, 1, 2, 3, 1, -5, 0, 2}, 2, 4)},
		{F64, ndOf([]float64{math.NaN(), 1, math.NaN(), -1, 1, math.Inf(1)}, 6)},
		{I32, ndOf([]float64{4, -2, 4, 4, 0, -2}, 3, 2)},
		{I64, ndOf([]float64{9, 9, 9}, 3)},
		{Bool, ndOf([]float64{1, 0, 1}, 3)},
		{F32, newND(0)},
	}
	for _, c := range cases {
		x, xv := mk(c.in, c.dt)
		// numpy: sorted, NaN last and kept once.
		vals := append([]float64{}, xv.v...)
		sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] || !math.IsNaN(vals[i]) && math.IsNaN(vals[j]) })
		var want []float64
		for i, v := range vals {
			if i == 0 || !(v == vals[i-1] || math.IsNaN(v) && math.IsNaN(vals[i-1])) {
				want = append(want, v)
			}
		}
		expectT(t, fmt.Sprintf("Unique/%s/%v", c.dt, c.in.v), x.Unique(), c.dt, ndOf(want, int64(len(want))), exact)
	}
	// Unsigned values above 2^63 order as unsigned.
	l := hlo.LiteralFromSlice([]uint64{1 << 63, 5, math.MaxUint64, 5})
	got := FromLiteral(l).Unique()
	gl, err := got.Literal()
	if err != nil {
		t.Fatal(err)
	}
	if u := gl.U64(); len(u) != 3 || u[0] != 5 || u[1] != 1<<63 || u[2] != math.MaxUint64 {
		t.Errorf("Unique/u64 = %v, want [5 2^63 2^64-1]", u)
	}
}

func TestOpsMaskedSelect(t *testing.T) {
	for _, dt := range []DType{F32, F64, I32, I64, U8} {
		x, xv := mk(seqND(3, 4), dt)
		m := randInts(newRand(50), 0, 2, 3, 4)
		var want []float64
		for i, v := range m.v {
			if v != 0 {
				want = append(want, xv.v[i])
			}
		}
		expectT(t, "MaskedSelect/"+dt.String(), x.MaskedSelect(mkT(m, Bool)), dt, ndOf(want, int64(len(want))), exact)
	}
	expectT(t, "MaskedSelect/none", mkT(seqND(2), F32).MaskedSelect(mkT(newND(2), Bool)), F32, newND(0), exact)
}

func TestOpsHostFunc(t *testing.T) {
	fn := func(in []*hlo.Literal) ([]*hlo.Literal, error) {
		a, b := in[0], in[1]
		sum := hlo.NewLiteral(F64, a.Dims...)
		for i := 0; i < a.NumElements(); i++ {
			sum.SetFloat(i, a.Float(i)+2*b.Float(i))
		}
		cnt := hlo.LiteralFromSlice([]int32{int32(a.NumElements())})
		return []*hlo.Literal{sum, cnt}, nil
	}
	a, av := mk(seqND(2, 3), F64)
	b, bv := mk(mapND(seqND(2, 3), func(v float64) float64 { return v / 4 }), F64)
	// Pending inputs are computed first.
	outs := HostFunc("test.sum2", fn, NewShape(F64, 2, 3), NewShape(I32, 1))(a.MulScalar(2), b)
	want := zipND(mapND(av, func(v float64) float64 { return 2 * v }), bv, func(x, y float64) float64 { return x + 2*y })
	expectT(t, "HostFunc/0", outs[0], F64, want, exact)
	expectT(t, "HostFunc/1", outs[1], I32, ndOf([]float64{6}, 1), exact)
	// The results are ordinary tensors: ops can follow.
	expectT(t, "HostFunc/then", outs[0].Sum(), F64, ndOf([]float64{refReduce(want, []int{0, 1}, 0, func(a, x float64) float64 { return a + x }).v[0]}), exact)

	// A result of the wrong shape, or a failing function, is an *Error naming HostFunc.
	err := Try(func() { HostFunc("test.bad", fn, NewShape(F64, 3, 2), NewShape(I32, 1))(a, b) })
	var le *Error
	if !errors.As(err, &le) || le.Op != "HostFunc" {
		t.Errorf("wrong declared shape: %v", err)
	}
	boom := errors.New("boom")
	err = Try(func() {
		HostFunc("test.fail", func([]*hlo.Literal) ([]*hlo.Literal, error) { return nil, boom })(a)
	})
	if !errors.As(err, &le) || le.Op != "HostFunc" {
		t.Errorf("failing function: %v", err)
	}
}
