package conform

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
)

func TestParseArgs(t *testing.T) {
	args, err := ParseArgs(`[dense<1> : tensor<2xi32>, dense<[[1.5, -2.0]]> : tensor<1x2xf32>, dense<(1.0, 2.0)> : tensor<complex<f64>>, dense<[true, false]> : tensor<2xi1>]`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"dense<1> : tensor<2xi32>",
		"dense<[[1.500000e+00, -2.000000e+00]]> : tensor<1x2xf32>",
		"dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f64>>",
		"dense<[true, false]> : tensor<2xi1>",
	}
	if len(args) != len(want) {
		t.Fatalf("%d args, want %d", len(args), len(want))
	}
	for i, a := range args {
		if got := FormatLiteral(a); got != want[i] {
			t.Errorf("arg %d: %s, want %s", i, got, want[i])
		}
	}
	if args, err := ParseArgs(""); err != nil || len(args) != 0 {
		t.Errorf("empty: %v %v", args, err)
	}
	for _, bad := range []string{"not_array", "[4.0 : f32]", "[dense<1> : tensor<2xi32>, dense<1>]"} {
		if _, err := ParseArgs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFormatLiteralLarge(t *testing.T) {
	xs := make([]int32, 2*101)
	for i := range xs {
		xs[i] = int32(i)
	}
	got := FormatLiteral(hlo.LiteralFromSlice(xs, 2, 101))
	if strings.Contains(got, "0x") || !strings.HasPrefix(got, "dense<[[0, 1, 2,") || !strings.HasSuffix(got, "200, 201]]> : tensor<2x101xi32>") {
		t.Errorf("large literal printed as %.80s...", got)
	}
	splat := hlo.NewLiteral(hlo.F32, 300)
	if got := FormatLiteral(splat); got != "dense<0.000000e+00> : tensor<300xf32>" {
		t.Errorf("splat printed as %s", got)
	}
}

// TestExecAPIInputArguments runs the corpus file that takes --args (checked
// upstream by FileCheck, so skipped by the runner) with the arguments of its
// RUN line and compares the result with its CHECK lines.
func TestExecAPIInputArguments(t *testing.T) {
	root, err := FindCorpus(".")
	if err != nil {
		t.Skipf("conformance corpus not found: %v", err)
	}
	path := filepath.Join(root, "interpret", "api_input_arguments.mlir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%v", err)
	}
	m := regexp.MustCompile(`(?m)^// RUN: stablehlo-translate %s --interpret --args="([^"]*)" \| FileCheck %s$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no RUN line with --args")
	}
	args, err := ParseArgs(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := LoadCase(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		client *host.Client
	}{{"embedded", nil}, {"seam", host.NewClient(1)}} {
		var res []*hlo.Literal
		if c.client == nil {
			res, _, err = Exec(nil, mod, args)
		} else {
			res, _, err = Exec(c.client, mod, args)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(res) != 1 {
			t.Fatalf("%s: %d results", c.name, len(res))
		}
		// The CHECK-NEXT line holds the elements as the interpreter prints them.
		var b strings.Builder
		writeNested(&b, res[0], 0, 0)
		if !strings.Contains(string(src), "// CHECK-NEXT:   "+b.String()+"\n") || res[0].Type().String() != "tensor<2xi32>" {
			t.Errorf("%s: result %s is not what the CHECK lines say", c.name, FormatLiteral(res[0]))
		}
	}
}

func TestLiftChecks(t *testing.T) {
	src := `func.func @main() -> (tensor<2xi32>, tensor<i1>) {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %b, dense<[2, 4]> : tensor<2xi32>
  check.expect_eq %a, %b : tensor<2xi32>
  %v = stablehlo.custom_call @check.eq(%b, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
  return %b, %v : tensor<2xi32>, tensor<i1>
}`
	m, err := parseChunk("lift.mlir", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := liftChecks(m.Entry())
	if err != nil {
		t.Fatal(err)
	}
	// Results: %b (kept), then %a (operand of the second check); the
	// verdict %v is dropped.
	if l.nOut != 2 || len(l.checks) != 3 {
		t.Fatalf("nOut %d, %d checks", l.nOut, len(l.checks))
	}
	slots := [][]int{{0}, {1, 0}, {0, 0}}
	for i, c := range l.checks {
		if len(c.slots) != len(slots[i]) {
			t.Fatalf("check %d slots %v, want %v", i, c.slots, slots[i])
		}
		for k := range c.slots {
			if c.slots[k] != slots[i][k] {
				t.Errorf("check %d slots %v, want %v", i, c.slots, slots[i])
			}
		}
	}
	f := m.Entry()
	for _, op := range f.Body.Blocks[0].Ops {
		if isCheckOp(op) {
			t.Errorf("check %s left in the program", op.Name)
		}
	}
	if len(f.ResultTypes) != 2 || f.ResultTypes[1].String() != "tensor<2xi32>" {
		t.Errorf("result types %v", f.ResultTypes)
	}
}
