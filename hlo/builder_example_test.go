package hlo_test

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
)

func ExampleNewBuilder() {
	b := hlo.NewBuilder("jit_fn")
	f := b.Func("main")
	x := f.Arg(hlo.NewTensorType(hlo.F32, 2, 3))
	y := f.Exp(f.Add(x, x))
	sum := f.Reduce([]*hlo.Value{y}, []*hlo.Value{f.ConstantScalar(hlo.F32, 0)}, []int64{1},
		func(s *hlo.Scope, a []*hlo.Value) []*hlo.Value { return []*hlo.Value{s.Add(a[0], a[1])} })
	f.Return(sum...)
	m, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Func("main").ResultTypes[0])

	// Errors are sticky and name the op, the operand types and the caller.
	b2 := hlo.NewBuilder("bad")
	g := b2.Func("main")
	g.Return(g.Add(g.Arg(hlo.NewTensorType(hlo.F32, 2)), g.Arg(hlo.NewTensorType(hlo.F32, 3))))
	_, err = b2.Build()
	fmt.Println(err)
	// Output:
	// tensor<2xf32>
	// hlo/builder_example_test.go:27: stablehlo.add: operand types tensor<2xf32> and tensor<3xf32> differ
}
