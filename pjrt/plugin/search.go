package plugin

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Candidate is a plugin file found on disk; nothing has been loaded.
type Candidate struct {
	Name   string // platform-ish name: "cuda", "tpu", "cpu", ...
	Path   string // absolute path
	Source string // where it was found
}

// Plugin file name patterns in the plugin directories (go-xla's rules): the
// name is the part matched by '*'.
var namePatterns = []struct{ prefix, suffix string }{
	{"pjrt_c_api_", "_plugin.so"},
	{"pjrt-plugin-", ".so"},
	{"pjrt_plugin_", ".so"},
}

// pluginDirs returns the directories searched for plugins by name and where
// the list came from.
func pluginDirs() ([]string, string) {
	if v, ok := os.LookupEnv("PJRT_PLUGIN_LIBRARY_PATH"); ok {
		var dirs []string
		for _, d := range strings.Split(v, ":") {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
		return dirs, "PJRT_PLUGIN_LIBRARY_PATH"
	}
	var dirs []string
	if home, err := os.UserHomeDir(); err == nil {
		base := filepath.Join(home, ".local", "lib", "go-xla")
		dirs = append(dirs, base, filepath.Join(base, "nvidia"), filepath.Join(home, ".local", "lib", "gomlx", "pjrt"))
	}
	dirs = append(dirs, "/usr/local/lib/go-xla", "/usr/local/lib/go-xla/nvidia", "/usr/local/lib/gomlx/pjrt")
	for _, d := range strings.Split(os.Getenv("LD_LIBRARY_PATH"), ":") {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	dirs = append(dirs, ldConfDirs("/etc/ld.so.conf", 0)...)
	return dedupe(dirs), "default plugin directories"
}

// ldConfDirs reads the directories of an ld.so.conf file and its includes.
func ldConfDirs(file string, depth int) []string {
	if depth > 8 {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var dirs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "include"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			pat := strings.TrimSpace(rest)
			if !filepath.IsAbs(pat) {
				pat = filepath.Join(filepath.Dir(file), pat)
			}
			matches, _ := filepath.Glob(pat)
			sort.Strings(matches)
			for _, m := range matches {
				dirs = append(dirs, ldConfDirs(m, depth+1)...)
			}
			continue
		}
		if filepath.IsAbs(line) {
			dirs = append(dirs, line)
		}
	}
	return dirs
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0:0]
	for _, x := range xs {
		x = filepath.Clean(x)
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// dirCandidates lists the plugins in dirs; the first directory holding a
// name wins, as in go-xla.
func dirCandidates(dirs []string, source string) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := pluginName(e.Name())
			if name == "" || seen[name] || e.IsDir() {
				continue
			}
			seen[name] = true
			p, err := filepath.Abs(filepath.Join(d, e.Name()))
			if err != nil {
				continue
			}
			out = append(out, Candidate{Name: name, Path: p, Source: source + " (" + d + ")"})
		}
	}
	return out
}

// pluginName extracts the plugin name from a file name, or "".
func pluginName(file string) string {
	for _, p := range namePatterns {
		if strings.HasPrefix(file, p.prefix) && strings.HasSuffix(file, p.suffix) && len(file) > len(p.prefix)+len(p.suffix) {
			return strings.ToLower(file[len(p.prefix) : len(file)-len(p.suffix)])
		}
	}
	return ""
}

func patternList() string {
	var ps []string
	for _, p := range namePatterns {
		ps = append(ps, p.prefix+"<name>"+p.suffix)
	}
	return strings.Join(ps, ", ")
}

// siteGlobs are the usual locations of python site-packages.
func siteGlobs() []string {
	var gs []string
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v := os.Getenv(env); v != "" {
			gs = append(gs, filepath.Join(v, "lib", "python3*", "site-packages"))
		}
	}
	for _, d := range strings.Split(os.Getenv("PYTHONPATH"), ":") {
		if filepath.IsAbs(d) {
			gs = append(gs, d)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		gs = append(gs, filepath.Join(home, ".local", "lib", "python3*", "site-packages"))
	}
	return append(gs,
		"/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
		"/usr/lib/python3*/site-packages", "/usr/lib/python3*/dist-packages", "/usr/lib/python3/dist-packages",
		"/opt/conda/lib/python3*/site-packages", "/opt/venv/lib/python3*/site-packages")
}

// globDirs expands patterns to existing directories, in order.
func globDirs(patterns []string) []string {
	var out []string
	for _, g := range patterns {
		ms, _ := filepath.Glob(g)
		sort.Strings(ms)
		for _, m := range ms {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				out = append(out, m)
			}
		}
	}
	return dedupe(out)
}

