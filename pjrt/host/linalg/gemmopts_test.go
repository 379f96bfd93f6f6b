package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// gemmOptsCase runs one random product through gemm2D with every option
// and worker count and checks the promises of gemmOpts against the plain
// accumulating product into a cleared C: overwrite (C starting as NaN
// garbage) and a prepacked or kept B give the same bits, and the epilogue
// sees every element exactly once, after its final value.
func gemmOptsCase[T float](t *testing.T, kern *microKernel[T], r *rand.Rand, m, n, k int, ta, tb bool) {
	t.Helper()
	a := randMatrix[T](r, 1, m, k, ta)
	b := randMatrix[T](r, 1, k, n, tb)
	want := make([]T, m*n)
	gemm2D(kern, m, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, want, 0, n, 1, &gemmOpts[T]{}, 0)
	var kept []T
	for _, workers := range []int{1, 2, 3, 5} {
		for _, mode := range []string{"plain", "keep", "packed"} {
			c := make([]T, m*n)
			for i := range c {
				c[i] = T(math.NaN())
			}
			seen := make([]int, m*n)
			o := &gemmOpts[T]{overwrite: true}
			var mu sync.Mutex
			o.newEpi = func() (func(seg []T, flat int), func()) {
				return func(seg []T, flat int) {
					mu.Lock()
					defer mu.Unlock()
					for i := range seg {
						if seen[flat+i]++; seen[flat+i] > 1 {
							t.Errorf("m=%d n=%d k=%d workers=%d %s: element %d finished twice", m, n, k, workers, mode, flat+i)
						}
						seg[i] = seg[i]*2 + T(flat+i)
					}
				}, func() {}
			}
			switch mode {
			case "keep":
				o.keepB, o.packedB = true, make([][]T, 1)
			case "packed":
				o.packedB = [][]T{kept}
			}
			gemm2D(kern, m, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, c, 0, n, workers, o, 0)
			if mode == "keep" {
				kept = o.packedB[0]
				if len(kept) != packedBLen(k, n, kern.nr) {
					t.Fatalf("kept B has %d elements, want %d", len(kept), packedBLen(k, n, kern.nr))
				}
			}
			for i := range c {
				if seen[i] != 1 {
					t.Fatalf("m=%d n=%d k=%d workers=%d %s: epilogue saw element %d %d times", m, n, k, workers, mode, i, seen[i])
				}
				w := want[i]*2 + T(i)
				if math.Float64bits(float64(c[i])) != math.Float64bits(float64(w)) {
					t.Fatalf("%s m=%d n=%d k=%d ta=%v tb=%v workers=%d %s: c[%d] = %v, want %v", kern.name, m, n, k, ta, tb, workers, mode, i, c[i], w)
				}
			}
		}
	}
}

// TestGemmOptions draws shapes around the task-splitting thresholds (rows
// few or many against 4*workers*mr, several K slabs of 256 or of 1024
// deep kernels, ragged panels).
func TestGemmOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	sizes := []int{1, 5, 12, 13, 47, 96, 97, 150, 300}
	for iter := 0; iter < 40; iter++ {
		m := sizes[r.IntN(len(sizes))] + r.IntN(3)
		n := sizes[r.IntN(len(sizes))] + r.IntN(3)
		k := []int{0, 1, 7, 255, 256, 257, 600, 1030}[r.IntN(8)]
		ta, tb := r.IntN(2) == 0, r.IntN(2) == 0
		for _, kern := range kernelsF32() {
			gemmOptsCase(t, kern, r, m, n, k, ta, tb)
		}
		if iter%4 == 0 {
			for _, kern := range kernelsF64() {
				gemmOptsCase(t, kern, r, m, n, k, ta, tb)
			}
		}
	}
}

// TestGemmBatchEpilogue checks gemmEx's batched paths (one product per
// task, and products in turn) with overwrite and an epilogue against
// products computed one by one.
func TestGemmBatchEpilogue(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, s := range [][4]int{{9, 20, 30, 40}, {2, 200, 150, 300}, {3, 7, 300, 200}} {
		batch, m, n, k := s[0], s[1], s[2], s[3]
		kern := bestF32()
		a := randMatrix[float32](r, batch, m, k, false)
		b := randMatrix[float32](r, batch, k, n, true)
		off := make([]int, batch)
		for i := range off {
			off[i] = i * m * n
		}
		want := make([]float32, batch*m*n)
		gemm(kern, batch, m, n, k, a, b, matrix[float32]{data: want, off: off, rs: n, cs: 1})
		got := make([]float32, batch*m*n)
		for i := range got {
			got[i] = float32(math.Inf(1))
		}
		o := &gemmOpts[float32]{overwrite: true, newEpi: func() (func(seg []float32, flat int), func()) {
			return func(seg []float32, flat int) {
				for i := range seg {
					seg[i] = max(seg[i], 0)
				}
			}, func() {}
		}}
		gemmEx(kern, batch, m, n, k, a, b, matrix[float32]{data: got, off: off, rs: n, cs: 1}, o)
		for i := range want {
			want[i] = max(want[i], 0)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("batch %v: fused epilogue differs from the plain product", s)
		}
	}
}

