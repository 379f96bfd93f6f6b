package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capture runs a subcommand with its output captured.
func capture(t *testing.T, run func([]string) int, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	oldOut, oldErr := cliOut, cliErr
	cliOut, cliErr = &out, &errb
	defer func() { cliOut, cliErr = oldOut, oldErr }()
	code := run(args)
	return code, out.String(), errb.String()
}

const casesDir = "../../internal/conform/testdata/cases"

func TestConformCommand(t *testing.T) {
	code, out, _ := capture(t, runConform, "--timeout", "1s", "--root", casesDir, casesDir)
	if code != 1 {
		t.Errorf("exit %d, want 1 (some cases fail)", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "conform: ") || !strings.HasSuffix(last, " skipped") {
		t.Errorf("last line %q", last)
	}
	for _, want := range []string{
		"fail_check.mlir#0 @wrong_sum: ",
		"parse_error.mlir#0: ",
		"skipped 1 roundtrip: ",
		"skipped 2 filecheck: ",
		// IREE's layout: one case per test function, reported with it.
		"iree_checks.mlir#3 @bitwise_equality: ",
		"iree_run_fail.mlir#0 @identity: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pass.mlir#") {
		t.Errorf("a passing case is listed:\n%s", out)
	}
}

func TestConformCommandJSON(t *testing.T) {
	code, out, errOut := capture(t, runConform, "--json", "--root", casesDir, filepath.Join(casesDir, "pass.mlir"))
	if code != 0 {
		t.Errorf("exit %d: %s", code, errOut)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, k := range []string{"file", "case", "function", "status", "duration"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("record %q lacks %q", line, k)
			}
		}
		if rec["status"] != "pass" || rec["file"] != "pass.mlir" {
			t.Errorf("record %q", line)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d records, want 2", n)
	}
	if !strings.Contains(errOut, "conform: 2 passed, 0 failed, 0 skipped") {
		t.Errorf("summary not on stderr: %q", errOut)
	}
}

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "add.mlir")
	src := `func.func @main(%a: tensor<2xi32>, %b: tensor<2x2xf32>) -> (tensor<2xi32>, tensor<2x2xf32>) {
  %0 = stablehlo.add %a, %a : tensor<2xi32>
  %1 = stablehlo.negate %b : tensor<2x2xf32>
  return %0, %1 : tensor<2xi32>, tensor<2x2xf32>
}
`
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := capture(t, runRun, f, "--args", "[dense<[1, 2]> : tensor<2xi32>, dense<[[1.5, 0.0], [-2.0, 4.0]]> : tensor<2x2xf32>]")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "dense<[2, 4]> : tensor<2xi32>\ndense<[[-1.500000e+00, -0.000000e+00], [2.000000e+00, -4.000000e+00]]> : tensor<2x2xf32>\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if code, _, errOut := capture(t, runRun, f); code == 0 || !strings.Contains(errOut, "takes 2 arguments") {
		t.Errorf("missing args: exit %d, %q", code, errOut)
	}
	// A file with several cases needs --case.
	multi := filepath.Join(casesDir, "pass.mlir")
	if code, _, errOut := capture(t, runRun, multi); code == 0 || !strings.Contains(errOut, "--case") {
		t.Errorf("several cases: exit %d, %q", code, errOut)
	}
	if code, out, errOut := capture(t, runRun, "--case", "1", multi); code != 0 || out != "dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>\n" {
		t.Errorf("--case 1: exit %d, %q %q", code, out, errOut)
	}
	// --function picks the entry; IREE's helpers and scalars run.
	iree := filepath.Join(casesDir, "iree_run.mlir")
	code, out, errOut = capture(t, runRun, iree, "--function", "@doubled", "--args", "[dense<1.0> : tensor<2x3xf32>, dense<7> : tensor<i32>]")
	if code != 0 || out != "dense<2.000000e+00> : tensor<2x3xf32>\ndense<7> : tensor<i32>\n" {
		t.Errorf("--function doubled: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := capture(t, runRun, iree, "--function", "nope"); code == 0 || !strings.Contains(errOut, "no function @nope") {
		t.Errorf("--function nope: exit %d, %q", code, errOut)
	}
	// A failed check makes the exit status 1.
	if code, _, errOut := capture(t, runRun, filepath.Join(casesDir, "fail_check.mlir")); code != 1 || !strings.Contains(errOut, "check failed") {
		t.Errorf("failed check: exit %d, %q", code, errOut)
	}
}

func TestHelp(t *testing.T) {
	for _, run := range []func([]string) int{runRun, runConform} {
		code, _, errOut := capture(t, run, "-h")
		if code != 0 || !strings.Contains(errOut, "usage: xlajit") {
			t.Errorf("-h: exit %d, %q", code, errOut)
		}
	}
}

// TestBadFlagValues: flag values that cannot mean anything are errors
// naming the flag (exit 2), not silently the default: a negative -j or
// --timeout of conform, an --expected list that does not exist (every
// listed failure would show as a regression), a --case below -1 of run.
func TestBadFlagValues(t *testing.T) {
	pass := filepath.Join(casesDir, "pass.mlir")
	for _, c := range []struct {
		run  func([]string) int
		args []string
		want string
	}{
		{runConform, []string{"-j", "-1", pass}, "-j -1"},
		{runConform, []string{"--timeout", "-1s", pass}, "--timeout -1s"},
		{runConform, []string{"--expected", filepath.Join(t.TempDir(), "missing.txt"), pass}, "missing.txt"},
		{runRun, []string{"--case", "-2", pass}, "--case -2"},
	} {
		code, out, errOut := capture(t, c.run, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and an error naming %s", c.args, code, out, errOut, c.want)
		}
	}
}
