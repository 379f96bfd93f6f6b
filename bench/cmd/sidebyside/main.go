package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xlajit/xlajit/bench/fmapeak"
)

// row describes one workload of the table, in table order.
type row struct {
	id, desc string
}

var rows = []row{
	{"matmul256", "matmul 256²"},
	{"matmul512", "matmul 512²"},
	{"matmul1024", "matmul 1024²"},
	{"mlp_fwd", "MLP forward, batch 64, 784-512-512-10"},
	{"tanh_chain", "tanh(x·1.5+0.5)·0.7, 1M f32"},
	{"mnist_step", "MNIST step, batch 64, 784-128-10, SGD momentum"},
	{"cnn_step", "CNN step, batch 64 (conv-relu-pool ×2, linear, CE, SGD)"},
	{"transformer_fb", "pre-LN transformer block d256 h4 MLP1024, 8×128, fwd+bwd"},
	{"tiny_call", "warm call of a tiny compiled graph (x+1, 1 element)"},
	{"mlp_first_call", "first call of a new MLP function (trace+compile+run)"},
	{"chain10k_first_call", "first call of a 10,000-op elementwise chain"},
}

type sample struct {
	ns      float64
	metrics map[string]float64
}

// results[row][impl] are the samples of all rounds.
type results map[string]map[string][]sample

func (r results) add(rowID, impl string, s sample) {
	if r[rowID] == nil {
		r[rowID] = map[string][]sample{}
	}
	r[rowID][impl] = append(r[rowID][impl], s)
}

var lineRE = regexp.MustCompile(`^BenchmarkSideBySide/row=([^/\s]+)/impl=(\S+?)(-\d+)?\s+(\d+)\s+(.*)$`)

// parse reads benchmark lines into res and copies every line to raw.
func parse(out []byte, res results, raw io.Writer) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "# ") {
				infoLines = appendUnique(infoLines, line[2:])
			}
			continue
		}
		if raw != nil {
			fmt.Fprintln(raw, line)
		}
		f := strings.Fields(m[5])
		s := sample{metrics: map[string]float64{}}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			if f[i+1] == "ns/op" {
				s.ns = v
			} else {
				s.metrics[f[i+1]] = v
			}
		}
		if s.ns > 0 {
			res.add(m[1], m[2], s)
		}
	}
}

var infoLines []string

