package partitioner_test

import (
	"runtime"
	"testing"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

// TestDiscoverKeepsLoweringBugs: an op whose lowering panics with a Go
// runtime error has a bug; Discover lets the panic go on instead of
// sending the op to the host, where it would run unnoticed.
func TestDiscoverKeepsLoweringBugs(t *testing.T) {
	buggy := &lazy.OpDef{
		Name:     "TestBuggyLowering",
		Infer:    func(in []lazy.Shape, _ lazy.Attrs) ([]lazy.Shape, error) { return in[:1], nil },
		Lower:    func(_ *lazy.LowerCtx, _ *lazy.Node, in []*hlo.Value) []*hlo.Value { return in[1:2] },
		GoKernel: func(in []*hlo.Literal, _ lazy.Attrs) ([]*hlo.Literal, error) { return in, nil },
	}
	s := lazy.NewShape(lazy.F32, 2)
	x := &fx.Node{Name: "arg0", Kind: fx.Placeholder, Shapes: []lazy.Shape{s}}
	c := &fx.Node{Name: "buggy_1", Kind: fx.Call, Op: buggy, Args: []fx.Ref{{Node: x}}, Shapes: []lazy.Shape{s}}
	g := &fx.Graph{Nodes: []*fx.Node{x, c, {Name: "output", Kind: fx.Output, Args: []fx.Ref{{Node: c}}}}}
	g.Renumber()
	var bug any
	func() {
		defer func() { bug = recover() }()
		host := partitioner.Discover(g, lazy.DefaultDevice())
		t.Errorf("Discover returned %v", host)
	}()
	if _, ok := bug.(runtime.Error); !ok {
		t.Errorf("Discover panicked with %T %v, want the lowering's runtime.Error", bug, bug)
	}
}

// Discover with a nil device asks the default device, as fx.Interpreter
// and lazy.RecordOn do (it does not send every node to the host); a nil
// graph has no host nodes.
func TestDiscoverNilDevice(t *testing.T) {
	g, err := fx.Parse("%a : f32[6] = placeholder[arg 0]\n%n : f32[6] = Neg(%a)\n%g : i1[6] = Compare(%n, %a, dir=\"GT\")\n%nz : i64[3,1] = NonZero(%g)\noutput(%nz)")
	if err != nil {
		t.Fatal(err)
	}
	host := partitioner.Discover(g, nil)
	if len(host) != 1 || !host[g.Nodes[3]] {
		t.Errorf("Discover(g, nil) = %v, want only %%nz on the host", host)
	}
	if host := partitioner.Discover(nil, nil); len(host) != 0 {
		t.Errorf("Discover(nil, nil) = %v", host)
	}
}
