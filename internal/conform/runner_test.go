package conform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// want is the expected outcome of one hand-written case.
type want struct {
	id     string
	fn     string
	status Status
	skip   SkipReason
	kind   Kind
	op     string // attributed op, when the case fails
	reason string // substring of the reason
	needs  []string
	// seamSkip, when set, is the skip expected through the device seam
	// instead of the outcome above.
	seamSkip SkipReason
}

var caseWants = []want{
	{id: "custom_checks.mlir#0", fn: "main", status: Pass, needs: []string{"stablehlo.negate", "stablehlo.custom_call", "func.call"}},
	{id: "fail_check.mlir#0", fn: "wrong_sum", status: Fail, kind: KindCheck, op: "stablehlo.add", reason: "fail_check.mlir:6:", needs: []string{"stablehlo.add"}},
	{id: "hang.mlir#0", fn: "forever", status: Fail, kind: KindTimeout, reason: "(stopped when cancelled)", needs: []string{"stablehlo.while", "stablehlo.add"}},
	{id: "parse_error.mlir#0", status: Fail, kind: KindParse, reason: "parse_error.mlir:"},
	{id: "pass.mlir#0", fn: "add_checks", status: Pass, needs: []string{"stablehlo.add"}},
	{id: "pass.mlir#1", fn: "main", status: Pass, needs: []string{"stablehlo.add", "func.call"}},
	{id: "filecheck.mlir#0", fn: "main", status: Pass, needs: []string{"stablehlo.add", "stablehlo.broadcast_in_dim"}},
	{id: "filecheck.mlir#1", fn: "main", status: Fail, kind: KindFileCheck, reason: "RUN line 1: line 28: CHECK-NEXT:   [1, 3]: not found"},
	{id: "filecheck.mlir#2", fn: "main", status: Skip, skip: SkipFileCheck, reason: "line 37: CHECK-DAG is outside the supported FileCheck subset"},
	{id: "filecheck.mlir#3", fn: "main", status: Pass},
	{id: "printed.mlir#0", fn: "printed", status: Pass},
	{id: "probe.mlir#0", fn: "probed", status: Pass, seamSkip: SkipProbe, needs: []string{"interpreter.probe", "check.expect_serialized_eq"}},
	{id: "quantized.mlir#0", fn: "quantized", status: Pass, needs: []string{"stablehlo.dot_general", "stablehlo.uniform_dequantize"}},
	{id: "skips.mlir#0", fn: "main", status: Skip, skip: SkipRoundTrip},
	{id: "unsupported.mlir#0", fn: "needs_unknown_op", status: Fail, kind: KindUnsupported, op: "xlajit_test.no_such_op", reason: "unsupported op xlajit_test.no_such_op"},
	{id: "iree_checks.mlir#0", fn: "helpers_and_checks", status: Pass},
	{id: "iree_checks.mlir#1", fn: "dynamic_shapes", status: Pass},
	{id: "iree_checks.mlir#2", fn: "calls_private_helper", status: Pass},
	{id: "iree_checks.mlir#3", fn: "bitwise_equality", status: Fail, kind: KindCheck, op: "stablehlo.negate", reason: "iree_checks.mlir:48:3: iree_check.expect_eq_const: element [0]: got -0.000000e+00, want 0.000000e+00 (compared bitwise)"},
	{id: "iree_checks.mlir#4", fn: "almost_eq_fails", status: Fail, kind: KindCheck, op: "stablehlo.add", reason: "(atol 0.0001, rtol 0)"},
	{id: "iree_checks.mlir#5", fn: "takes_an_argument", status: Fail, kind: KindEntry, reason: "entry @takes_an_argument takes 1 arguments"},
	{id: "iree_checks.mlir#6", fn: "unparsable", status: Fail, kind: KindParse, reason: "iree_checks.mlir:70:8: unknown operation xlajit_test.pretty_unknown"},
	{id: "iree_checks.mlir#7", fn: "unsupported_op", status: Fail, kind: KindUnsupported, op: "xlajit_test.no_such_op", reason: "unsupported op xlajit_test.no_such_op"},
	{id: "iree_checks.mlir#8", fn: "bad_cast", status: Fail, kind: KindCompile, op: "tensor.cast", reason: "cannot cast tensor<2xi32> to tensor<3xi32>"},
	{id: "iree_run.mlir#0", fn: "doubled", status: Pass},
	{id: "iree_run_fail.mlir#0", fn: "identity", status: Fail, kind: KindFileCheck, reason: "RUN line 1: line 8: CHECK: 2xi32=1 3: not found"},
	{id: "iree_run_fail.mlir#1", fn: "wants_floats", status: Fail, kind: KindEntry, reason: `argument 0: input "2xi32=1 2" is a i32[2], the argument is tensor<2xf32>`},
	{id: "iree_run_fail.mlir#2", fn: "two_args", status: Fail, kind: KindEntry, reason: "1 --input values for 2 arguments"},
	{id: "iree_run_skip.mlir#0", fn: "", status: Skip, skip: SkipFileCheck, reason: "RUN line 1: option --Xcompiler,iree-flow-trace-dispatch-tensors is not reproduced"},
	{id: "verdict_false.mlir#0", fn: "main", status: Fail, kind: KindCheck, op: "check.eq", reason: "verdict_false.mlir:7:5", needs: []string{"stablehlo.custom_call"}},
}

