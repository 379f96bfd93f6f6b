package host

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// A donated argument's storage holds a result when a fused step reads it
// last and writes a result of its type and size; elsewhere donation changes
// nothing but the argument's validity.
func TestDonatedArgumentStorageIsReused(t *testing.T) {
	const n = 1024
	ft := hlo.NewTensorType(hlo.F32, n)
	mt := hlo.NewTensorType(hlo.F32, 32, 32)
	progs := map[string]*hlo.Module{
		// w - 0.5*g: one fused step reads w last and writes the result.
		"fused": func() *hlo.Module {
			b := newFunc("main", ft, ft)
			half := b.splat(b.constant(scalarF32(0.5)), n)
			return module(b.ret(b.op("stablehlo.subtract", ft, []*hlo.Value{b.arg(0), b.op("stablehlo.multiply", ft, []*hlo.Value{half, b.arg(1)})})))
		}(),
		// w·w then + 1: w dies at the (unfused) dot; the fused add writes
		// into the dot's result, not into w.
		"dot": func() *hlo.Module {
			b := newFunc("main", mt)
			d := b.op("stablehlo.dot_general", mt, []*hlo.Value{b.arg(0), b.arg(0)},
				hlo.NamedAttr{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}})
			one := b.splat(b.constant(scalarF32(1)), 32, 32)
			return module(b.ret(b.op("stablehlo.add", mt, []*hlo.Value{d, one})))
		}(),
	}
	for name, m := range progs {
		t.Run(name, func(t *testing.T) {
			c := NewClient(1)
			x, err := c.Compile(m, pjrt.CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			args := func() ([]pjrt.Buffer, *hlo.Literal) {
				var bufs []pjrt.Buffer
				var first *hlo.Literal
				for i, a := range m.Entry().Args {
					tt := a.Type.(*hlo.TensorType)
					l := hlo.NewLiteral(tt.DType, tt.Dims...)
					for k := range l.F32() {
						l.F32()[k] = float32(k%7) + float32(i)
					}
					if i == 0 {
						first = l
					}
					bufs = append(bufs, c.WrapLiteral(l, 0))
				}
				return bufs, first
			}
			plain, _ := args()
			want, err := x.Execute(plain, pjrt.ExecuteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var reused bool
			for rep := 0; rep < 3; rep++ { // the pool warms on the first run
				bufs, w := args()
				got, err := x.Execute(bufs, pjrt.ExecuteOptions{Donate: []int{0}})
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got[0].(*Buffer).Literal().F32()) != fmt.Sprint(want[0].(*Buffer).Literal().F32()) {
					t.Fatalf("donating changed the result")
				}
				reused = reused || &got[0].(*Buffer).Literal().Data[0] == &w.Data[0]
				if _, err := bufs[0].ToHost(); err == nil {
					t.Errorf("the donated buffer is still readable")
				}
			}
			if wantReuse := name == "fused"; reused != wantReuse {
				t.Errorf("result in the donated argument's storage: %v, want %v", reused, wantReuse)
			}
		})
	}
}

