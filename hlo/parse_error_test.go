package hlo

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"undefined value",
			"func.func @f() {\n  %0 = stablehlo.add %x, %x : tensor<f32>\n  func.return\n}",
			"e.mlir:2:22: use of undefined value %x"},
		{"type mismatch at a use",
			"func.func @f() {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n  %b = stablehlo.add %a, %a : tensor<2xf32>\n  func.return\n}",
			"e.mlir:3:22: type mismatch for %a: declared tensor<2xf32> here, but the value has type tensor<f32>"},
		{"generic operand type mismatch",
			"func.func @f(%arg0: tensor<i32>) {\n  %0 = \"stablehlo.abs\"(%arg0) : (tensor<f32>) -> tensor<f32>\n  func.return\n}",
			"e.mlir:2:24: type mismatch for %arg0: declared tensor<f32> here, but the value has type tensor<i32>"},
		{"missing colon",
			"func.func @f(%arg0: tensor<i32>) {\n  %0 = stablehlo.abs %arg0 tensor<i32>\n}",
			"e.mlir:2:28: expected ':', found 'tensor'"},
		{"unknown pretty op",
			"func.func @f() {\n  foo.bar\n}",
			"e.mlir:2:3: unknown operation foo.bar: only the generic form \"foo.bar\"(...) is supported for it"},
		{"end of input",
			"func.func @f() {\n  func.return\n",
			"e.mlir:3:1: expected '}' closing the region, found end of input"},
		{"unterminated string",
			"func.func @f() {\n  stablehlo.custom_call @x() {backend_config = \"abc} : () -> ()\n}",
			"e.mlir:2:48: expected attribute, found unterminated string"},
		{"dense shape",
			"func.func @f() {\n  %0 = stablehlo.constant dense<[1, 2]> : tensor<3xi32>\n}",
			"e.mlir:2:41: elements literal has shape [2], but the type is tensor<3xi32>"},
		{"dense count",
			"func.func @f() {\n  %0 = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>\n}",
			"e.mlir:2:33: elements literal is not rectangular"},
		{"integer range",
			"func.func @f() {\n  %0 = stablehlo.constant dense<300> : tensor<i8>\n}",
			"e.mlir:2:33: integer 300 out of range for i8"},
		{"float for integer",
			"func.func @f() {\n  %0 = stablehlo.constant dense<1.5> : tensor<i8>\n}",
			"e.mlir:2:33: expected an integer for element type i8"},
		{"hex size",
			"func.func @f() {\n  %0 = stablehlo.constant dense<\"0x0102\"> : tensor<2xf32>\n}",
			"e.mlir:2:33: hex payload of 2 bytes does not match 2 elements of 4 bytes for tensor<2xf32>"},
		{"element count overflow",
			"func.func @f() -> tensor<4294967296x4294967296x16xf32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<4294967296x4294967296x16xf32>\n}",
			"e.mlir:1:19: tensor<4294967296x4294967296x16xf32>: element count overflows int64"},
		{"byte size overflow",
			"func.func @f(%a: tensor<4611686018427387904xf32>) {\n}",
			"e.mlir:1:18: tensor<4611686018427387904xf32>: byte size overflows int64"},
		{"result count",
			"func.func @f(%a: tensor<f32>) {\n  %0:2 = stablehlo.add %a, %a : tensor<f32>\n}",
			"e.mlir:2:3: stablehlo.add produces 1 results, but 2 are named"},
		{"redefinition",
			"func.func @f(%a: tensor<f32>) {\n  %a = stablehlo.add %a, %a : tensor<f32>\n}",
			"e.mlir:2:3: redefinition of SSA value %a"},
		{"result number",
			"func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a#1 : tensor<f32>\n}",
			"e.mlir:2:22: %a has 1 results, %a#1 is out of range"},
		{"bad enum position",
			"func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.compare %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>\n}",
			"e.mlir:2:26: expected comparison_direction value, found '%a'"},
		{"operand count in type",
			"func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.add %a, %a : (tensor<f32>) -> tensor<f32>\n}",
			"e.mlir:2:31: stablehlo.add has 2 operands, but its type lists 1"},
		{"window keyword",
			"func.func @f(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {\n  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {strides = [1, 1]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>\n}",
			"e.mlir:2:103: unexpected keyword strides in convolution window"},
		{"conv dims",
			"func.func @f(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {\n  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, i]->[b, 0, 1, f], window = {} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>\n}",
			"e.mlir:2:65: dimension i repeated in kernel dimensions"},
		{"two modules",
			"module {\n}\nmodule {\n}",
			"e.mlir:3:1: expected end of input after the module, found 'module'"},
		{"tensor shape",
			"func.func @f(%a: tensor<2y3xf32>) {\n}",
			"e.mlir:1:26: expected 'x' after a dimension, found 'y3xf32'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseModule("e.mlir", []byte(c.src))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n  got:  %s\n  want: %s", err, c.want)
			}
		})
	}
}

// TestParseErrorAtLine checks that chunk errors report file lines.
func TestParseErrorAtLine(t *testing.T) {
	src := "func.func @a() {\n  func.return\n}\n// -----\nfunc.func @b() {\n  %0 = stablehlo.abs %missing : tensor<f32>\n}\n"
	chunks := SplitInputFile([]byte(src))
	if len(chunks) != 2 {
		t.Fatalf("got %d chunks", len(chunks))
	}
	if chunks[1].Line != 4 {
		t.Errorf("second chunk starts at line %d, want 4", chunks[1].Line)
	}
	_, err := ParseModuleAt("f.mlir", []byte(chunks[1].Text), chunks[1].Line)
	if err == nil || err.Error() != "f.mlir:6:22: use of undefined value %missing" {
		t.Errorf("got %v", err)
	}
	m, err := ParseModuleAt("f.mlir", []byte(chunks[0].Text), chunks[0].Line)
	if err != nil {
		t.Fatal(err)
	}
	if l := m.Funcs[0].Body.Blocks[0].Ops[0].Loc; l.String() != "f.mlir:2:3" {
		t.Errorf("op loc %s, want f.mlir:2:3", l)
	}
}

func TestSplitInputFile(t *testing.T) {
	src := "a\n// -----\nb\n// // -----\nc"
	got := SplitInputFile([]byte(src))
	want := []Chunk{{"a\n", 1}, {"\nb\n// ", 2}, {"\nc", 4}}
	if len(got) != len(want) {
		t.Fatalf("got %d chunks: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("chunk %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := len(SplitInputFile([]byte("no markers"))); n != 1 {
		t.Errorf("file without markers gives %d chunks", n)
	}
	if !strings.Contains(SplitInputFile([]byte("x// -----y"))[1].Text, "y") {
		t.Error("marker inside a line must split there")
	}
}