// TestGemmRowsIndependentOfM checks that a row of C has the same bits
// whichever micro-kernel computed it: rows that fill a panel in a taller
// product are edge rows in a shorter one.
func TestGemmRowsIndependentOfM(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, kern := range kernelsF32() {
		for _, k := range []int{1, 5, 256, 300} {
			const n = 70
			tall := 36
			a := randMatrix[float32](r, 1, tall, k, false)
			b := randMatrix[float32](r, 1, k, n, r.IntN(2) == 0)
			full := make([]float32, tall*n)
			gemm2D(kern, tall, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, full, 0, n, 1, &gemmOpts[float32]{overwrite: true}, 0)
			for m := 1; m < tall; m++ {
				c := make([]float32, m*n)
				gemm2D(kern, m, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, c, 0, n, 1, &gemmOpts[float32]{overwrite: true}, 0)
				if !slices.Equal(c, full[:m*n]) {
					t.Fatalf("%s k=%d: the first %d rows differ from the same rows of a %d-row product", kern.name, k, m, tall)
				}
			}
		}
	}
}

// TestGemmAInPlace checks that reading a row-major A in place gives the
// bits of packing it (the same A given through a transposed view is
// packed).
func TestGemmAInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kern := range kernelsF32() {
		for _, s := range [][3]int{{12, 32, 1}, {13, 33, 7}, {64, 128, 784}, {100, 70, 300}, {300, 40, 513}} {
			m, n, k := s[0], s[1], s[2]
			a := randMatrix[float32](r, 1, m, k, false)
			at := matrix[float32]{data: make([]float32, len(a.data)), off: a.off, rs: 1, cs: m}
			for i := 0; i < m; i++ {
				for p := 0; p < k; p++ {
					at.data[at.off[0]+p*m+i] = a.data[a.off[0]+i*k+p]
				}
			}
			b := randMatrix[float32](r, 1, k, n, false)
			for _, workers := range []int{1, 2} {
				c1, c2 := make([]float32, m*n), make([]float32, m*n)
				gemm2D(kern, m, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, c1, 0, n, workers, &gemmOpts[float32]{overwrite: true}, 0)
				gemm2D(kern, m, n, k, at.data, at.off[0], at.rs, at.cs, b.data, b.off[0], b.rs, b.cs, c2, 0, n, workers, &gemmOpts[float32]{overwrite: true}, 0)
				if !slices.Equal(c1, c2) {
					t.Fatalf("%s %v workers=%d: A read in place differs from A packed", kern.name, s, workers)
				}
			}
		}
	}
}

// TestPackTransposedB checks the packing of a transposed B (columns
// contiguous in the source, the vector transposes on AVX-512) against
// its definition, for every slab depth up to 70 and ragged panels.
func TestPackTransposedB(t *testing.T) {
	const ld = 101
	src := make([]float32, 40*ld)
	for i := range src {
		src[i] = float32(i) + 0.5
	}
	for _, nr := range []int{32, 16} {
		for _, cols := range []int{nr, nr - 3, 1} {
			for kc := 0; kc <= 70; kc++ {
				got := make([]float32, kc*nr)
				for i := range got {
					got[i] = -1
				}
				packPanelB(got, src, 3, 1, ld, kc, cols, nr)
				for p := 0; p < kc; p++ {
					for q := 0; q < nr; q++ {
						want := float32(0)
						if q < cols {
							want = src[3+q*ld+p]
						}
						if got[p*nr+q] != want {
							t.Fatalf("nr=%d cols=%d kc=%d: dst[%d][%d] = %v, want %v", nr, cols, kc, p, q, got[p*nr+q], want)
						}
					}
				}
			}
		}
	}
}

// TestGemmColumnClaims runs products that split their columns into
// claims (A row-major and read in place, several panels per worker): a
// partial last row panel packed once for all claims, claims of one panel
// and of several, one K slab and several; the bits and the epilogue's
// once-per-element promise hold for every worker count.
func TestGemmColumnClaims(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, s := range [][3]int{
		{100, 300, 600}, // 4 edge rows, 10 panels, 3 slabs
		{12, 257, 9},    // no edge rows, a partial last panel
		{301, 520, 256}, // 1 edge row, 17 panels
		{7, 400, 300},   // only edge rows
		{64, 512, 784},  // the MLP's first layer
		{30, 200, 1100}, // 2 slabs of 550 with 1024-deep kernels
		{450, 330, 40},  // 4 row blocks: the last claims cut panels
	} {
		for _, kern := range kernelsF32() {
			if kern.fnA == nil {
				continue
			}
			gemmOptsCase(t, kern, r, s[0], s[1], s[2], false, s[0]%2 == 0)
		}
	}
}