var pythonSites = sync.OnceValue(func() []string {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const prog = "import site, sys\n" +
		"ds = list(getattr(site, 'getsitepackages', lambda: [])())\n" +
		"ds.append(site.getusersitepackages())\n" +
		"ds += [p for p in sys.path if p.endswith('-packages')]\n" +
		"print('\\n'.join(ds))\n"
	out, err := exec.CommandContext(ctx, py, "-c", prog).Output()
	if err != nil {
		return nil
	}
	var dirs []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); filepath.IsAbs(l) {
			dirs = append(dirs, l)
		}
	}
	return globDirs(dirs)
})

// The site-packages sources; tests replace them to isolate the search from
// the machine's python.
var (
	sitePackageGlobs = siteGlobs
	pythonSiteDirs   = pythonSites
)

// siteFiles globs rel (a pattern) under every site-packages directory:
// first the usual locations, then, if nothing matched, the ones python3
// reports.
func siteFiles(rel string) (files []string, tried []string) {
	look := func(sites []string) {
		for _, s := range sites {
			ms, _ := filepath.Glob(filepath.Join(s, rel))
			// Newest first: xla_cuda13 before xla_cuda12.
			sort.Sort(sort.Reverse(sort.StringSlice(ms)))
			files = append(files, ms...)
		}
	}
	globs := sitePackageGlobs()
	for _, g := range globs {
		tried = append(tried, filepath.Join(g, rel))
	}
	look(globDirs(globs))
	if len(files) == 0 {
		py := pythonSiteDirs()
		for _, s := range py {
			tried = append(tried, filepath.Join(s, rel)+" (from python3)")
		}
		look(py)
	}
	return dedupe(files), dedupe(tried)
}

const jaxCUDARel = "jax_plugins/xla_cuda*/xla_cuda_plugin.so"

func jaxCUDACandidates() ([]Candidate, []string) {
	files, tried := siteFiles(jaxCUDARel)
	var out []Candidate
	for _, f := range files {
		out = append(out, Candidate{Name: "cuda", Path: f, Source: "JAX plugin in python site-packages (" + filepath.Base(filepath.Dir(f)) + ")"})
	}
	return out, tried
}

func tpuCandidates(dirs []string, dirSource string) ([]Candidate, []string) {
	var out []Candidate
	var tried []string
	if p := os.Getenv("TPU_LIBRARY_PATH"); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return []Candidate{{Name: "tpu", Path: p, Source: "TPU_LIBRARY_PATH"}}, []string{"TPU_LIBRARY_PATH=" + p}
	}
	tried = append(tried, "TPU_LIBRARY_PATH (unset)")
	for _, d := range dirs {
		p := filepath.Join(d, "libtpu.so")
		tried = append(tried, p)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			out = append(out, Candidate{Name: "tpu", Path: p, Source: dirSource + " (" + d + ")"})
		}
	}
	for _, c := range dirCandidates(dirs, dirSource) {
		if c.Name == "tpu" {
			out = append(out, c)
		}
	}
	files, t := siteFiles("libtpu/libtpu.so")
	tried = append(tried, t...)
	for _, f := range files {
		out = append(out, Candidate{Name: "tpu", Path: f, Source: "libtpu in python site-packages"})
	}
	return out, tried
}

func isCUDAName(name string) bool {
	return strings.Contains(name, "cuda") || strings.Contains(name, "nvidia") || name == "gpu"
}

// Find resolves a PJRT_DEVICE value to the plugin file to load, without
// loading anything. A path is returned as is (made absolute).
func Find(spec string) (string, error) {
	kind, val := parseSpec(spec)
	if kind == specPath {
		return val, nil
	}
	if val == "" {
		return "", &NotFoundError{Spec: spec}
	}
	dirs, src := pluginDirs()
	var tried []string
	for _, d := range dirs {
		tried = append(tried, d+" ("+patternList()+")")
	}
	switch kind {
	case specCUDA:
		for _, c := range dirCandidates(dirs, src) {
			if isCUDAName(c.Name) {
				return c.Path, nil
			}
		}
		cs, t := jaxCUDACandidates()
		if len(cs) > 0 {
			return cs[0].Path, nil
		}
		tried = append(tried, t...)
	case specTPU:
		cs, t := tpuCandidates(dirs, src)
		if len(cs) > 0 {
			return cs[0].Path, nil
		}
		tried = append(t, tried...)
	default:
		for _, c := range dirCandidates(dirs, src) {
			if c.Name == val {
				return c.Path, nil
			}
		}
	}
	return "", &NotFoundError{Spec: spec, Tried: tried}
}

// Discover lists every plugin file found: the plugin directories, JAX's CUDA
// plugins and libtpu. Nothing is loaded.
func Discover() []Candidate {
	dirs, src := pluginDirs()
	out := dirCandidates(dirs, src)
	cuda, _ := jaxCUDACandidates()
	out = append(out, cuda...)
	tpu, _ := tpuCandidates(dirs, src)
	out = append(out, tpu...)
	seen := map[string]bool{}
	uniq := out[:0]
	for _, c := range out {
		if !seen[c.Path] {
			seen[c.Path] = true
			uniq = append(uniq, c)
		}
	}
	return uniq
}