func appendUnique(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// stat is the median ns/op of an implementation's samples, their range,
// and the median of each metric.
type stat struct {
	n             int
	ns, min, max  float64
	metric        map[string]float64
	impl, threads string
}

func summarize(ss []sample) *stat {
	if len(ss) == 0 {
		return nil
	}
	var ns []float64
	metrics := map[string][]float64{}
	for _, s := range ss {
		ns = append(ns, s.ns)
		for k, v := range s.metrics {
			metrics[k] = append(metrics[k], v)
		}
	}
	st := &stat{n: len(ss), ns: median(ns), min: slices.Min(ns), max: slices.Max(ns), metric: map[string]float64{}}
	for k, v := range metrics {
		st.metric[k] = median(v)
	}
	return st
}

// torchBest is the faster of the thread counts' medians.
func torchBest(impls map[string][]sample) *stat {
	var best *stat
	for impl, ss := range impls {
		if !strings.HasPrefix(impl, "torch-t") {
			continue
		}
		st := summarize(ss)
		st.threads = strings.TrimPrefix(impl, "torch-t")
		if best == nil || st.ns < best.ns {
			best = st
		}
	}
	return best
}

func fmtTime(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "–"
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func fmtStat(st *stat) string {
	if st == nil {
		return "–"
	}
	return fmt.Sprintf("%s (%s–%s)", fmtTime(st.ns), fmtTime(st.min), fmtTime(st.max))
}

func main() {
	rounds := flag.Int("rounds", 5, "interleaved rounds (medians over rounds)")
	benchtime := flag.Duration("benchtime", 500*time.Millisecond, "time per benchmark per round")
	rowFilter := flag.String("rows", "", "regexp selecting rows (empty: all)")
	python := flag.String("python", "/usr/bin/python3", "Python with PyTorch (empty: no PyTorch)")
	threads := flag.String("threads", "1,2", "PyTorch thread counts")
	fmaTime := flag.Duration("fma", 300*time.Millisecond, "FMA peak measurement per ISA and thread count")
	rawPath := flag.String("raw", "", "also write every benchmark line to this file (benchstat input)")
	flag.Parse()

	dir := benchDir()
	sel := regexp.MustCompile(*rowFilter)
	var ids []string
	for _, r := range rows {
		if sel.MatchString(r.id) {
			ids = append(ids, r.id)
		}
	}
	// Each Go implementation's rows run in a process of their own, as
	// PyTorch's do: one implementation's heap, collections and goroutines
	// (GoMLX's rows leave megabytes of garbage per call) do not weigh on
	// the next one's rows.
	goImpls := []string{"xlajit", "gomlx", "gonum"}
	goPattern := func(impl string) string {
		return "^BenchmarkSideBySide$/^row=(" + strings.Join(ids, "|") + ")$/^impl=" + impl + "$"
	}

	tmp, err := os.MkdirTemp("", "sidebyside")
	check(err)
	defer os.RemoveAll(tmp)
	testBin := filepath.Join(tmp, "bench.test")
	fmt.Fprintln(os.Stderr, "building the benchmark binary...")
	build := exec.Command("go", "test", "-c", "-o", testBin, ".")
	build.Dir, build.Stdout, build.Stderr = dir, os.Stderr, os.Stderr
	check(build.Run())

	torchOK := *python != ""
	if torchOK {
		if err := exec.Command(*python, "-c", "import torch").Run(); err != nil {
			fmt.Fprintf(os.Stderr, "no PyTorch under %s (%v): Go implementations only\n", *python, err)
			torchOK = false
		}
	}
	torchEnv := os.Environ()
	if set, best := os.Getenv("OPENBLAS_CORETYPE"), openblasCore(); set == "" && best != "" {
		torchEnv = append(torchEnv, "OPENBLAS_CORETYPE="+best)
	} else if set != "" && best != "" && !strings.EqualFold(set, best) {
		// Kept (someone chose it), but the table must not read as
		// PyTorch's best.
		warnings = append(warnings, fmt.Sprintf("OPENBLAS_CORETYPE=%s comes from the environment; this CPU supports %s, PyTorch's products may be slower than they can be (unset it to let this command choose)", set, best))
	}

	var raw io.Writer
	if *rawPath != "" {
		f, err := os.Create(*rawPath)
		check(err)
		defer f.Close()
		raw = f
	}

	res := results{}
	var peaks []fmapeak.Result
	loadStart := loadavg()
	started := time.Now()
	for r := 1; r <= *rounds; r++ {
		p := fmapeak.Peak(runtime.NumCPU(), *fmaTime)
		if len(p) > 0 {
			peaks = append(peaks, p[0])
		}
		runGo := func() {
			for _, impl := range goImpls {
				cmd := exec.Command(testBin, "-test.run", "^$", "-test.bench", goPattern(impl), "-test.benchmem",
					"-test.benchtime", benchtime.String(), "-test.count", "1")
				cmd.Dir = dir
				cmd.Stderr = os.Stderr
				cmd.Env = append(os.Environ(), "XLAJIT_QUIET=1")
				out, err := cmd.Output()
				check(err)
				parse(out, res, raw)
			}
		}
		runTorch := func() {
			if !torchOK {
				return
			}
			var torchRows []string
			for _, id := range ids {
				if !strings.Contains(id, "first_call") {
					torchRows = append(torchRows, id)
				}
			}
			cmd := exec.Command(*python, filepath.Join(dir, "torch_sidebyside.py"), "-benchtime", strconv.FormatFloat(benchtime.Seconds(), 'g', -1, 64),
				"-threads", *threads, "-rows", strings.Join(torchRows, ","))
			cmd.Stderr = os.Stderr
			cmd.Env = torchEnv
			out, err := cmd.Output()
			check(err)
			parse(out, res, raw)
		}
		fmt.Fprintf(os.Stderr, "round %d/%d (load %s)\n", r, *rounds, loadavg())
		if r%2 == 1 {
			runGo()
			runTorch()
		} else {
			runTorch()
			runGo()
		}
	}
	printTable(os.Stdout, ids, res, peaks, loadStart, loadavg(), started, *rounds)
}

// benchDir is the bench module's directory: this source file's
// grandparent under go run, else the working directory.
func benchDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		if _, err := os.Stat(filepath.Join(d, "torch_sidebyside.py")); err == nil {
			return d
		}
	}
	d, err := os.Getwd()
	check(err)
	return d
}

