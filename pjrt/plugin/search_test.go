package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func touch(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolate points every search location at empty temporary directories.
func isolate(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "")
	t.Setenv("LD_LIBRARY_PATH", "")
	t.Setenv("VIRTUAL_ENV", filepath.Join(root, "venv"))
	t.Setenv("CONDA_PREFIX", "")
	t.Setenv("PYTHONPATH", "")
	t.Setenv("TPU_LIBRARY_PATH", "")
	os.Unsetenv("TPU_LIBRARY_PATH")
	venv := filepath.Join(root, "venv", "lib", "python3*", "site-packages")
	oldGlobs, oldPython := sitePackageGlobs, pythonSiteDirs
	sitePackageGlobs = func() []string { return []string{venv} }
	pythonSiteDirs = func() []string { return nil }
	t.Cleanup(func() { sitePackageGlobs, pythonSiteDirs = oldGlobs, oldPython })
	return root
}

func TestParseSpec(t *testing.T) {
	wd, _ := os.Getwd()
	for _, c := range []struct {
		in   string
		kind specKind
		val  string
	}{
		{"CUDA", specCUDA, "cuda"},
		{"gpu", specCUDA, "cuda"},
		{" TPU ", specTPU, "tpu"},
		{"ROCM", specName, "rocm"},
		{"/abs/x.so", specPath, "/abs/x.so"},
		{"rel/x.so", specPath, filepath.Join(wd, "rel/x.so")},
		{"libtpu.so", specPath, filepath.Join(wd, "libtpu.so")},
		{"libfoo.so.1", specPath, filepath.Join(wd, "libfoo.so.1")},
	} {
		k, v := parseSpec(c.in)
		if k != c.kind || v != c.val {
			t.Errorf("parseSpec(%q) = %v, %q; want %v, %q", c.in, k, v, c.kind, c.val)
		}
	}
}

func TestFindInPluginPath(t *testing.T) {
	root := isolate(t)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	cpuA := touch(t, filepath.Join(a, "pjrt_c_api_cpu_plugin.so"))
	touch(t, filepath.Join(b, "pjrt_c_api_cpu_plugin.so"))
	cuda := touch(t, filepath.Join(b, "pjrt-plugin-cuda.so"))
	touch(t, filepath.Join(b, "libunrelated.so"))
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", a+"::"+b)

	if p, err := Find("cpu"); err != nil || p != cpuA {
		t.Errorf("Find(cpu) = %q, %v; want the first directory's %s", p, err, cpuA)
	}
	if p, err := Find("CUDA"); err != nil || p != cuda {
		t.Errorf("Find(CUDA) = %q, %v; want %s", p, err, cuda)
	}
	_, err := Find("ROCM")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), "pjrt_c_api_<name>_plugin.so") {
		t.Errorf("Find(ROCM) = %v, want a NotFoundError listing %s and the patterns", err, a)
	}
	names := map[string]string{}
	for _, c := range Discover() {
		names[c.Name] = c.Path
	}
	if names["cpu"] != cpuA || names["cuda"] != cuda || len(names) != 2 {
		t.Errorf("Discover() = %v", names)
	}
}

func TestFindJAXCUDA(t *testing.T) {
	root := isolate(t)
	site := filepath.Join(root, "venv", "lib", "python3.12", "site-packages")
	touch(t, filepath.Join(site, "jax_plugins", "xla_cuda12", "xla_cuda_plugin.so"))
	p13 := touch(t, filepath.Join(site, "jax_plugins", "xla_cuda13", "xla_cuda_plugin.so"))
	p, err := Find("CUDA")
	if err != nil || p != p13 {
		t.Errorf("Find(CUDA) = %q, %v; want the newest JAX plugin %s", p, err, p13)
	}
}

func TestFindCUDAMissing(t *testing.T) {
	isolate(t)
	_, err := Find("CUDA")
	if err == nil || !strings.Contains(err.Error(), "jax_plugins/xla_cuda*/xla_cuda_plugin.so") {
		t.Errorf("Find(CUDA) = %v, want a not-found error listing the JAX locations", err)
	}
}

func TestFindTPU(t *testing.T) {
	root := isolate(t)
	lib := touch(t, filepath.Join(root, "tpu", "libtpu.so"))
	t.Setenv("TPU_LIBRARY_PATH", lib)
	if p, err := Find("TPU"); err != nil || p != lib {
		t.Errorf("Find(TPU) with TPU_LIBRARY_PATH = %q, %v", p, err)
	}
	os.Unsetenv("TPU_LIBRARY_PATH")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", filepath.Join(root, "tpu"))
	if p, err := Find("TPU"); err != nil || p != lib {
		t.Errorf("Find(TPU) in the plugin path = %q, %v", p, err)
	}
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", filepath.Join(root, "empty"))
	if _, err := Find("TPU"); err == nil || !strings.Contains(err.Error(), "TPU_LIBRARY_PATH") {
		t.Errorf("Find(TPU) without libtpu = %v", err)
	}
}

func TestLdConfDirs(t *testing.T) {
	root := t.TempDir()
	conf := filepath.Join(root, "ld.so.conf")
	os.WriteFile(conf, []byte("# comment\ninclude "+filepath.Join(root, "conf.d", "*.conf")+"\n/opt/lib # trailing\n\nrelative/ignored\n"), 0o644)
	touch(t, filepath.Join(root, "conf.d", "a.conf"))
	os.WriteFile(filepath.Join(root, "conf.d", "a.conf"), []byte("/usr/lib/a\n"), 0o644)
	got := ldConfDirs(conf, 0)
	if strings.Join(got, ",") != "/usr/lib/a,/opt/lib" {
		t.Errorf("ldConfDirs = %v", got)
	}
}

func TestParseOptions(t *testing.T) {
	m, err := parseOptions("preallocate=false, memory_fraction=0.5,visible_devices_count=2,platform_name=cuda")
	if err != nil {
		t.Fatal(err)
	}
	if m["preallocate"] != false || m["memory_fraction"] != float32(0.5) || m["visible_devices_count"] != int64(2) || m["platform_name"] != "cuda" {
		t.Errorf("parseOptions = %#v", m)
	}
	if _, err := parseOptions("novalue"); err == nil {
		t.Errorf("parseOptions(novalue) accepted")
	}
	if m, err := parseOptions(""); err != nil || len(m) != 0 {
		t.Errorf("parseOptions(\"\") = %v, %v", m, err)
	}
}