// missingKernels lists the ops a case needs that no family registers yet:
// such a case cannot show the runner's behaviour and is skipped.
func missingKernels(ops []string) []string {
	var out []string
	for _, op := range ops {
		if kernel.Lookup(op) == nil {
			out = append(out, op)
		}
	}
	return out
}

func runCases(t *testing.T, client pjrt.Client, leaveOut string) map[string]*Result {
	t.Helper()
	files, err := Files("testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, f := range files {
		if filepath.Base(f) != leaveOut {
			keep = append(keep, f)
		}
	}
	rs, err := RunFiles(Options{Client: client, Timeout: time.Second, Root: "testdata/cases"}, keep)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Result{}
	for _, r := range rs {
		got[r.ID()] = r
	}
	return got
}

func checkWants(t *testing.T, got map[string]*Result, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		var ids []string
		for id := range got {
			ids = append(ids, id)
		}
		t.Errorf("got %d cases, want %d: %v", len(got), len(wants), ids)
	}
	for _, w := range wants {
		r := got[w.id]
		if r == nil {
			t.Errorf("%s: no result", w.id)
			continue
		}
		if m := missingKernels(w.needs); len(m) > 0 {
			t.Logf("%s: not judged, the executor lacks %v (result: %s %s)", w.id, m, r.Status, r.Reason)
			continue
		}
		if r.Status != w.status || r.Skip != w.skip || r.Kind != w.kind {
			t.Errorf("%s: got status %q skip %q kind %q (%s), want %q %q %q", w.id, r.Status, r.Skip, r.Kind, r.Reason, w.status, w.skip, w.kind)
			continue
		}
		if w.fn != "" && r.Func != w.fn {
			t.Errorf("%s: entry @%s, want @%s", w.id, r.Func, w.fn)
		}
		if w.op != "" && r.Op != w.op {
			t.Errorf("%s: failure attributed to %q, want %q (%s)", w.id, r.Op, w.op, r.Reason)
		}
		if !strings.Contains(r.Reason, w.reason) {
			t.Errorf("%s: reason %q does not contain %q", w.id, r.Reason, w.reason)
		}
	}
}

func TestRunnerCases(t *testing.T) {
	checkWants(t, runCases(t, nil, ""), caseWants)
}

// TestRunnerCasesThroughSeam runs the same cases through the device seam on
// the embedded client: checks are lifted out of the program and judged on
// the host, which must give the same verdicts.
func TestRunnerCasesThroughSeam(t *testing.T) {
	c := host.NewClient(1)
	defer c.Close()
	// The seam has no cancellation: a hang would spin on after its
	// timeout, so it is left out here.
	got := runCases(t, c, "hang.mlir")
	var wants []want
	for _, w := range caseWants {
		if w.seamSkip != "" {
			w.status, w.skip, w.kind, w.op, w.reason = Skip, w.seamSkip, "", "", ""
		}
		if w.kind != KindTimeout {
			wants = append(wants, w)
		}
	}
	checkWants(t, got, wants)
}

func TestSummaryAndRates(t *testing.T) {
	rs := []*Result{
		{File: "a/x.mlir", Case: 0, Status: Pass},
		{File: "a/x.mlir", Case: 1, Status: Fail, Kind: KindUnsupported, Op: "stablehlo.fft", Missing: []string{"stablehlo.fft", "stablehlo.sort"}},
		{File: "a/y.mlir", Case: 0, Status: Skip, Skip: SkipRoundTrip},
		{File: "b/z.mlir", Case: 0, Status: Fail, Kind: KindCheck, Op: "stablehlo.add"},
		{File: "b/w.mlir", Case: 0, Status: Pass},
	}
	s := Summarize(rs)
	if s.Line() != "conform: 2 passed, 2 failed, 1 skipped" {
		t.Errorf("line %q", s.Line())
	}
	if s.ByOp["stablehlo.sort"] != 1 || s.ByOp["stablehlo.add"] != 1 || s.ByKind[KindUnsupported] != 1 {
		t.Errorf("by op %v, by kind %v", s.ByOp, s.ByKind)
	}
	cr := CaseRates(rs)
	if a := cr["a"]; a.Passed != 1 || a.Total != 2 || a.Skipped != 1 {
		t.Errorf("case rate a: %+v", a)
	}
	fr := FileRates(rs)
	if a := fr["a"]; a.Passed != 0 || a.Total != 1 || a.Skipped != 1 {
		t.Errorf("file rate a: %+v", a)
	}
	if b := fr["b"]; b.Passed != 1 || b.Total != 2 || b.Percent() != 50 {
		t.Errorf("file rate b: %+v", b)
	}
}