// warnings are what makes the PyTorch column less than PyTorch's best,
// printed under the table's header.
var warnings []string

// openblasCore picks OpenBLAS's kernel family from the CPU flags.
func openblasCore() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	flags := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "flags") {
			flags = " " + l + " "
			break
		}
	}
	switch {
	case strings.Contains(flags, " avx512f ") && strings.Contains(flags, " avx512bw "):
		return "SkylakeX"
	case strings.Contains(flags, " avx2 ") && strings.Contains(flags, " fma "):
		return "Haswell"
	}
	return ""
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func printTable(w io.Writer, ids []string, res results, peaks []fmapeak.Result, load0, load1 string, started time.Time, rounds int) {
	var peak, peakMax float64
	isa := "none"
	if len(peaks) > 0 {
		var v []float64
		for _, p := range peaks {
			v = append(v, p.GFLOPs)
		}
		peak, peakMax = median(v), slices.Max(v)
		isa = fmt.Sprintf("%s, %d threads", peaks[0].ISA, peaks[0].Threads)
	}
	fmt.Fprintf(w, "Machine: %s, %d CPUs, %s/%s, %s. %d interleaved rounds, medians (min–max).\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, started.Format("2006-01-02 15:04 MST"), rounds)
	fmt.Fprintf(w, "Load average at start %s, at end %s. FMA peak (f32, %s): median %.0f GFLOP/s, max %.0f.\n", load0, load1, isa, peak, peakMax)
	for _, l := range infoLines {
		fmt.Fprintf(w, "PyTorch: %s\n", l)
		if strings.Contains(l, "openblas-core none") {
			warnings = append(warnings, "PyTorch found no OpenBLAS: its products run on the reference BLAS (apt-get install libopenblas0-pthread)")
		}
	}
	for _, l := range warnings {
		fmt.Fprintf(w, "Warning: %s.\n", l)
		fmt.Fprintf(os.Stderr, "warning: %s\n", l)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | xlajit | PyTorch (threads) | xlajit / PyTorch | GoMLX simplego | gonum | check xlajit / PyTorch | notes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	desc := map[string]string{}
	for _, r := range rows {
		desc[r.id] = r.desc
	}
	for _, id := range ids {
		impls := res[id]
		x := summarize(impls["xlajit"])
		t := torchBest(impls)
		torch, ratio := "–", "–"
		if t != nil {
			torch = fmt.Sprintf("%s (%s)", fmtStat(t), t.threads)
			if x != nil {
				ratio = fmt.Sprintf("**%.2f×**", x.ns/t.ns)
			}
		}
		chk := "–"
		if x != nil && t != nil {
			a, b := x.metric["check"], t.metric["check"]
			chk = fmt.Sprintf("%.5g / %.5g", a, b)
			if d := math.Abs(a-b) / math.Max(math.Abs(b), 1e-30); d > 2e-3 {
				chk += " DIFFER"
			}
		}
		var notes []string
		if x != nil {
			if g, ok := x.metric["GFLOP/s"]; ok {
				n := fmt.Sprintf("xlajit %.0f GFLOP/s", g)
				if peak > 0 {
					n += fmt.Sprintf(" = %.0f %% of FMA peak", 100*g/peak)
				}
				notes = append(notes, n)
			}
			if t != nil {
				if g, ok := t.metric["GFLOP/s"]; ok {
					notes = append(notes, fmt.Sprintf("PyTorch %.0f GFLOP/s", g))
				}
			}
			if a, ok := x.metric["allocs/op"]; ok {
				notes = append(notes, fmt.Sprintf("%.0f allocs/op", a))
			}
			switch id {
			case "mlp_first_call":
				if fwd := summarize(res["mlp_fwd"]["xlajit"]); fwd != nil {
					notes = append(notes, fmt.Sprintf("beyond one execution: %s", fmtTime(x.ns-fwd.ns)))
				}
			case "chain10k_first_call":
				notes = append(notes, fmt.Sprintf("%s per op", fmtTime(x.ns/10000)))
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", desc[id], fmtStat(x), torch, ratio,
			fmtStat(summarize(impls["gomlx"])), fmtStat(summarize(impls["gonum"])), chk, strings.Join(notes, "; "))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}
