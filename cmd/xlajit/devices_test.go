package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A junk PJRT_DEVICE is an error naming the file and the cause, exit 1,
// never a panic.
func TestDevicesJunkPlugin(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "not-a-plugin.so")
	if err := os.WriteFile(junk, []byte("not a shared object\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PJRT_DEVICE", junk)
	code, out, errs := capture(t, runDevices)
	if code != 1 || out != "" || !strings.Contains(errs, junk) || !strings.Contains(errs, "not an ELF file") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = capture(t, runDevices, "--device", filepath.Join(t.TempDir(), "missing.so"))
	if code != 1 || !strings.Contains(errs, "no such file") {
		t.Errorf("missing file: exit %d, stderr %q", code, errs)
	}
}

func TestDevicesListing(t *testing.T) {
	t.Setenv("PJRT_DEVICE", "")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", t.TempDir()) // no plugins
	code, out, errs := capture(t, runDevices)
	if code != 0 || !strings.Contains(out, "embedded: cpu") || !strings.Contains(out, "device 0: embedded-cpu") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = capture(t, runDevices, "--json")
	var reports []deviceReport
	if err := json.Unmarshal([]byte(out), &reports); code != 0 || err != nil || len(reports) == 0 || reports[0].Kind != "embedded" {
		t.Errorf("--json: exit %d, %v, %q", code, err, out)
	}
}

// The listing names a broken plugin in the search path with its error
// (go-xla's own search would panic on it) and still exits 0.
func TestDevicesBrokenCandidate(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "pjrt_c_api_broken_plugin.so")
	if err := os.WriteFile(broken, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PJRT_DEVICE", "")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", dir)
	code, out, _ := capture(t, runDevices)
	if code != 0 || !strings.Contains(out, "plugin broken: "+broken) || !strings.Contains(out, "error: ") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestDevicesDiffNeedsPlugin(t *testing.T) {
	t.Setenv("PJRT_DEVICE", "")
	if code, _, errs := capture(t, runDevices, "--diff", "."); code != 2 || !strings.Contains(errs, "needs a plugin") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// The built binary does the same (no Go panic trace on stderr).
func TestDevicesBinaryJunkPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "xlajit")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	junk := filepath.Join(t.TempDir(), "not-a-plugin.so")
	os.WriteFile(junk, []byte("junk"), 0o644)
	cmd := exec.Command(bin, "devices")
	cmd.Env = append(os.Environ(), "PJRT_DEVICE="+junk)
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || strings.Contains(string(out), "goroutine ") || !strings.Contains(string(out), junk) {
		t.Errorf("err %v, output %q", err, out)
	}
}
