package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/internal/corpusdir"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
)

const diffProgram = `
func.func @main(%x: tensor<2x3xf32>, %n: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = stablehlo.multiply %x, %x : tensor<2x3xf32>
  %1 = stablehlo.add %n, %n : tensor<2x3xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xi32>
}
`

// skewed is a device under test that adds delta to every f32 it returns.
type skewed struct {
	pjrt.Client
	delta float32
}

type skewedExe struct {
	pjrt.Executable
	c *skewed
}

func (s *skewed) Compile(m *hlo.Module, o pjrt.CompileOptions) (pjrt.Executable, error) {
	e, err := s.Client.Compile(m, o)
	if err != nil {
		return nil, err
	}
	return &skewedExe{e, s}, nil
}

func (e *skewedExe) Execute(args []pjrt.Buffer, o pjrt.ExecuteOptions) ([]pjrt.Buffer, error) {
	out, err := e.Executable.Execute(args, o)
	if err != nil {
		return nil, err
	}
	for i, b := range out {
		l, err := b.ToHost()
		if err != nil {
			return nil, err
		}
		if l.DType == hlo.F32 {
			for j := range l.F32() {
				l.F32()[j] += e.c.delta
			}
		}
		b.Delete()
		if out[i], err = e.c.BufferFromHost(l, o.Device); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func TestDifferentialHostVsHost(t *testing.T) {
	m, err := hlo.ParseModule("diff.mlir", []byte(diffProgram))
	if err != nil {
		t.Fatal(err)
	}
	args, err := RandomArgs(m.Entry(), 3)
	if err != nil {
		t.Fatal(err)
	}
	ref := host.NewClient(1)
	if res := Differential(ref, host.NewClient(1), m, args, nil); !res.OK() || res.Outputs != 2 {
		t.Errorf("host vs host: %+v", res)
	}
	if res := Differential(ref, &skewed{host.NewClient(1), 1e-7}, m, args, nil); !res.OK() {
		t.Errorf("a 1e-7 skew is within tolerance: %+v", res)
	}
	res := Differential(ref, &skewed{host.NewClient(1), 0.01}, m, args, nil)
	if res.OK() || len(res.Diffs) != 1 || res.Diffs[0].Output != 0 || !strings.Contains(res.Diffs[0].Msg, "6 of 6 elements differ") {
		t.Errorf("a 0.01 skew: %+v", res)
	}
	bad, _ := hlo.ParseModule("bad.mlir", []byte(`func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @no_such_target(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}`))
	if res := Differential(ref, ref, bad, []*hlo.Literal{hlo.LiteralFromSlice([]float32{1, 2}, 2)}, nil); res.RefErr == nil || res.DUTErr == nil {
		t.Errorf("an uncompilable program: %+v", res)
	}
}

// corpusDir finds shared/conformance/stablehlo above the package, or skips.
func corpusDir(t *testing.T) string { return corpusdir.Require(t, corpusdir.StableHLO) }

// Lifting the checks of corpus programs keeps them runnable: the embedded
// device gives the same results with the checks lifted as a second
// embedded client does (the harness's own self-consistency on real data).
func TestDifferentialCorpusSample(t *testing.T) {
	dir := filepath.Join(corpusDir(t), "testdata")
	files, _ := filepath.Glob(filepath.Join(dir, "*.mlir"))
	if len(files) == 0 {
		t.Skip("no corpus testdata files")
	}
	ref, dut := host.NewClient(1), host.NewClient(1)
	ran := 0
	for i := 0; i < len(files) && ran < 12; i += len(files)/40 + 1 {
		src, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		m, err := hlo.ParseModule(files[i], src)
		if err != nil {
			continue // the parser's own tests cover parse failures
		}
		n, err := LiftChecks(m)
		if err != nil || n == 0 {
			t.Errorf("%s: lifted %d checks: %v", files[i], n, err)
			continue
		}
		args, err := RandomArgs(m.Entry(), uint64(i))
		if err != nil {
			t.Errorf("%s: %v", files[i], err)
			continue
		}
		res := Differential(ref, dut, m, args, nil)
		if res.RefErr != nil {
			continue // an op the embedded device lacks: not the harness's business
		}
		if !res.OK() || res.Outputs < n {
			t.Errorf("%s: %+v", files[i], res)
		}
		ran++
	}
	if ran == 0 {
		t.Errorf("no corpus program ran")
	}
	t.Logf("%d corpus programs agree with themselves after lifting", ran)
}
