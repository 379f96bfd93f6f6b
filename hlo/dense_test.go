package hlo

import (
	"runtime"
	"strings"
	"testing"
)

// TestCompactSplatParse checks that a splat of 2^40 elements parses in
// constant memory, keeps its element, prints back as written and refuses
// to expand beyond what an int64 holds.
func TestCompactSplatParse(t *testing.T) {
	for _, c := range []struct{ src, elem string }{
		{"dense<1.500000e+00> : tensor<1099511627776xf32>", "1.500000e+00"},
		{`dense<"0x0000C03F"> : tensor<1024x1073741824xf32>`, "1.500000e+00"},
		{"dense<(1.000000e+00,-2.000000e+00)> : tensor<1099511627776xcomplex<f64>>", "(1.000000e+00,-2.000000e+00)"},
		{"dense<-3> : tensor<4x4xi4>", "-3"},
		{"dense<true> : tensor<65536x65536xi1>", "true"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		src := "func.func @f() {\n  %0 = stablehlo.constant " + c.src + "\n  func.return\n}"
		m, err := ParseModule("s.mlir", []byte(src))
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: parsing allocated %d bytes", c.src, grew)
		}
		d := m.Funcs[0].Body.Blocks[0].Ops[0].Attr("value").(*DenseElementsAttr)
		if !d.IsSplat() || d.Value != nil || len(d.Splat.Dims) != 0 {
			t.Fatalf("%s: not a compact splat: %+v", c.src, d)
		}
		if got := d.Splat.ElemString(0); got != c.elem {
			t.Errorf("%s: element %s, want %s", c.src, got, c.elem)
		}
		want := "dense<" + c.elem + "> : " + d.Type.String()
		if got := AttrString(d); got != want {
			t.Errorf("printed %s, want %s", got, want)
		}
		if !strings.Contains(m.String(), want) {
			t.Errorf("%s: module prints as\n%s", c.src, m.String())
		}
	}
}

func TestCompactSplatLiteral(t *testing.T) {
	a := NewSplatAttr(NewTensorType(I16, 3, 5), ScalarLiteral(I16, -7))
	l, err := a.Literal()
	if err != nil {
		t.Fatal(err)
	}
	if l.ShapeString() != "i16[3,5]" {
		t.Fatalf("shape %s", l.ShapeString())
	}
	for i := 0; i < 15; i++ {
		if l.Int(i) != -7 {
			t.Fatalf("element %d = %d", i, l.Int(i))
		}
	}
	xs, ok := AttrInts(a)
	if !ok || len(xs) != 15 || xs[14] != -7 {
		t.Errorf("AttrInts = %v, %v", xs, ok)
	}
	if _, ok := AttrInts(NewSplatAttr(NewTensorType(I64, 1<<40), ScalarLiteral(I64, 1))); ok {
		t.Errorf("AttrInts expanded a splat of 2^40 elements")
	}
	big := &DenseElementsAttr{Type: &TensorType{DType: F32, Dims: []int64{1 << 32, 1 << 32, 16}}, Splat: ScalarLiteral(F32, 1)}
	if _, err := big.Literal(); err == nil || !strings.Contains(err.Error(), "element count overflows int64") {
		t.Errorf("Literal of an overflowing splat: %v", err)
	}
}

// TestDenseHexLengthBeforeAlloc checks that a hex payload that does not
// match a huge type fails without allocating the type's storage.
func TestDenseHexLengthBeforeAlloc(t *testing.T) {
	src := "func.func @f() {\n  %0 = stablehlo.constant dense<\"0x00000000000000\"> : tensor<1099511627776xf32>\n  func.return\n}"
	_, err := ParseModule("h.mlir", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "hex payload of 7 bytes does not match 1099511627776 elements of 4 bytes") {
		t.Errorf("got %v", err)
	}
}
