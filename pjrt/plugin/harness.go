package plugin

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// The differential harness runs one program on a reference client (the
// embedded device) and on a device under test (a plugin) with the same
// arguments and compares the results.

// Tolerance bounds |got-want| <= ATol + RTol*|want| for floating types;
// integers and booleans must be equal.
type Tolerance struct{ RTol, ATol float64 }

// DefaultTolerance is loose enough for a GPU's legitimately different
// float results (other reduction orders, fused multiply-adds, faster
// transcendental approximations) and tight enough to catch a wrong op.
func DefaultTolerance(dt hlo.DType) Tolerance {
	switch dt {
	case hlo.F64, hlo.C128:
		return Tolerance{RTol: 1e-9, ATol: 1e-12}
	case hlo.F32, hlo.C64, hlo.TF32:
		return Tolerance{RTol: 1e-4, ATol: 1e-5}
	case hlo.F16, hlo.BF16:
		return Tolerance{RTol: 1e-2, ATol: 1e-3}
	}
	if dt.IsFloat() { // f8, f6, f4: a couple of steps of their few bits
		return Tolerance{RTol: 0.25, ATol: 1e-2}
	}
	return Tolerance{}
}

// OutputDiff describes one output that differs.
type OutputDiff struct {
	Output         int
	Msg            string
	MaxAbs, MaxRel float64
}

// DiffResult is the outcome of one differential run.
type DiffResult struct {
	Outputs int
	Diffs   []OutputDiff
	// RefErr and DUTErr are compile or run errors of either side; the
	// outputs are compared only when both are nil.
	RefErr, DUTErr error
}

// OK reports that both sides ran and agree.
func (r *DiffResult) OK() bool { return r.RefErr == nil && r.DUTErr == nil && len(r.Diffs) == 0 }

// Differential compiles m on ref and dut, runs it with args on device 0 of
// each and compares the outputs. tol may be nil (DefaultTolerance).
func Differential(ref, dut pjrt.Client, m *hlo.Module, args []*hlo.Literal, tol func(hlo.DType) Tolerance) *DiffResult {
	want, errRef := RunOnce(ref, m, args)
	got, errDUT := RunOnce(dut, m, args)
	return CompareOutputs(got, want, errDUT, errRef, tol)
}

// CompareOutputs compares the outputs of the device under test with the
// reference's, given the errors each side had. tol may be nil.
func CompareOutputs(got, want []*hlo.Literal, errDUT, errRef error, tol func(hlo.DType) Tolerance) *DiffResult {
	if tol == nil {
		tol = DefaultTolerance
	}
	res := &DiffResult{RefErr: errRef, DUTErr: errDUT}
	if errRef != nil || errDUT != nil {
		return res
	}
	res.Outputs = len(want)
	if len(got) != len(want) {
		res.Diffs = append(res.Diffs, OutputDiff{Output: -1, Msg: fmt.Sprintf("%d outputs, reference has %d", len(got), len(want))})
		return res
	}
	for i := range want {
		if d := CompareLiterals(got[i], want[i], tol(want[i].DType)); d != nil {
			d.Output = i
			res.Diffs = append(res.Diffs, *d)
		}
	}
	return res
}

// RunOnce compiles m on c, runs it on device 0 with args and returns the
// outputs on the host; every buffer is freed.
func RunOnce(c pjrt.Client, m *hlo.Module, args []*hlo.Literal) (outs []*hlo.Literal, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	exe, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		return nil, err
	}
	defer exe.Close()
	bufs := make([]pjrt.Buffer, len(args))
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Delete()
			}
		}
	}()
	for i, a := range args {
		if bufs[i], err = c.BufferFromHost(a, 0); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
	}
	res, err := exe.Execute(bufs, pjrt.ExecuteOptions{})
	if err != nil {
		return nil, err
	}
	for i, b := range res {
		l, err := b.ToHost()
		b.Delete()
		if err != nil {
			for _, r := range res[i+1:] {
				r.Delete()
			}
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		outs = append(outs, l)
	}
	return outs, nil
}

