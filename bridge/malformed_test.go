package bridge_test

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

// Compile of a graph from outside (fx.Parse accepts any non-negative
// placeholder index) checks the placeholders before it allocates by
// their indices: a huge index is an error, not a slice of that length.
func TestCompileRejectsMalformedGraphs(t *testing.T) {
	dev := freshDevice(t)
	for _, c := range []struct{ src, want string }{
		{"%a : f32[2] = placeholder[arg 1000000000000]\noutput(%a)", "placeholder[arg 1000000000000]"},
		{"%a : f32[2] = placeholder[capture 1000000000000]\n%b : f32[2] = Neg(%a)\noutput(%b)", "placeholder[capture 1000000000000]"},
		{"%a : f32[2] = placeholder[arg 1]\noutput(%a)", "placeholder[arg 1]"},
		{"%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = placeholder[arg 0]\n%c : f32[2] = Add(%a, %b)\noutput(%c)", "placeholder[arg 0]"},
		// A call whose recorded shape is not its op's result, and a
		// host-only op, name the node and what is wrong.
		{"%a : f32[2] = placeholder[arg 0]\n%b : f32[3] = Neg(%a)\noutput(%b)", "%b (Neg): Neg result 0 is f32[2], graph records f32[3]"},
		{"%a : i1[6] = placeholder[arg 0]\n%nz : i64[3,1] = NonZero(%a)\noutput(%nz)", "%nz (NonZero): NonZero runs on the host only"},
	} {
		g, err := fx.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bridge.Compile(g, dev); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile of\n%s\nerr = %v, want one naming %s", c.src, err, c.want)
		}
	}
	if _, err := bridge.Compile(&fx.Graph{}, dev); err == nil || !strings.Contains(err.Error(), "output") {
		t.Errorf("Compile of a graph without an output node: err = %v", err)
	}
	if _, err := bridge.Compile(nil, dev); err == nil {
		t.Error("Compile(nil): no error")
	}
	if _, err := bridge.CompileTraced(nil, dev); err == nil {
		t.Error("CompileTraced(nil): no error")
	}
	// A nil device is the default device (freshDevice made it dev).
	g, err := fx.Parse("%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Neg(%a)\noutput(%b)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := bridge.Compile(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs, err := p.Run([]*lazy.Tensor{lazy.FromSlice([]float32{1, 2})}, nil); err != nil || vals(outs[0]) != "[-1 -2]" {
		t.Errorf("Compile(g, nil) runs to %v, %v", outs, err)
	}
}

// A nil tensor among the arguments of Trace or Run is an error naming its
// position, not a nil dereference.
func TestNilTensorArguments(t *testing.T) {
	dev := freshDevice(t)
	a := lazy.FromSlice([]float32{1, 2})
	_, err := bridge.Trace([]*lazy.Tensor{a, nil}, func() ([]*lazy.Tensor, error) { return []*lazy.Tensor{a}, nil }, bridge.TraceOptions{})
	if err == nil || !strings.Contains(err.Error(), "argument 1") {
		t.Errorf("Trace with a nil argument: err = %v", err)
	}
	g, err := fx.Parse("%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Neg(%a)\noutput(%b)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := bridge.Compile(g, dev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run([]*lazy.Tensor{nil}, nil); err == nil || !strings.Contains(err.Error(), "argument 0") {
		t.Errorf("Run with a nil argument: err = %v", err)
	}
	outs, err := p.Run([]*lazy.Tensor{a}, nil)
	if err != nil || vals(outs[0]) != "[-1 -2]" {
		t.Errorf("Run after the failed ones: %v %v", outs, err)
	}
}

// A failed run-time check of a parsed graph whose Check node names no op
// and no message still says what failed.
func TestCheckWithoutMessage(t *testing.T) {
	dev := freshDevice(t)
	g, err := fx.Parse("%a : i64[4] = placeholder[arg 0]\n%b : i1[] = Constant(value=lit(i1[], [false]))\n%c : i64[4] = Check(%a, %b)\noutput(%c)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := bridge.Compile(g, dev)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run([]*lazy.Tensor{lazy.Zeros(lazy.I64, 4)}, nil)
	if err == nil || !strings.Contains(err.Error(), "Check(): a run-time check failed") {
		t.Errorf("Run: err = %v, want the failed check named", err)
	}
}
