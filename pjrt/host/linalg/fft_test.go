package linalg_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func fftAttrs(typ string, length ...int64) []hlo.NamedAttr {
	return []hlo.NamedAttr{
		{Name: "fft_type", Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: "fft_type", Value: typ}},
		{Name: "fft_length", Value: &hlo.DenseArrayAttr{DType: hlo.I64, Ints: length}},
	}
}

// refDFT is the textbook multi-dimensional DFT over the trailing len(length)
// axes of x (shape dims), sign -1 forward, +1 inverse (unnormalised),
// computed per output element with exactly reduced angles.
func refDFT(x []complex128, dims []int64, L int, sign float64) []complex128 {
	r := len(dims)
	out := make([]complex128, len(x))
	tdims := dims[r-L:]
	nt := int(hlo.NumElements(tdims))
	for o := range out {
		oi := unravel(o, dims)
		ii := append([]int64(nil), oi...)
		var s complex128
		for t := 0; t < nt; t++ {
			ti := unravel(t, tdims)
			phase := 0.0
			for d := 0; d < L; d++ {
				n := tdims[d]
				phase += float64((oi[r-L+d]*ti[d])%n) / float64(n)
				ii[r-L+d] = ti[d]
			}
			sn, cs := math.Sincos(2 * math.Pi * phase)
			s += x[ravel(ii, dims)] * complex(cs, sign*sn)
		}
		out[o] = s
	}
	return out
}

func TestFFT1DLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := int64(1); n <= 70; n++ {
		testFFTCase(t, r, hlo.C128, []int64{2, n}, 1)
	}
	for _, n := range []int64{97, 128, 120, 127, 256, 243, 3 * 67} {
		testFFTCase(t, r, hlo.C128, []int64{n}, 1)
	}
}

func TestFFTMultiDim(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []hlo.DType{hlo.C64, hlo.C128} {
		testFFTCase(t, r, dt, []int64{3, 4, 6}, 2)
		testFFTCase(t, r, dt, []int64{2, 5, 3, 8}, 3)
		testFFTCase(t, r, dt, []int64{7, 9}, 2)
		testFFTCase(t, r, dt, []int64{2, 0, 5}, 1)
	}
}

func testFFTCase(t *testing.T, r *rand.Rand, dt hlo.DType, dims []int64, L int) {
	t.Helper()
	x := randLiteral(r, dt, dims...)
	xs := make([]complex128, x.NumElements())
	for i := range xs {
		xs[i] = x.Complex(i)
	}
	length := dims[len(dims)-L:]
	tol := 1e-12
	if dt == hlo.C64 {
		tol = 2e-5
	}
	n := float64(hlo.NumElements(length))
	for _, typ := range []string{"FFT", "IFFT"} {
		got := mustRun(t, "stablehlo.fft", []*hlo.Literal{x}, []hlo.Type{tt(dt, dims...)}, fftAttrs(typ, length...)...)[0]
		sign := -1.0
		if typ == "IFFT" {
			sign = 1
		}
		want := refDFT(xs, dims, L, sign)
		if typ == "IFFT" {
			for i := range want {
				want[i] /= complex(n, 0)
			}
		}
		closeTo(t, fmt.Sprintf("%s %s %v", typ, dt, dims), got, want, nil, tol*math.Sqrt(n), tol)
	}
}

func TestRFFTAndIRFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []hlo.DType{hlo.F32, hlo.F64} {
		cdt := hlo.ComplexOf(dt)
		tol := 1e-12
		if dt == hlo.F32 {
			tol = 2e-5
		}
		for _, c := range []struct {
			dims []int64
			L    int
		}{{[]int64{4}, 1}, {[]int64{3, 17}, 1}, {[]int64{2, 4, 4}, 2}, {[]int64{2, 2, 4}, 3}, {[]int64{3, 5, 6, 7}, 3}, {[]int64{2, 1}, 1}, {[]int64{2, 0, 17}, 1}, {[]int64{4, 33}, 1}, {[]int64{2, 3, 16, 32}, 3}} {
			dims := c.dims
			r0 := len(dims)
			length := dims[r0-c.L:]
			x := randLiteral(r, dt, dims...)
			odims := append([]int64(nil), dims...)
			odims[r0-1] = dims[r0-1]/2 + 1
			got := mustRun(t, "stablehlo.fft", []*hlo.Literal{x}, []hlo.Type{tt(cdt, odims...)}, fftAttrs("RFFT", length...)...)[0]
			xs := make([]complex128, x.NumElements())
			for i := range xs {
				xs[i] = x.Complex(i)
			}
			full := refDFT(xs, dims, c.L, -1)
			var want []complex128
			for i := range full {
				idx := unravel(i, dims)
				if idx[r0-1] < odims[r0-1] {
					want = append(want, full[i])
				}
			}
			n := float64(hlo.NumElements(length))
			closeTo(t, fmt.Sprintf("RFFT %s %v", dt, dims), got, want, nil, tol*math.Sqrt(n), tol)

			// IRFFT of the half spectrum gives x back.
			back := mustRun(t, "stablehlo.fft", []*hlo.Literal{got}, []hlo.Type{tt(dt, dims...)}, fftAttrs("IRFFT", length...)...)[0]
			closeTo(t, fmt.Sprintf("IRFFT %s %v", dt, dims), back, xs, nil, 10*tol, 0)
		}
	}
}

func TestIRFFTIgnoresDCAndNyquistImaginary(t *testing.T) {
	// Imaginary parts of the DC and Nyquist terms do not reach the output.
	spec := hlo.LiteralFromSlice([]complex128{10 + 7i, -2 + 2i, -2 - 5i}, 3)
	got := mustRun(t, "stablehlo.fft", []*hlo.Literal{spec}, []hlo.Type{tt(hlo.F64, 4)}, fftAttrs("IRFFT", 4)...)[0]
	closeTo(t, "irfft", got, []complex128{1, 2, 3, 4}, nil, 1e-12, 0)
}

func TestFFTSpecExamples(t *testing.T) {
	x := hlo.LiteralFromSlice([]complex128{1 + 2i, 3 - 4i, -5 + 6i, -7 - 8i}, 2, 2)
	got := mustRun(t, "stablehlo.fft", []*hlo.Literal{x}, []hlo.Type{tt(hlo.C128, 2, 2)}, fftAttrs("FFT", 2, 2)...)[0]
	closeTo(t, "fft 2d", got, []complex128{-8 - 4i, 20i, 16, -4 - 8i}, nil, 1e-12, 0)
	y := hlo.LiteralFromSlice([]float64{1, 2, 3, 4}, 4)
	got = mustRun(t, "stablehlo.fft", []*hlo.Literal{y}, []hlo.Type{tt(hlo.C128, 3)}, fftAttrs("RFFT", 4)...)[0]
	closeTo(t, "rfft", got, []complex128{10, -2 + 2i, -2}, nil, 1e-12, 0)
}