// An argument that a later step still reads, or that is returned, is never
// overwritten even when donated.
func TestDonatedArgumentReadLaterIsKept(t *testing.T) {
	const n = 64
	ft := hlo.NewTensorType(hlo.F32, n)
	b := newFunc("main", ft)
	neg := b.op("stablehlo.negate", ft, []*hlo.Value{b.arg(0)})
	sum := b.op("stablehlo.add", ft, []*hlo.Value{neg, b.arg(0)}) // reads arg 0 after neg
	m := module(b.ret(sum, b.arg(0)))
	c := NewClient(1)
	x, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := hlo.NewLiteral(hlo.F32, n)
	for k := range l.F32() {
		l.F32()[k] = float32(k)
	}
	out, err := x.Execute([]pjrt.Buffer{c.WrapLiteral(l, 0)}, pjrt.ExecuteOptions{Donate: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range out[0].(*Buffer).Literal().F32() {
		if v != 0 {
			t.Fatalf("sum[%d] = %v, want 0", k, v)
		}
	}
	for k, v := range out[1].(*Buffer).Literal().F32() {
		if v != float32(k) {
			t.Fatalf("returned argument [%d] = %v, want %d", k, v, k)
		}
	}
}

func scalarF32(v float32) *hlo.Literal {
	l := hlo.NewLiteral(hlo.F32)
	l.F32()[0] = v
	return l
}

// Random fused programs give the same results whether every argument is
// donated or none is.
func TestDonatingEveryArgumentMatches(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	sizes := []int64{1, 3, 64, 1000, 5000}
	iters := 40
	if testing.Short() {
		iters = 10
	}
	c := NewClient(1)
	for it := 0; it < iters; it++ {
		n := sizes[it%len(sizes)]
		m, args := randomProgram(r, n, 4+r.Intn(20))
		x, err := c.Compile(m, pjrt.CompileOptions{})
		if err != nil {
			t.Fatalf("program %d: %v", it, err)
		}
		bufs := func() []pjrt.Buffer {
			var out []pjrt.Buffer
			for _, a := range args {
				out = append(out, c.WrapLiteral(a.Clone(), 0))
			}
			return out
		}
		want, err := x.Execute(bufs(), pjrt.ExecuteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, len(args))
		for i := range all {
			all[i] = i
		}
		for rep := 0; rep < 2; rep++ {
			got, err := x.Execute(bufs(), pjrt.ExecuteOptions{Donate: all})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !got[i].(*Buffer).Literal().Equal(want[i].(*Buffer).Literal()) {
					t.Fatalf("program %d (n=%d), result %d differs when donating:\n%s\n%s\ngot  %v\nwant %v", it, n, i, describeSteps(x.(*Executable).prog), m, head(got[i].(*Buffer).Literal()), head(want[i].(*Buffer).Literal()))
				}
			}
		}
	}
}

// A result written into a donated argument's storage takes no bytes of its
// own: the run's peak is the arguments', and afterwards only the result
// counts.
func TestDonatedInPlaceAccounting(t *testing.T) {
	const n = 1 << 16 // 256 KiB of f32, counted
	c, x := sgdUpdate(t, n)
	for rep := 0; rep < 2; rep++ {
		w, _ := c.BufferFromHost(hlo.NewLiteral(hlo.F32, n), 0)
		g, _ := c.BufferFromHost(hlo.NewLiteral(hlo.F32, n), 0)
		if err := pjrt.ResetPeakBytes(c, 0); err != nil {
			t.Fatal(err)
		}
		out, err := x.Execute([]pjrt.Buffer{w, g}, pjrt.ExecuteOptions{Donate: []int{0}})
		if err != nil {
			t.Fatal(err)
		}
		mi, _ := c.MemoryInfo(0)
		if mi.PeakBytes != 2*4*n || mi.BytesInUse != 2*4*n {
			t.Errorf("peak %d, in use %d; want both %d (g and the result in w's storage)", mi.PeakBytes, mi.BytesInUse, 2*4*n)
		}
		out[0].Delete()
		g.Delete()
		if mi, _ := c.MemoryInfo(0); mi.BytesInUse != 0 {
			t.Errorf("%d bytes in use after deleting everything", mi.BytesInUse)
		}
	}
}

// A donated argument whose storage becomes a result hands its account to
// the result's buffer: a loop of in-place updates keeps one copy counted,
// allocates no cleanup per step, and buffers nobody deletes give their
// bytes back when Go collects their storage.
func TestDonatedAccountHandedToResult(t *testing.T) {
	const n = 1 << 16 // 256 KiB of f32, counted
	c, x := sgdUpdate(t, n)
	in := hlo.NewLiteral(hlo.F32, n)
	in.SetFloat(0, 8)
	w, _ := c.BufferFromHost(in, 0)
	g, _ := c.BufferFromHost(hlo.NewLiteral(hlo.F32, n), 0)
	g.(*Buffer).lit.SetFloat(0, 2)
	args, opts := []pjrt.Buffer{nil, nil}, pjrt.ExecuteOptions{Donate: []int{0}}
	step := func() {
		args[0], args[1] = w, g
		out, err := x.Execute(args, opts)
		if err != nil {
			t.Fatal(err)
		}
		if out[0].(*Buffer).lit != w.(*Buffer).lit {
			t.Fatal("the update did not run in the donated storage")
		}
		w = out[0]
	}
	step()
	allocs := testing.AllocsPerRun(20, step)
	if mi, _ := c.MemoryInfo(0); mi.BytesInUse != 2*4*n {
		t.Errorf("%d bytes in use after 22 in-place steps, want %d (w and g once)", mi.BytesInUse, 2*4*n)
	}
	if allocs > 1 && !raceBuild { // the race detector drops pooled objects at random
		t.Errorf("an in-place step allocates %.0f objects, want 1 (the result's buffer; no cleanup)", allocs)
	}
	if got := w.(*Buffer).lit.Float(0); got != 8-22 {
		t.Errorf("w[0] = %v after 22 steps of w - 0.5*2, want %v", got, 8-22)
	}
	// Dropped without Delete: the storage's cleanup gives the bytes back.
	w, g, args = nil, nil, nil
	for i := 0; i < 20; i++ {
		runtime.GC()
		if mi, _ := c.MemoryInfo(0); mi.BytesInUse == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	mi, _ := c.MemoryInfo(0)
	t.Errorf("%d bytes in use after dropping every buffer and collecting", mi.BytesInUse)
}

// sgdUpdate compiles w - 0.5*g on n f32 elements on a new one-device
// client.
func sgdUpdate(t *testing.T, n int64) (*Client, pjrt.Executable) {
	t.Helper()
	ft := hlo.NewTensorType(hlo.F32, n)
	b := newFunc("main", ft, ft)
	half := b.splat(b.constant(scalarF32(0.5)), n)
	m := module(b.ret(b.op("stablehlo.subtract", ft, []*hlo.Value{b.arg(0), b.op("stablehlo.multiply", ft, []*hlo.Value{half, b.arg(1)})})))
	c := NewClient(1)
	x, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, x
}
