package fx_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/bridge"
	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update accepts):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// traceMLP records a small MLP step with an in-place update and a random op.
func traceMLP(t *testing.T) *fx.Graph {
	lazy.ManualSeed(3)
	w := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	x := lazy.FromSlice([]float32{1, 0, -1, 2, 1, 0}, 2, 3)
	tr, err := bridge.Trace([]*lazy.Tensor{x}, func() ([]*lazy.Tensor, error) {
		h := x.MatMul(w).ReLU()
		noise := lazy.RandN(lazy.F32, 2, 2).MulScalar(0.01)
		loss := h.Add(noise).Square().Mean()
		g := lazy.Grad(loss, w)[0]
		w.Assign(w.Sub(g.MulScalar(0.1)))
		return []*lazy.Tensor{loss, h}, nil
	}, bridge.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Graph
}

func TestPrintGolden(t *testing.T) {
	g := traceMLP(t)
	if err := g.Lint(); err != nil {
		t.Fatal(err)
	}
	golden(t, "mlp.fx", g.Format(false))
	if !strings.Contains(g.String(), "# fx/fx_test.go:") {
		t.Errorf("call sites missing from String():\n%s", g)
	}
}

func TestParseRoundTrip(t *testing.T) {
	g := traceMLP(t)
	text := g.String()
	p, err := fx.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Lint(); err != nil {
		t.Fatal(err)
	}
	if p.String() != text {
		t.Errorf("print(parse(print(g))) != print(g):\n%s\nvs\n%s", p.String(), text)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Add(%a, %c)\noutput(%b)", "fx:2:25: undefined node %c"},
		{"%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Frobnicate(%a)\noutput(%b)", "fx:2:25: unknown op"},
		{"%a : q9[2] = placeholder[arg 0]\noutput(%a)", "fx:1:6: expected an element type"},
		{"%a : f32[2] = placeholder[arg 0]", "missing output"},
		{"%a : f32[2] = placeholder[arg 0]\n%r : ui64[2] = placeholder[capture -1]\noutput(%a)", "fx:2:36: placeholder index -1 out of range"},
	} {
		_, err := fx.Parse(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestLintCatchesBadGraphs(t *testing.T) {
	src := "%a : f32[2] = placeholder[arg 0]\n%b : f32[3] = Add(%a, %a)\noutput(%b)\n"
	g, err := fx.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Lint(); err == nil || !strings.Contains(err.Error(), "recorded shapes f32[3] differ") {
		t.Errorf("Lint = %v", err)
	}
	g.Nodes[1].Args[0].Node = g.Nodes[1] // self-reference
	if err := g.Lint(); err == nil || !strings.Contains(err.Error(), "not defined before use") {
		t.Errorf("Lint = %v", err)
	}
}

func TestInterpreterMatchesLazy(t *testing.T) {
	src := `%arg0 : f32[2,3] = placeholder[arg 0]
%arg1 : f32[3] = placeholder[arg 1]
%broadcast_1 : f32[2,3] = Broadcast(%arg1, dims=[2, 3], bdims=[1])
%mul_1 : f32[2,3] = Mul(%arg0, %broadcast_1)
%reducesum_1 : f32[2] = ReduceSum(%mul_1, axes=[1])
output(%reducesum_1)
`
	g, err := fx.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	x := lazy.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	v := lazy.FromSlice([]float32{1, 10, 100})
	outs, _, err := (&fx.Interpreter{G: g}).Run([]*lazy.Tensor{x, v}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].Float32s(); got[0] != 321 || got[1] != 654 {
		t.Errorf("got %v", got)
	}
}

func TestInterpreterErrorNamesNode(t *testing.T) {
	src := "%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = Log(%a)  # model.go:7\noutput(%b)\n"
	g, err := fx.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = (&fx.Interpreter{G: g}).Run([]*lazy.Tensor{lazy.FromSlice([]int32{1, 2})}, nil)
	var ne *fx.NodeError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "%a") {
		t.Errorf("err = %v", err)
	}
	_, _, err = (&fx.Interpreter{G: g}).Run([]*lazy.Tensor{lazy.FromSlice([]int32{1, 2}).Cast(lazy.I32).Reshape(2)}, nil)
	if err == nil {
		t.Error("dtype mismatch accepted")
	}
	g2, _ := fx.Parse("%a : i32[2] = placeholder[arg 0]\n%b : i32[2] = Log(%a)  # model.go:7\noutput(%b)\n")
	_, _, err = (&fx.Interpreter{G: g2}).Run([]*lazy.Tensor{lazy.FromSlice([]int32{1, 2})}, nil)
	if !errors.As(err, &ne) || ne.Node.Name != "b" || !strings.Contains(err.Error(), "model.go:7") {
		t.Errorf("err = %v", err)
	}
}

// TestPlaceholderIndicesChecked: a negative placeholder index is refused
// by Parse and by Lint (for a graph built or edited in Go), and the
// Interpreter checks every index against the inputs given, both ways,
// and refuses a nil input tensor, each with an error naming the
// placeholder rather than an index-out-of-range or nil panic.
func TestPlaceholderIndicesChecked(t *testing.T) {
	g, err := fx.Parse("%a : f32[2] = placeholder[arg 0]\n%b : f32[2] = placeholder[arg 1]\n%c : f32[2] = Add(%a, %b)\noutput(%c)\n")
	if err != nil {
		t.Fatal(err)
	}
	x := lazy.FromSlice([]float32{1, 2}, 2)
	run := func(args ...*lazy.Tensor) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		_, _, err = (&fx.Interpreter{G: g}).Run(args, nil)
		return err
	}
	if err := run(x); err == nil || !strings.Contains(err.Error(), "%b") || !strings.Contains(err.Error(), "no input for placeholder arg 1 (1 given)") {
		t.Errorf("one argument for two: %v", err)
	}
	if err := run(x, nil); err == nil || !strings.Contains(err.Error(), "nil tensor for placeholder arg 1") {
		t.Errorf("nil argument: %v", err)
	}
	g.Nodes[1].Index = -1
	if err := g.Lint(); err == nil || !strings.Contains(err.Error(), "%b: placeholder[arg -1]: negative index") {
		t.Errorf("Lint of arg -1: %v", err)
	}
	if err := run(x, x); err == nil || !strings.Contains(err.Error(), "no input for placeholder arg -1") {
		t.Errorf("Run of arg -1: %v", err)
	}
}