// Claims shrink as the units run out and never go below their minimum;
// the first ones are whole column panels.
func TestColumnClaimSizes(t *testing.T) {
	for _, c := range []struct{ nPanels, rowBlocks, workers, min int }{
		{8, 1, 2, 1}, {32, 1, 2, 2}, {17, 1, 3, 1}, {64, 1, 2, 4}, {5, 1, 2, 1},
		{32, 8, 2, 1}, {17, 3, 2, 1}, {10, 7, 3, 2},
	} {
		j := &gemm2DJob[float32]{nPanels: c.nPanels, rowBlocks: c.rowBlocks, workers: c.workers, claimMin: c.min}
		units := c.nPanels * c.rowBlocks
		var sizes []int
		next := 0
		for {
			u0, u1, ok := j.claim()
			if !ok {
				break
			}
			if u0 != next || u1 <= u0 || u1 > units {
				t.Fatalf("%+v: claim [%d, %d) after %d", c, u0, u1, next)
			}
			if w := u1 - u0; w < c.min && u1 != units {
				t.Errorf("%+v: claim of %d units, below the minimum", c, w)
			}
			if u1-u0 >= c.rowBlocks && u0%c.rowBlocks != 0 {
				t.Errorf("%+v: claim [%d, %d) of a panel or more starts inside one", c, u0, u1)
			}
			sizes = append(sizes, u1-u0)
			next = u1
		}
		if next != units {
			t.Fatalf("%+v: claims end at %d", c, next)
		}
		for i := 1; i < len(sizes); i++ {
			if sizes[i] > sizes[i-1] {
				t.Errorf("%+v: claims grow: %v", c, sizes)
			}
		}
		if first := sizes[0]; c.nPanels >= 4*c.workers && first > roundUp(ceilDiv(units, c.workers), c.rowBlocks) && first > c.min {
			t.Errorf("%+v: first claim %d units of %d", c, first, units)
		}
	}
}

// Claim units split rows into blocks of whole row panels, about gemmMC
// rows each, covering every row once.
func TestClaimRows(t *testing.T) {
	for _, m := range []int{1, 11, 12, 143, 144, 145, 300, 1024, 4096} {
		for _, mr := range []int{4, 12, 16} {
			blocks, rows := claimRows(m, mr)
			if rows%mr != 0 || blocks != ceilDiv(m, rows) || (blocks-1)*rows >= m {
				t.Errorf("m=%d mr=%d: %d blocks of %d rows", m, mr, blocks, rows)
			}
			if rows > roundUp(gemmMC, mr) {
				t.Errorf("m=%d mr=%d: blocks of %d rows, above gemmMC", m, mr, rows)
			}
		}
	}
}

// TestNarrowKernelBits checks that a kernel's narrow variant, which
// dot_general picks for products of few columns, gives its wide kernel's
// bits: A in place or packed, B either way, with edge rows and several
// K slabs, on one worker or two.
func TestNarrowKernelBits(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 16))
	for _, kern := range kernelsF32() {
		nk := kern.narrow
		if nk == nil {
			continue
		}
		if kern.forColumns(nk.nr) != nk || kern.forColumns(nk.nr+1) != kern {
			t.Fatalf("%s: forColumns does not pick %s up to %d columns only", kern.name, nk.name, nk.nr)
		}
		for _, m := range []int{1, 5, 12, 13, 64, 100} {
			for _, n := range []int{1, 10, 16, 40} {
				for _, k := range []int{1, 7, 256, 513, 1100} {
					ta, tb := r.IntN(2) == 0, r.IntN(2) == 0
					a := randMatrix[float32](r, 1, m, k, ta)
					b := randMatrix[float32](r, 1, k, n, tb)
					for _, workers := range []int{1, 2} {
						want, got := make([]float32, m*n), make([]float32, m*n)
						gemm2D(kern, m, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, want, 0, n, workers, &gemmOpts[float32]{overwrite: true}, 0)
						gemm2D(nk, m, n, k, a.data, a.off[0], a.rs, a.cs, b.data, b.off[0], b.rs, b.cs, got, 0, n, workers, &gemmOpts[float32]{overwrite: true}, 0)
						if !slices.Equal(got, want) {
							t.Fatalf("%s m=%d n=%d k=%d ta=%v tb=%v workers=%d: differs from %s", nk.name, m, n, k, ta, tb, workers, kern.name)
						}
					}
				}
			}
		}
	}
}
