package movement_test

import (
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The legacy broadcast in both syntaxes (the pretty one is the op
// definition's own example): parsed, verified, printed and re-parsed, and
// run with check ops.
func TestBroadcastLegacyText(t *testing.T) {
	src := `func.func @main() {
  %operand = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %result = stablehlo.broadcast %operand, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>
  check.expect_eq_const %result, dense<[[[1, 2, 3], [1, 2, 3]]]> : tensor<1x2x3xi32>
  %m = stablehlo.constant dense<[[1.5, -2.0]]> : tensor<1x2xf32>
  %g = "stablehlo.broadcast"(%m) {broadcast_sizes = array<i64: 3>} : (tensor<1x2xf32>) -> tensor<3x1x2xf32>
  check.expect_eq_const %g, dense<[[[1.5, -2.0]], [[1.5, -2.0]], [[1.5, -2.0]]]> : tensor<3x1x2xf32>
  %s = stablehlo.constant dense<true> : tensor<i1>
  %e = stablehlo.broadcast %s, sizes = [2, 0] : (tensor<i1>) -> tensor<2x0xi1>
  check.expect_eq_const %e, dense<> : tensor<2x0xi1>
  func.return
}`
	m, err := hlo.ParseModule("broadcast.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := hlo.Verify(m); err != nil {
		t.Fatalf("verify: %v", err)
	}
	printed := m.String()
	if m, err = hlo.ParseModule("printed.mlir", []byte(printed)); err != nil {
		t.Fatalf("re-parse of the printed module: %v\n%s", err, printed)
	}
	p, err := host.Compile(m)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	log := &kernel.CheckLog{}
	if _, err := p.Run(&kernel.Ctx{NumReplicas: 1, NumPartitions: 1, Checks: log}, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(log.Failed) > 0 || log.Passed != 3 {
		t.Fatalf("checks: %d passed, failed: %v", log.Passed, log.Failed)
	}
}
