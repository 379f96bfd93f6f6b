package codegen

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/codegen/gentrace"
)

// FuzzParseShapes: no directive text makes ParseShapes panic; every shape
// it accepts parses with gentrace.ParseShape, and the items written back
// as NAME=SHAPE read as the same items.
func FuzzParseShapes(f *testing.F) {
	for _, s := range []string{" x=f32[64, 784]\tw=f32[784,10]  b=i1[] ", "m=newModel(4, []int{1, 2}) x=f32[2]",
		"x=f32[64 784]", "x=f32[9223372036854775807,2]", "x=complex<f32>[2]", "x=(", "a=b)(", "x=f32[-1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		items, err := ParseShapes(text)
		if err != nil {
			return
		}
		var parts []string
		for _, it := range items {
			if !it.Expr {
				if _, err := gentrace.ParseShape(it.Shape); err != nil {
					t.Fatalf("ParseShapes(%q) accepted %s=%s, which ParseShape refuses: %v", text, it.Name, it.Shape, err)
				}
			}
			parts = append(parts, it.Name+"="+it.Shape)
		}
		again, err := ParseShapes(strings.Join(parts, " "))
		if err != nil || len(again) != len(items) {
			t.Fatalf("ParseShapes(%q) = %v; written back: %v, %v", text, items, again, err)
		}
		for i := range items {
			if again[i] != items[i] {
				t.Fatalf("ParseShapes(%q) item %d = %v, written back %v", text, i, items[i], again[i])
			}
		}
	})
}
