package host

import (
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// Results a caller keeps are never overwritten by later executions, while
// the results it drops are recycled as the storage of new ones (a product
// of 64 KiB, executed in a loop with collections between the calls, as a
// benchmark loop does).
func TestKeptResultsSurviveRecycling(t *testing.T) {
	const n = 128
	mt := hlo.NewTensorType(hlo.F32, n, n)
	b := newFunc("main", mt, mt)
	d := b.op("stablehlo.dot_general", mt, []*hlo.Value{b.arg(0), b.arg(1)},
		hlo.NamedAttr{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}})
	m := module(b.ret(d))
	c := NewClient(1)
	x, err := c.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	arg := func(seed float32) pjrt.Buffer {
		l := hlo.NewLiteral(hlo.F32, n, n)
		for k := range l.F32() {
			l.F32()[k] = float32(k%13)*0.25 + seed
		}
		return c.WrapLiteral(l, 0)
	}
	run := func(a, b pjrt.Buffer) *hlo.Literal {
		out, err := x.Execute([]pjrt.Buffer{a, b}, pjrt.ExecuteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out[0].(*Buffer).Literal()
	}
	addr := func(l *hlo.Literal) uintptr { return uintptr(unsafe.Pointer(&l.Data[0])) }

	// Kept: whole results, and one kept only through a slice of its data.
	type kept struct {
		data []float32
		want []float32
	}
	var keep []kept
	dropped := map[uintptr]bool{}
	reused := 0
	for i := 0; i < 60; i++ {
		a, bb := arg(float32(i%5)), arg(1)
		l := run(a, bb)
		if dropped[addr(l)] {
			reused++
		}
		switch {
		case i%10 == 0:
			keep = append(keep, kept{l.F32(), slices.Clone(l.F32())})
		case i%10 == 5:
			keep = append(keep, kept{l.F32()[100:200], slices.Clone(l.F32()[100:200])})
		default:
			dropped[addr(l)] = true
		}
		if i%3 == 0 {
			runtime.GC()
		}
	}
	if reused == 0 {
		t.Fatal("no dropped result's storage held a later result: the test proves nothing")
	}
	for k, e := range keep {
		if !slices.Equal(e.data, e.want) {
			t.Fatalf("kept result %d changed after later executions", k)
		}
	}
}
