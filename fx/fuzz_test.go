package fx_test

import (
	"testing"

	"github.com/xlajit/xlajit/fx"
)

// FuzzParse checks that no input makes the parser panic, and that whatever
// parses and lints prints to text that parses to the same text.
func FuzzParse(f *testing.F) {
	f.Add("%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Add(%a, %a)  # x.go:1\noutput(%b)\n")
	f.Add("%a : f32[2,3] = placeholder[capture 0]\n%c : f32[] = Constant(value=lit(f32[], [1.5]))\n%s : (f32[3], i64[3]) = Sort(%a, axis=0, descending=false)\noutput(%s#1; %a <- %a)\n")
	f.Add("%a : complex<f32>[1] = placeholder[arg 0]\n%c : i1[] = Constant(value=lit(i1[], [true]))\noutput(%a)\n")
	f.Fuzz(func(t *testing.T, text string) {
		g, err := fx.Parse(text)
		if err != nil || g.Lint() != nil {
			return
		}
		once := g.String()
		g2, err := fx.Parse(once)
		if err != nil {
			t.Fatalf("printed graph does not parse: %v\n%s", err, once)
		}
		if g2.String() != once {
			t.Fatalf("print/parse is not a fixed point:\n%s\nvs\n%s", once, g2.String())
		}
	})
}