func TestExpectedDiffAndUpdate(t *testing.T) {
	exp, err := ParseExpected(strings.NewReader("// header\na.mlir#0 old reason\na.mlir#1 stays\nb.mlir#3 gone\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs := []*Result{
		{File: "a.mlir", Case: 0, Status: Pass},
		{File: "a.mlir", Case: 1, Status: Fail, Kind: KindRuntime, Reason: "new"},
		{File: "a.mlir", Case: 2, Status: Fail, Kind: KindParse, Reason: "bad\nsecond line"},
	}
	reg, stale, unknown := exp.Diff(rs)
	if len(reg) != 1 || reg[0].ID() != "a.mlir#2" {
		t.Errorf("regressions %v", reg)
	}
	if strings.Join(stale, ",") != "a.mlir#0" || strings.Join(unknown, ",") != "b.mlir#3" {
		t.Errorf("stale %v unknown %v", stale, unknown)
	}
	up := exp.Updated(rs)
	if len(up) != 2 || up["a.mlir#1"] != "stays" || up["a.mlir#2"] != "parse: bad" {
		t.Errorf("updated %v", up)
	}
	var b strings.Builder
	if err := up.Write(&b, "h"); err != nil {
		t.Fatal(err)
	}
	if b.String() != "// h\na.mlir#1 stays\na.mlir#2 parse: bad\n" {
		t.Errorf("written %q", b.String())
	}
	if _, err := ParseExpected(strings.NewReader("a.mlir#0 x\na.mlir#0 y\n")); err == nil {
		t.Error("duplicate entry accepted")
	}
}

func TestFileCheckDetection(t *testing.T) {
	for src, want := range map[string]bool{
		"// RUN: stablehlo-translate --interpret -split-input-file %s\n// CHECK-LABEL: x\n":               false,
		"// RUN: stablehlo-translate --interpret --split-input-file %s | FileCheck %s\n":                  true,
		"// RUN: stablehlo-translate %s --interpret --args=\"[dense<1> : tensor<i32>]\" | FileCheck %s\n": true,
		"// RUN: not stablehlo-translate %s --interpret 2>&1 | FileCheck %s\n":                            false,
		"// RUN: stablehlo-opt %s | FileCheck %s\n":                                                       false,
	} {
		if got := checkedByFileCheck(src); got != want {
			t.Errorf("%q: got %v", src, got)
		}
	}
}

func TestUpstreamDisabled(t *testing.T) {
	for src, want := range map[string]string{
		"// RUN-DISABLED(inaccurate) stablehlo-opt -inline %s | stablehlo-translate --interpret\n// RUN: stablehlo-opt %s > %t.1\n": "RUN-DISABLED(inaccurate)",
		"// RUN-DISABLED(#2497): stablehlo-opt -inline %s | stablehlo-translate --interpret\n":                                      "RUN-DISABLED(#2497)",
		"// RUN: stablehlo-opt -inline %s | stablehlo-translate --interpret\n":                                                      "",
		"// RUN-DISABLED: stablehlo-opt %s\n// RUN: stablehlo-translate --interpret %s\n":                                           "",
	} {
		if got := upstreamDisabled(src); got != want {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

func TestFindCorpusAndFiles(t *testing.T) {
	top := t.TempDir()
	corpus := filepath.Join(top, "shared", "conformance", "stablehlo")
	deep := filepath.Join(top, "repo", "internal", "conform")
	for _, d := range []string{corpus, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := FindCorpus(deep); err != nil || got != corpus {
		t.Errorf("FindCorpus(%s) = %q, %v; want %q", deep, got, err, corpus)
	}
	fs, err := Files("testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) < 8 || !strings.HasSuffix(fs[0], ".mlir") {
		t.Errorf("files %v", fs)
	}
	if got := relName("testdata", fs[0]); !strings.HasPrefix(got, "cases/") {
		t.Errorf("relName %q", got)
	}
}
