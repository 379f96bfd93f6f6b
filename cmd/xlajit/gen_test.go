package main

import (
	"strings"
	"testing"
)

const aotExample = "../../examples/aot"

// TestGenCheckExample: the committed generated file of examples/aot is up
// to date (what CI checks after go generate).
func TestGenCheckExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a tracing program")
	}
	code, _, errs := capture(t, runGen, "-check", aotExample)
	if code != 0 {
		t.Errorf("xlajit gen -check %s: exit %d\n%s", aotExample, code, errs)
	}
}

func TestDumpExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a tracing program")
	}
	code, out, errs := capture(t, runDump, "-format", "fx", aotExample, "Predict")
	if code != 0 || !strings.HasPrefix(out, "%arg0 : f32[32,784] = placeholder[arg 0]\n") || !strings.Contains(out, "# aot/model.go:") {
		t.Errorf("dump fx: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = capture(t, runDump, "-format=hlo", "-shapes", "x=f32[2]", aotExample, "Tiny")
	if code != 0 || !strings.Contains(out, "tensor<2xf32>") || !strings.HasPrefix(out, "module @jit_") {
		t.Errorf("dump hlo with -shapes: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = capture(t, runDump, "-shapes", "m=newClassifier() x=f32[2,784]", aotExample, "Classify")
	if code != 0 || !strings.Contains(out, "%arg0 : f32[64,784] = placeholder[arg 0]") || !strings.Contains(out, "f32[2,784]") {
		t.Errorf("dump of a function taking a model struct: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = capture(t, runDump, "-shapes", "y=f32[2]", aotExample, "Tiny")
	if code != 1 || !strings.Contains(errs, "no parameter y (parameters: x)") {
		t.Errorf("bad -shapes: exit %d\n%s", code, errs)
	}
	code, _, errs = capture(t, runDump, aotExample, "Missing")
	if code != 1 || !strings.Contains(errs, "has no function Missing") {
		t.Errorf("missing function: exit %d\n%s", code, errs)
	}
}

func TestGenDumpUsage(t *testing.T) {
	for name, run := range map[string]func([]string) int{"gen": runGen, "dump": runDump} {
		code, _, errs := capture(t, run, "-h")
		if code != 0 || !strings.Contains(errs, "usage: xlajit "+name) {
			t.Errorf("%s -h: exit %d\n%s", name, code, errs)
		}
	}
	if code, _, errs := capture(t, runDump, "-format", "svg", "p", "F"); code != 2 || !strings.Contains(errs, `unknown format "svg"`) {
		t.Errorf("dump -format svg: exit %d\n%s", code, errs)
	}
	if code, _, _ := capture(t, runDump, "onlyone"); code != 2 {
		t.Errorf("dump with one argument: exit %d", code)
	}
}
