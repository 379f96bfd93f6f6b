package fx_test

import (
	"math"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// TestOneAttributeForm: lazy's IR printer and fx's printer write
// attributes in one form (lazy.FormatAttr), and fx's parser reads back
// every kind of value it writes.
func TestOneAttributeForm(t *testing.T) {
	g := traceMLP(t)
	for _, n := range g.Nodes {
		if n.Kind == fx.Call && len(n.Attrs) > 0 && !strings.Contains(g.Format(false), n.Attrs.String()+")") {
			t.Errorf("fx prints %%%s's attributes otherwise than lazy (%s):\n%s", n.Name, n.Attrs, g.Format(false))
		}
	}
	lit := lazy.FromSlice([]float32{1.5, -2}).MustLiteral()
	attrs := lazy.Attrs{
		{Key: "i", Val: int64(-3)}, {Key: "ints", Val: []int64{2, 2}}, {Key: "none", Val: []int64{}},
		{Key: "f", Val: 2.0}, {Key: "nan", Val: math.NaN()}, {Key: "inf", Val: math.Inf(-1)},
		{Key: "b", Val: true}, {Key: "s", Val: `a "q"`}, {Key: "dtype", Val: lazy.F32}, {Key: "lit", Val: lit},
	}
	want := `i=-3, ints=[2, 2], none=[], f=2.0, nan=nan, inf=-inf, b=true, s="a \"q\"", dtype=dtype(f32), lit=lit(f32[2], [1.500000e+00, -2.000000e+00])`
	if got := attrs.String(); got != want {
		t.Errorf("lazy prints\n%s\nwant\n%s", got, want)
	}
	text := "%arg0 : f32[2] = placeholder[arg 0]\n%neg_1 : f32[2] = Neg(%arg0, " + attrs.String() + ")\noutput(%neg_1)\n"
	p, err := fx.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Format(false); got != text {
		t.Errorf("parse and print:\n%s\nwant\n%s", got, text)
	}
}
