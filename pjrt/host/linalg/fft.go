package linalg

import (
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.fft", Compile: compileFFT, Fresh: true})
}

// fftOp is a compiled fft: transforms over the trailing len(length)
// dimensions, computed in complex128.
type fftOp struct {
	typ    string
	length []int64
	in, ot *hlo.TensorType
}

func compileFFT(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("expects 1 operand, has %d", len(c.In))
	}
	it, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	ot, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	typ, err := enumAttr(c, "fft_type", "")
	if err != nil {
		return nil, err
	}
	length, err := intsAttr(c, "fft_length", nil)
	if err != nil {
		return nil, err
	}
	L := len(length)
	if L < 1 || L > 3 || L > it.Rank() {
		return nil, c.Errorf("fft_length %v must have 1 to 3 entries, at most rank(operand %s)", length, it.ShapeString())
	}
	for _, n := range length {
		if n < 0 {
			return nil, c.Errorf("fft_length %v must not be negative", length)
		}
	}
	r := it.Rank()
	want := append([]int64(nil), it.Dims...)
	last := length[L-1]
	half := int64(0)
	if last > 0 {
		half = last/2 + 1
	}
	var inOK, outOK bool
	switch typ {
	case "FFT", "IFFT":
		inOK, outOK = it.DType.IsComplex(), ot.DType == it.DType
		if !dimsEqual(it.Dims[r-L:], length) {
			return nil, c.Errorf("operand %s: trailing dimensions must equal fft_length %v", it.ShapeString(), length)
		}
	case "RFFT":
		inOK = it.DType == hlo.F32 || it.DType == hlo.F64
		outOK = ot.DType == hlo.ComplexOf(it.DType)
		if !dimsEqual(it.Dims[r-L:], length) {
			return nil, c.Errorf("operand %s: trailing dimensions must equal fft_length %v", it.ShapeString(), length)
		}
		want[r-1] = half
	case "IRFFT":
		inOK = it.DType.IsComplex()
		outOK = ot.DType == it.DType.ComplexPart()
		copy(want[r-L:], length)
		if !dimsEqual(it.Dims[r-L:r-1], length[:L-1]) || it.Dims[r-1] != half {
			return nil, c.Errorf("operand %s does not fit IRFFT of length %v (last dimension must be %d)", it.ShapeString(), length, half)
		}
	default:
		return nil, c.Errorf("unknown fft_type %q", typ)
	}
	if !inOK || !outOK {
		return nil, c.Errorf("%s from %s to %s: wrong element types", typ, it.ShapeString(), ot.ShapeString())
	}
	if !dimsEqual(want, ot.Dims) {
		return nil, c.Errorf("%s of %s with length %v gives dims %v, not result %s", typ, it.ShapeString(), length, want, ot.ShapeString())
	}
	f := &fftOp{typ: typ, length: length, in: it, ot: ot}
	for _, n := range length {
		// A plan holds a few tables of n complex128 (Bluestein's of 4n).
		if err := c.CheckAlloc(hlo.C128, []int64{n, 8}); err != nil {
			return nil, err
		}
		planFFT(int(n)) // build (and cache) plans at compile time
	}
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		l, err := argLiteral(c, args, 0)
		if err != nil {
			return err
		}
		results[0] = f.run(x, l)
		return nil
	}, nil
}

func (f *fftOp) run(x *kernel.Ctx, l *hlo.Literal) *hlo.Literal {
	out := x.NewLiteralUninit(f.ot.DType, f.ot.Dims)
	if out.NumElements() == 0 {
		return out
	}
	L := len(f.length)
	r := len(f.in.Dims)
	switch f.typ {
	case "FFT", "IFFT":
		data := append([]complex128(nil), toC128(l)...)
		inv := f.typ == "IFFT"
		for a := r - 1; a >= r-L; a-- {
			transformAxis(data, f.in.Dims, a, inv)
		}
		storeC128(out, data)
	case "RFFT":
		// Real-to-complex along the last axis, keeping n/2+1 outputs,
		// then complex transforms along the others.
		src := toF64(l)
		n := int(f.length[L-1])
		dims := f.ot.Dims
		h := int(dims[r-1])
		data := make([]complex128, out.NumElements())
		lines := len(src) / n
		plan := planFFT(n)
		kernel.ParallelFor(lines, max(1, 2048/max(n, 1)), func(lo, hi int) {
			buf := make([]complex128, 2*n)
			x, y := buf[:n], buf[n:]
			for li := lo; li < hi; li++ {
				for j, v := range src[li*n : (li+1)*n] {
					x[j] = complex(v, 0)
				}
				plan.forward(y, x)
				copy(data[li*h:(li+1)*h], y[:h])
			}
		})
		for a := r - 2; a >= r-L; a-- {
			transformAxis(data, dims, a, false)
		}
		storeC128(out, data)
	case "IRFFT":
		data := append([]complex128(nil), toC128(l)...)
		for a := r - 2; a >= r-L; a-- {
			transformAxis(data, f.in.Dims, a, true)
		}
		n := int(f.length[L-1])
		h := int(f.in.Dims[r-1])
		lines := len(data) / h
		res := make([]float64, out.NumElements())
		plan := planFFT(n)
		scale := 1 / float64(n)
		kernel.ParallelFor(lines, max(1, 2048/max(n, 1)), func(lo, hi int) {
			buf := make([]complex128, 3*n)
			x, y, tmp := buf[:n], buf[n:2*n], buf[2*n:]
			for li := lo; li < hi; li++ {
				in := data[li*h : (li+1)*h]
				// The full Hermitian spectrum; the imaginary parts of the DC
				// and Nyquist terms drop out with the real part below.
				copy(x, in)
				for k := h; k < n; k++ {
					v := in[n-k]
					x[k] = complex(real(v), -imag(v))
				}
				plan.inverse(y, x, tmp)
				for j := 0; j < n; j++ {
					res[li*n+j] = real(y[j]) * scale
				}
			}
		})
		if out.DType == hlo.F64 {
			copy(out.F64(), res)
		} else {
			d := out.F32()
			for i, v := range res {
				d[i] = float32(v)
			}
		}
	}
	return out
}

// transformAxis applies the 1-D DFT (or the normalised inverse) along axis
// a of the row-major complex array data of shape dims, in place.
func transformAxis(data []complex128, dims []int64, a int, inverse bool) {
	n := int(dims[a])
	if n <= 1 && !inverse || len(data) == 0 {
		return
	}
	stride := 1
	for _, d := range dims[a+1:] {
		stride *= int(d)
	}
	outer := len(data) / (n * stride)
	lines := outer * stride
	plan := planFFT(n)
	scale := complex(1/float64(n), 0)
	kernel.ParallelFor(lines, max(1, 2048/max(n, 1)), func(lo, hi int) {
		buf := make([]complex128, 3*n)
		x, y, tmp := buf[:n], buf[n:2*n], buf[2*n:]
		for li := lo; li < hi; li++ {
			o, i := li/stride, li%stride
			base := o*n*stride + i
			for j := 0; j < n; j++ {
				x[j] = data[base+j*stride]
			}
			if inverse {
				plan.inverse(y, x, tmp)
				for j := 0; j < n; j++ {
					data[base+j*stride] = y[j] * scale
				}
			} else {
				plan.forward(y, x)
				for j := 0; j < n; j++ {
					data[base+j*stride] = y[j]
				}
			}
		}
	})
}
