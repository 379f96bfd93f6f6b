package check_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/check"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The reference interpreter's layout, as printing.mlir's CHECK lines
// spell it.
func TestFormatTensor(t *testing.T) {
	c64 := hlo.NewLiteral(hlo.C64, 2)
	c64.C64()[0], c64.C64()[1] = complex(3.14, 1), complex(-2, 0.5)
	for _, c := range []struct {
		l    *hlo.Literal
		want string
	}{
		{hlo.LiteralFromSlice([]int8{1, 2, -3, -4}), "tensor<4xi8> {\n  [1, 2, -3, -4]\n}"},
		{Scalar(7), "tensor<i64> {7}"},
		{hlo.NewLiteral(hlo.U8, 0), "tensor<0xui8> {\n  []\n}"},
		{hlo.NewLiteral(hlo.I8, 0, 2), "tensor<0x2xi8> {\n  []\n}"},
		{hlo.NewLiteral(hlo.I8, 2, 0), "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}"},
		{reshaped(hlo.LiteralFromSlice([]int64{0, 1, 2, 3, 4, 0, 1, 2}), 2, 2, 2),
			"tensor<2x2x2xi64> {\n  [\n    [\n      [0, 1],\n      [2, 3]\n    ],\n    [\n      [4, 0],\n      [1, 2]\n    ]\n  ]\n}"},
		{c64, "tensor<2xcomplex<f32>> {\n  [[3.140000e+00, 1.000000e+00], [-2.000000e+00, 5.000000e-01]]\n}"},
		{hlo.LiteralFromSlice([]bool{true, false}), "tensor<2xi1> {\n  [true, false]\n}"},
	} {
		if got := check.FormatTensor(c.l, ""); got != c.want {
			t.Errorf("got\n%s\nwant\n%s", got, c.want)
		}
	}
	if got := check.FormatTensor(Scalar(3), "tensor<!quant.uniform<i8:f32, 1.0>>"); got != "tensor<!quant.uniform<i8:f32, 1.0>> {3}" {
		t.Errorf("given type: %q", got)
	}
}

func reshaped(l *hlo.Literal, dims ...int64) *hlo.Literal {
	l.Dims = dims
	return l
}

const printProgram = `
func.func @main(%a: tensor<2xi32>) {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %0 = stablehlo.add %c, %a : tensor<2xi32>
  %1:2 = stablehlo.optimization_barrier %0, %c : tensor<2xi32>, tensor<2xi32>
  interpreter.print %0 : tensor<2xi32>
  interpreter.print %c : tensor<2xi32>
  interpreter.print %1#1 : tensor<2xi32>
  interpreter.print %a : tensor<2xi32>
  %r:2 = "interpreter.run_parallel"() {programs = [[@iota, @iota]]} : () -> (tensor<2xi32>, tensor<2xi32>)
  func.return
}

func.func @iota() -> tensor<2xi32> {
  %x = stablehlo.constant dense<5> : tensor<i32>
  %0 = stablehlo.iota dim = 0 : tensor<2xi32>
  interpreter.print %0 : tensor<2xi32>
  return %0 : tensor<2xi32>
}`

// interpreter.print names its operand as the printer numbers it in its
// function (the left side of the defining op's line; "<" for a block
// argument, where upstream's cut at "= " keeps one character), and writes
// through the check log, each print whole, also from run_parallel devices.
func TestInterpreterPrint(t *testing.T) {
	m, err := hlo.ParseModule("print.mlir", []byte(printProgram))
	if err != nil {
		t.Fatal(err)
	}
	p, err := host.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	log := &kernel.CheckLog{}
	var out strings.Builder
	log.SetOutput(&out)
	if _, err := p.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}, []kernel.Value{hlo.LiteralFromSlice([]int32{10, 20})}); err != nil {
		t.Fatal(err)
	}
	want := "%0 = tensor<2xi32> {\n  [11, 22]\n}\n" +
		"%c = tensor<2xi32> {\n  [1, 2]\n}\n" +
		"%1:2 = tensor<2xi32> {\n  [1, 2]\n}\n" +
		"<tensor<2xi32> {\n  [10, 20]\n}\n" +
		"%0 = tensor<2xi32> {\n  [0, 1]\n}\n" +
		"%0 = tensor<2xi32> {\n  [0, 1]\n}\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}
