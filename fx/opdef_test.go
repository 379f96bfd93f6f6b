package fx_test

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
)

// double is an op in no op table: only a node holding its definition can
// run it (a lookup by name finds nothing).
var double = &lazy.OpDef{
	Name:  "TestDouble",
	Infer: func(in []lazy.Shape, _ lazy.Attrs) ([]lazy.Shape, error) { return in[:1], nil },
	Lower: func(lc *lazy.LowerCtx, _ *lazy.Node, in []*hlo.Value) []*hlo.Value {
		return []*hlo.Value{lc.S.Add(in[0], in[0])}
	},
}

// TestNodeHoldsItsOpDefinition: a call node carries its op's definition;
// lint and the interpreter use it, the printer writes its name, and only
// parsing text looks an op up by name.
func TestNodeHoldsItsOpDefinition(t *testing.T) {
	if lazy.LookupOp(double.Name) != nil {
		t.Fatalf("%s is in the op table", double.Name)
	}
	s := lazy.NewShape(lazy.F32, 3)
	x := &fx.Node{Name: "arg0", Kind: fx.Placeholder, Shapes: []lazy.Shape{s}}
	c := &fx.Node{Name: "double_1", Kind: fx.Call, Op: double, Args: []fx.Ref{{Node: x}}, Shapes: []lazy.Shape{s}}
	g := &fx.Graph{Nodes: []*fx.Node{x, c, {Name: "output", Kind: fx.Output, Args: []fx.Ref{{Node: c}}}}}
	g.Renumber()
	if err := g.Lint(); err != nil {
		t.Fatal(err)
	}
	text := g.String()
	if !strings.Contains(text, "%double_1 : f32[3] = TestDouble(%arg0)") {
		t.Errorf("printed:\n%s", text)
	}
	outs, _, err := (&fx.Interpreter{G: g}).Run([]*lazy.Tensor{lazy.FromSlice([]float32{1, 2, 3})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].Float32s(); len(got) != 3 || got[0] != 2 || got[1] != 4 || got[2] != 6 {
		t.Errorf("interpreted %v, want [2 4 6]", got)
	}
	if _, err := fx.Parse(text); err == nil || !strings.Contains(err.Error(), `unknown op "TestDouble"`) {
		t.Errorf("parsing an op in no table: %v", err)
	}
	// A parsed node holds the table's own definition.
	p, err := fx.Parse("%arg0 : f32[3] = placeholder[arg 0]\n%exp_1 : f32[3] = Exp(%arg0)\noutput(%exp_1)\n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Nodes[1].Op != lazy.LookupOp("Exp") {
		t.Errorf("parsed Exp holds %p, want the table's %p", p.Nodes[1].Op, lazy.LookupOp("Exp"))
	}
}
