package lazy

import (
	"fmt"
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func TestOpsCreate(t *testing.T) {
	for _, dt := range []DType{F32, F64, I32, I64, U8, Bool} {
		fill := func(v float64, dims ...int64) nd {
			a := newND(dims...)
			for i := range a.v {
				a.v[i] = v
			}
			return a
		}
		v := 3.0
		if dt == Bool {
			v = 1
		}
		expectT(t, "Full/"+dt.String(), Full(dt, v, 2, 3), dt, fill(v, 2, 3), exact)
		expectT(t, "Full/scalar/"+dt.String(), Full(dt, v), dt, fill(v), exact)
		expectT(t, "Scalar/"+dt.String(), Scalar(dt, v), dt, fill(v), exact)
		expectT(t, "Zeros/"+dt.String(), Zeros(dt, 4), dt, fill(0, 4), exact)
		expectT(t, "Ones/"+dt.String(), Ones(dt, 1, 2, 2), dt, fill(1, 1, 2, 2), exact)
		x := mkT(seqND(2, 2), dt)
		expectT(t, "ZerosLike/"+dt.String(), ZerosLike(x), dt, fill(0, 2, 2), exact)
		expectT(t, "OnesLike/"+dt.String(), OnesLike(x), dt, fill(1, 2, 2), exact)
	}
	// Full rounds to the dtype; Constant holds a literal as is.
	expectT(t, "Full/round", Full(F32, 0.1, 2), F32, ndOf([]float64{float64(float32(0.1)), float64(float32(0.1))}, 2), exact)
	l := hlo.LiteralFromSlice([]int64{5, -6, 7, math.MaxInt64}, 2, 2)
	c := Constant(l)
	if got := c.Int64s(); got[3] != math.MaxInt64 || got[1] != -6 || c.DType() != I64 {
		t.Errorf("Constant: %v %s", got, c.DType())
	}
}

func TestOpsIota(t *testing.T) {
	for _, dt := range []DType{F32, F64, I32, I64, U8} {
		for axis := 0; axis < 3; axis++ {
			want := gen([]int64{2, 3, 4}, func(i []int64) float64 { return float64(i[axis]) })
			expectT(t, fmt.Sprintf("Iota/%s/%d", dt, axis), Iota(dt, axis, 2, 3, 4), dt, want, exact)
		}
	}
}

func TestOpsArange(t *testing.T) {
	cases := []struct {
		dt                DType
		start, stop, step float64
	}{
		{F32, 0, 5, 1},
		{F64, 1, 2, 0.25},
		{F32, 3, -1, -0.5},
		{F64, 0, 1, 0.1}, // 10 elements, not 11
		{I32, 2, 11, 3},
		{I64, -4, 4, 1},
		{F32, 5, 5, 1}, // empty
		{I64, -1, 2, 1},
		{F16, 3000, 3010, 1},   // above 2048: f16 iota would lose integers
		{BF16, 250, 300, 10},   // above 256 for bf16
		{F32, 1e8, 1e8 + 4, 1}, // rounds to f32 once
	}
	for _, c := range cases {
		var want []float64
		for i := 0; ; i++ {
			v := c.start + float64(i)*c.step
			if (c.step > 0 && v >= c.stop) || (c.step < 0 && v <= c.stop) {
				break
			}
			want = append(want, v)
		}
		w := ndOf(want, int64(len(want)))
		w = mapND(w, func(v float64) float64 { return literalOf(ndOf([]float64{v}, 1), c.dt).Float(0) })
		expectT(t, fmt.Sprintf("Arange/%s/%v:%v:%v", c.dt, c.start, c.stop, c.step), Arange(c.dt, c.start, c.stop, c.step), c.dt, w,
			ulpsTol(c.dt, 2, math.Abs(c.start)+math.Abs(c.stop)))
	}
}

// moments returns the mean and the (population) variance.
func moments(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v))
}

func TestOpsRandUniform(t *testing.T) {
	const n = 20000
	ManualSeed(1)
	for _, dt := range []DType{F32, F64, F16, BF16} {
		for _, r := range [][2]float64{{0, 1}, {-2, 3}, {-1, 0}} {
			lo, hi := r[0], r[1]
			x := RandUniform(dt, lo, hi, 200, n/200)
			if x.DType() != dt || !sameDims(x.Dims(), []int64{200, n / 200}) {
				t.Fatalf("RandUniform: shape %s", x.Shape())
			}
			v := x.Float64s()
			below := 0
			for _, e := range v {
				if !(e >= lo && e < hi) {
					t.Fatalf("RandUniform/%s[%v,%v): value %v out of range", dt, lo, hi, e)
				}
				if e < (lo+hi)/2 {
					below++
				}
			}
			// Mean (hi-lo)²/12 variance: checked within 5 standard errors
			// (plus the dtype's rounding of each value for f16/bf16).
			m, vr := moments(v)
			w := hi - lo
			sdMean := w / math.Sqrt(12*n)
			if math.Abs(m-(lo+hi)/2) > 5*sdMean+unit(dt)*w {
				t.Errorf("RandUniform/%s: mean %v, want %v", dt, m, (lo+hi)/2)
			}
			// Var of (u-mean)² for a uniform is w⁴/180.
			if sdVar := w * w / math.Sqrt(180*n); math.Abs(vr-w*w/12) > 5*sdVar+2*unit(dt)*w*w {
				t.Errorf("RandUniform/%s: variance %v, want %v", dt, vr, w*w/12)
			}
			if d := math.Abs(float64(below) - n/2); d > 5*math.Sqrt(n/4) {
				t.Errorf("RandUniform/%s: %d of %d below the midpoint", dt, below, n)
			}
		}
	}
}

