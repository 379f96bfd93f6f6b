package check_test

import (
	. "github.com/xlajit/xlajit/pjrt/host/internal/hosttest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The corpus's probe file runs for real: every part's checks report and
// pass.
func TestProbeCorpus(t *testing.T) {
	path := filepath.Join(CorpusDir(t), "interpret", "probe.mlir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("probe.mlir not in the corpus: %v", err)
	}
	parts := 0
	for _, c := range SplitParts(path, string(src)) {
		if strings.TrimSpace(StripComments(c.Src)) == "" {
			continue
		}
		parts++
		log, err := RunCase(path, c)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if len(log.Failed) > 0 || log.Passed == 0 {
			t.Errorf("%s: %d checks passed, failed: %q", c.Name, log.Passed, log.Failed)
		}
	}
	if parts == 0 {
		t.Fatal("no parts in probe.mlir")
	}
}

const probeLoop = `
func.func @main() -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %s = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %sq = stablehlo.multiply %i, %i : tensor<i64>
    %p = interpreter.probe %sq, probe_id = "sq" : tensor<i64>
    %s2 = stablehlo.add %s, %p : tensor<i64>
    %i2 = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %i2, %s2 : tensor<i64>, tensor<i64>
  }
  %four = stablehlo.constant dense<4> : tensor<i64>
  %v = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_serialized_eq %zero, probe_id = "sq", iter = 0 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sq", iter = 1 : tensor<i64>
  check.expect_serialized_eq %four, probe_id = "sq", iter = 2 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sq", iter = 2 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sq", iter = 3 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "other" : tensor<i64>
  check.expect_serialized_eq %v, probe_id = "sq" : tensor<2xi32>
  return %r#1 : tensor<i64>
}`

func compileProbeLoop(t *testing.T) *host.Program {
	t.Helper()
	m, err := hlo.ParseModule("probe_loop.mlir", []byte(probeLoop))
	if err != nil {
		t.Fatal(err)
	}
	p, err := host.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A probe in a loop body records one value per iteration, each a copy
// (the loop reuses the storage of its intermediates); the check compares
// exactly with the iter-th one and fails on a wrong value, a missing
// iteration, an unknown id and another type.
func TestProbeIterationsAndFailures(t *testing.T) {
	log := &kernel.CheckLog{}
	res, err := compileProbeLoop(t).Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	WantInts(t, res[0], 5) // the probe passes its operand on
	if log.Passed != 3 || len(log.Failed) != 4 {
		t.Fatalf("checks: %d passed, failed %q; want 3 passed, 4 failed", log.Passed, log.Failed)
	}
	for i, want := range []string{"element []", "recorded 3 values, none for iteration 3", `probe "other" recorded 0 values`, "recorded a tensor<i64>, the operand is a tensor<2xi32>"} {
		if !strings.Contains(log.Failed[i], want) || !strings.Contains(log.Failed[i], "check.expect_serialized_eq") {
			t.Errorf("failure %d: %q does not contain %q", i, log.Failed[i], want)
		}
	}
	if p, n, ok := log.Probe("sq", 1); !ok || n != 3 || p.Value.Int(0) != 1 {
		t.Errorf("Probe(sq, 1) = %v, %d, %v", p.Value, n, ok)
	}
}

// Without a check log a probe only passes its value on, and a check that
// reads probes is an error that says why.
func TestProbeWithoutCheckLog(t *testing.T) {
	_, err := compileProbeLoop(t).Run(nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no check log") {
		t.Fatalf("err = %v, want one about the missing check log", err)
	}
}
