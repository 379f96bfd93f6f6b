package host

import (
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The packed right operand of a product is kept across executions while
// its buffer cannot change, and never used once its storage was donated
// and overwritten in place.
func TestPackedOperandKeptWhileStable(t *testing.T) {
	const m, k, n = 64, 300, 200
	xt, wt, ot := hlo.NewTensorType(hlo.F32, m, k), hlo.NewTensorType(hlo.F32, k, n), hlo.NewTensorType(hlo.F32, m, n)
	b := newFunc("main", xt, wt)
	dot := module(b.ret(b.op("stablehlo.dot_general", ot, []*hlo.Value{b.arg(0), b.arg(1)},
		hlo.NamedAttr{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}})))
	// double(w) = w + w, written into w's storage when w is donated.
	b = newFunc("main", wt)
	double := module(b.ret(b.op("stablehlo.add", wt, []*hlo.Value{b.arg(0), b.arg(0)})))

	c := NewClient(1)
	dx, err := c.Compile(dot, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ux, err := c.Compile(double, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, w := hlo.NewLiteral(hlo.F32, m, k), hlo.NewLiteral(hlo.F32, k, n)
	for i := range x.F32() {
		x.F32()[i] = float32(i%13) - 6
	}
	for i := range w.F32() {
		w.F32()[i] = float32(i%7) - 3
	}
	// The references, from Program.Run (which keeps nothing).
	want1 := run(t, mustCompile(t, dot), x, w)[0]
	w2 := w.Clone()
	for i := range w2.F32() {
		w2.F32()[i] *= 2
	}
	want2 := run(t, mustCompile(t, dot), x, w2)[0]

	xb, wb := c.WrapLiteral(x.Clone(), 0), c.WrapLiteral(w.Clone(), 0)
	wl := wb.Literal()
	exec := func(args ...pjrt.Buffer) *hlo.Literal {
		t.Helper()
		out, err := dx.Execute(args, pjrt.ExecuteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out[0].(*Buffer).Literal()
	}
	for rep := 0; rep < 2; rep++ {
		if got := exec(xb, wb); !got.Equal(want1) {
			t.Fatalf("run %d: product differs from Program.Run's", rep)
		}
		if kernel.DerivedCount(wl) != 1 {
			t.Fatalf("run %d: %d packed copies kept for the weight, want 1", rep, kernel.DerivedCount(wl))
		}
	}
	if kernel.DerivedCount(xb.Literal()) != 0 {
		t.Fatalf("the left operand was kept")
	}
	// Donate the weight to double: the result takes its storage.
	out, err := ux.Execute([]pjrt.Buffer{wb}, pjrt.ExecuteOptions{Donate: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].(*Buffer).Literal() != wl {
		t.Fatalf("the doubled weight did not take the donated literal (test premise)")
	}
	if kernel.DerivedCount(wl) != 0 {
		t.Fatalf("the donated weight's packed copy was kept")
	}
	if got := exec(xb, out[0]); !got.Equal(want2) {
		t.Fatalf("product with the updated weight used a stale packed copy")
	}

	// Nothing is kept past the budget.
	old := kernel.DerivedBudget
	kernel.DerivedBudget = 1 << 10
	wb3 := c.WrapLiteral(w.Clone(), 0)
	exec(xb, wb3)
	kernel.DerivedBudget = old
	if kernel.DerivedCount(wb3.Literal()) != 0 {
		t.Fatalf("a packed copy larger than the budget was kept")
	}

	// A collected weight takes its packed copy with it. (Other literals'
	// copies may be collected meanwhile, so the fresh weight's own copy is
	// checked by its count, and its collection by the bytes dropping below
	// what was kept with it.)
	var kept int64
	var gone weak.Pointer[hlo.Literal]
	func() {
		wb4 := c.WrapLiteral(w.Clone(), 0)
		exec(xb, wb4)
		if kernel.DerivedCount(wb4.Literal()) != 1 {
			t.Fatalf("no packed copy kept for a fresh weight")
		}
		kept = kernel.DerivedBytes()
		gone = weak.Make(wb4.Literal())
	}()
	deadline := time.Now().Add(5 * time.Second)
	for (gone.Value() != nil || kernel.DerivedBytes() >= kept) && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if kernel.DerivedBytes() >= kept {
		t.Fatalf("the packed copy of a collected weight is still kept (%d bytes, %d with it)", kernel.DerivedBytes(), kept)
	}
}