func TestOpsRandN(t *testing.T) {
	const n = 20000
	ManualSeed(2)
	for _, dt := range []DType{F32, F64, BF16} {
		v := RandN(dt, n).Float64s()
		m, vr := moments(v)
		within1 := 0
		for _, e := range v {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				t.Fatalf("RandN/%s: %v", dt, e)
			}
			if math.Abs(e) < 1 {
				within1++
			}
		}
		if math.Abs(m) > 5/math.Sqrt(n)+unit(dt) {
			t.Errorf("RandN/%s: mean %v", dt, m)
		}
		// Var of x² for a standard normal is 2.
		if math.Abs(vr-1) > 5*math.Sqrt(2.0/n)+4*unit(dt) {
			t.Errorf("RandN/%s: variance %v", dt, vr)
		}
		p := math.Erf(1 / math.Sqrt2)
		if d := math.Abs(float64(within1)/n - p); d > 5*math.Sqrt(p*(1-p)/n)+unit(dt) {
			t.Errorf("RandN/%s: P(|x|<1) = %v, want %v", dt, float64(within1)/n, p)
		}
	}
}

func TestOpsManualSeed(t *testing.T) {
	ManualSeed(42)
	a := RandN(F32, 64).Float32s()
	b := RandUniform(F64, 0, 1, 8).Float64s()
	ManualSeed(42)
	a2 := RandN(F32, 64).Float32s()
	b2 := RandUniform(F64, 0, 1, 8).Float64s()
	c := RandN(F32, 64).Float32s()
	for i := range a {
		if a[i] != a2[i] {
			t.Fatalf("ManualSeed: draw %d differs after reseeding: %v vs %v", i, a[i], a2[i])
		}
	}
	for i := range b {
		if b[i] != b2[i] {
			t.Fatalf("ManualSeed: second draw %d differs after reseeding", i)
		}
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 2 {
		t.Errorf("consecutive draws repeat: %d of %d equal", same, len(a))
	}
	ManualSeed(43)
	d := RandN(F32, 64).Float32s()
	same = 0
	for i := range a {
		if a[i] == d[i] {
			same++
		}
	}
	if same > 2 {
		t.Errorf("seeds 42 and 43 give the same draws (%d of %d equal)", same, len(a))
	}
}

func TestLargestBelow(t *testing.T) {
	cases := []struct {
		dt       DType
		hi, want float64
	}{
		{F64, 1, math.Nextafter(1, 0)},
		{F32, 1, float64(math.Nextafter32(1, 0))},
		{F32, 0.1, float64(math.Nextafter32(float32(0.1), 0))}, // float32(0.1) > 0.1
		{F32, 0.7, float64(float32(0.7))},                      // float32(0.7) < 0.7
		{F16, 1, 1 - 0x1p-11},
		{BF16, 3, 3 - 0x1p-6},
		{F16, -2, -2 - 0x1p-9},
		{F32, 0, -float64(math.SmallestNonzeroFloat32)},
	}
	for _, c := range cases {
		if got := largestBelow(c.dt, c.hi); got != c.want {
			t.Errorf("largestBelow(%s, %v) = %v, want %v", c.dt, c.hi, got, c.want)
		}
	}
}

// A cut that computes random numbers also computes the RNG state they
// advanced, so the next random op starts from device data instead of
// drawing every earlier number again.
func TestRandomCutsComputeTheState(t *testing.T) {
	ManualSeed(5)
	if err := Sync(DefaultDevice().RNGState()); err != nil {
		t.Fatal(err)
	}
	first := 0
	for i := 0; i < 4; i++ {
		x := RandN(F32, 64, 64)
		g := CollectGraph([]Value{x.IR()})
		rng := 0
		for _, n := range g.Nodes {
			if n.Op().Name == "RngBits" {
				rng++
			}
		}
		if i == 0 {
			first = rng
		}
		if rng != first {
			t.Fatalf("draw %d: the graph of a random tensor draws %d times, the first %d", i, rng, first)
		}
		if err := Sync(x); err != nil {
			t.Fatal(err)
		}
	}
}