// CompareLiterals compares got with want: types and shapes must match,
// integers and booleans exactly, floats within tol (NaN matches NaN,
// infinities must match exactly). It returns nil when they agree.
func CompareLiterals(got, want *hlo.Literal, tol Tolerance) *OutputDiff {
	if got.DType != want.DType || !sameDims(got.Dims, want.Dims) {
		return &OutputDiff{Msg: fmt.Sprintf("got %s, reference %s", got.ShapeString(), want.ShapeString())}
	}
	dt := want.DType
	n := want.NumElements()
	d := &OutputDiff{}
	bad, first := 0, -1
	for i := 0; i < n; i++ {
		var ok bool
		switch {
		case dt.IsFloat() || dt.IsComplex():
			var abs, rel float64
			ok, abs, rel = closeEnough(got.Complex(i), want.Complex(i), tol)
			d.MaxAbs, d.MaxRel = math.Max(d.MaxAbs, abs), math.Max(d.MaxRel, rel)
		case dt.IsUnsigned():
			ok = got.Uint(i) == want.Uint(i)
		default:
			ok = got.Int(i) == want.Int(i)
		}
		if !ok {
			bad++
			if first < 0 {
				first = i
			}
		}
	}
	if bad == 0 {
		return nil
	}
	d.Msg = fmt.Sprintf("%s: %d of %d elements differ; first at flat index %d: got %s, reference %s (max abs %.3g, max rel %.3g; tolerance rtol %g atol %g)",
		want.ShapeString(), bad, n, first, got.ElemString(first), want.ElemString(first), d.MaxAbs, d.MaxRel, tol.RTol, tol.ATol)
	return d
}

func sameDims(a, b []int64) bool {
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

func closeEnough(g, w complex128, tol Tolerance) (ok bool, abs, rel float64) {
	if cmplx.IsNaN(g) || cmplx.IsNaN(w) {
		return cmplx.IsNaN(g) && cmplx.IsNaN(w), 0, 0
	}
	if cmplx.IsInf(g) || cmplx.IsInf(w) {
		return g == w, 0, 0
	}
	if g == w {
		return true, 0, 0
	}
	abs = cmplx.Abs(g - w)
	if a := cmplx.Abs(w); a > 0 {
		rel = abs / a
	}
	return abs <= tol.ATol+tol.RTol*cmplx.Abs(w), abs, rel
}

// RandomArgs makes deterministic arguments for f: floats uniform in
// [-2, 2) (f8E8M0FNU: powers of two from 1/8 to 8), signed integers in [-8, 8), unsigned in [0, 16) (within the
// type's range), booleans either way. Dynamic dimensions and non-tensor
// arguments are an error.
func RandomArgs(f *hlo.Func, seed uint64) ([]*hlo.Literal, error) {
	rng := rand.New(rand.NewPCG(seed, 0x786c616a6974))
	out := make([]*hlo.Literal, len(f.Args))
	for i, a := range f.Args {
		t, ok := a.Type.(*hlo.TensorType)
		if !ok {
			return nil, fmt.Errorf("argument %d has type %s: only tensors can be generated", i, a.Type)
		}
		if !t.IsStatic() {
			return nil, fmt.Errorf("argument %d has dynamic type %s", i, t)
		}
		if t.Quant != nil {
			return nil, fmt.Errorf("argument %d has quantized type %s", i, t)
		}
		l := hlo.NewLiteral(t.DType, t.Dims...)
		for j := 0; j < l.NumElements(); j++ {
			switch dt := t.DType; {
			case dt.IsBool():
				l.SetInt(j, int64(rng.IntN(2)))
			case dt.IsComplex():
				l.SetComplex(j, complex(rng.Float64()*4-2, rng.Float64()*4-2))
			case dt == hlo.F8E8M0FNU: // powers of two only, no sign, no zero
				l.SetFloat(j, math.Ldexp(1, rng.IntN(7)-3))
			case dt.IsFloat():
				l.SetFloat(j, rng.Float64()*4-2)
			case dt.IsUnsigned():
				l.SetInt(j, int64(rng.IntN(intSpan(dt))))
			default:
				span := intSpan(dt)
				l.SetInt(j, int64(rng.IntN(span)-span/2))
			}
		}
		out[i] = l
	}
	return out, nil
}

// intSpan is how many small integer values are drawn: 16, or all of a
// narrower type's values.
func intSpan(dt hlo.DType) int {
	if dt.Bits() < 4 {
		return 1 << dt.Bits()
	}
	return 16
}
