package host

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
)

// A program keeps the storage its intermediates died in from its second
// execution on: one that runs once (a first call, a shape seen once)
// leaves it to the recycler, so that a process compiling many one-shot
// programs does not fill the retained bound, and the recycler's budget,
// with pools nobody will use again.
func TestFirstExecutionKeepsNoPool(t *testing.T) {
	const n = 128
	mt := hlo.NewTensorType(hlo.F32, n, n)
	c := NewClient(4)
	arg := func() pjrt.Buffer {
		l := hlo.NewLiteral(hlo.F32, n, n)
		for k := range l.F32() {
			l.F32()[k] = float32(k%7) * 0.5
		}
		return c.WrapLiteral(l, 0)
	}
	a, bb := arg(), arg()
	compileWith := func(opts pjrt.CompileOptions) *Executable {
		// (a·b)·b: the first product's 64 KiB die in the execution.
		b := newFunc("main", mt, mt)
		dims := hlo.NamedAttr{Name: "dot_dimension_numbers", Value: &hlo.DotDimsAttr{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}}
		d1 := b.op("stablehlo.dot_general", mt, []*hlo.Value{b.arg(0), b.arg(1)}, dims)
		d2 := b.op("stablehlo.dot_general", mt, []*hlo.Value{d1, b.arg(1)}, dims)
		x, err := c.Compile(module(b.ret(d2)), opts)
		if err != nil {
			t.Fatal(err)
		}
		return x.(*Executable)
	}
	compile := func() *Executable { return compileWith(pjrt.CompileOptions{}) }
	run := func(x *Executable) {
		if _, err := x.Execute([]pjrt.Buffer{a, bb}, pjrt.ExecuteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kept := func(x *Executable) int64 {
		if k := x.prog.kept.Load(); k != nil {
			return k.Load()
		}
		return 0
	}

	var progs []*Executable // alive, as the compile cache keeps them
	for i := range 50 {
		x := compile()
		run(x)
		if k := kept(x); k != 0 {
			t.Fatalf("program %d keeps %d bytes after its first execution", i, k)
		}
		progs = append(progs, x)
	}
	x := progs[0]
	run(x)
	if kept(x) == 0 {
		t.Fatal("a program executed twice keeps nothing: its next execution allocates its intermediates again")
	}

	// A call refused before it ran is no execution.
	x = compile()
	if _, err := x.Execute([]pjrt.Buffer{a}, pjrt.ExecuteOptions{}); err == nil {
		t.Fatal("one argument of two accepted")
	}
	run(x)
	if k := kept(x); k != 0 {
		t.Fatalf("program keeps %d bytes after its only execution (a refused call before it)", k)
	}

	// A replicated launch is one execution, whatever its devices.
	x = compileWith(pjrt.CompileOptions{NumReplicas: 4})
	launch := func() {
		args := make([][]pjrt.Buffer, 4)
		for i := range args {
			args[i] = []pjrt.Buffer{arg(), arg()}
		}
		if _, err := x.ExecuteReplicated(args, pjrt.ExecuteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	if k := kept(x); k != 0 {
		t.Fatalf("replicated program keeps %d bytes after its first launch", k)
	}
	launch()
	if kept(x) == 0 {
		t.Fatal("replicated program keeps nothing after its second launch")
	}
}
