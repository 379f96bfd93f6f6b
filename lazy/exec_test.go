package lazy_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update accepts):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func delta(fn func()) map[string]int64 {
	before := lazy.CounterSnapshot()
	fn()
	d := map[string]int64{}
	for k, v := range lazy.CounterSnapshot() {
		if v != before[k] {
			d[k] = v - before[k]
		}
	}
	return d
}

// smallGraph builds relu(x @ w + b) summed over rows, on fresh data.
func smallGraph(seed float32) (*lazy.Tensor, *lazy.Graph) {
	x := lazy.FromSlice([]float32{1, seed, 3, 4, 5, 6}, 2, 3)
	w := lazy.FromSlice([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	b := lazy.FromSlice([]float32{-10, seed})
	y := x.MatMul(w).Add(b).ReLU().Sum(0)
	return y, lazy.CollectGraph([]lazy.Value{y.IR()})
}

func TestIRGolden(t *testing.T) {
	_, g := smallGraph(2)
	golden(t, "small.ir", g.String())
	golden(t, "small.dot", g.Dot())
}

func TestGraphHashIgnoresDataNotStructure(t *testing.T) {
	_, g1 := smallGraph(2)
	_, g2 := smallGraph(7)
	if g1.Hash != g2.Hash {
		t.Errorf("same program over new data hashes differently: %s vs %s", g1.Hash, g2.Hash)
	}
	// Stable across processes and machines: the hash is a pure function of
	// the program (golden).
	golden(t, "small.hash", g1.Hash.String()+"\n")
	x := lazy.FromSlice([]float32{1, 2})
	y := lazy.FromSlice([]float32{3, 4})
	gxx := lazy.CollectGraph([]lazy.Value{x.Add(x).IR()})
	gxy := lazy.CollectGraph([]lazy.Value{x.Add(y).IR()})
	if gxx.Hash == gxy.Hash {
		t.Error("x+x and x+y share a hash (parameter order not hashed)")
	}
	gc1 := lazy.CollectGraph([]lazy.Value{x.AddScalar(1).IR()})
	gc2 := lazy.CollectGraph([]lazy.Value{x.AddScalar(2).IR()})
	if gc1.Hash == gc2.Hash {
		t.Error("different constants share a hash")
	}
}

func TestCachedCut(t *testing.T) {
	y1, _ := smallGraph(11)
	y1.Float32s()
	y2, _ := smallGraph(12)
	d := delta(func() { y2.Float32s() })
	if d[lazy.MetricUncachedCompile] != 0 || d[lazy.MetricCachedCompile] != 1 || d[lazy.MetricExecuteCount] != 1 {
		t.Errorf("second cut of the same program: %v", d)
	}
	if got := y2.Float32s(); fmt.Sprint(got) != "[0 50]" {
		t.Errorf("got %v", got)
	}
}

// ExecuteCount and ExecuteTime's samples are one count: every execution
// is in both, also when a counting scope keeps or drops it.
func TestExecuteCountIsExecuteTimeSamples(t *testing.T) {
	n0, _ := lazy.TimerData(lazy.MetricExecuteTime)
	c0 := lazy.Counter(lazy.MetricExecuteCount)
	for i := 0; i < 3; i++ {
		y, _ := smallGraph(float32(20 + i))
		y.Float32s()
	}
	end := lazy.BeginCountScope()
	y, _ := smallGraph(30)
	y.Float32s()
	end(true)
	end = lazy.BeginCountScope()
	y, _ = smallGraph(31)
	y.Float32s()
	end(false)
	n1, _ := lazy.TimerData(lazy.MetricExecuteTime)
	c1 := lazy.Counter(lazy.MetricExecuteCount)
	if c1-c0 != n1-n0 || c1-c0 != 4 {
		t.Errorf("4 kept executions: ExecuteCount +%d, ExecuteTime samples +%d", c1-c0, n1-n0)
	}
}

func TestDonationInLazyMode(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2, 3})
	old := x.Buffer()
	y := x.AddScalar(10)
	x.Assign(y)
	d := delta(func() {
		if err := lazy.Sync(x, y); err != nil {
			t.Fatal(err)
		}
	})
	if d[lazy.MetricDonatedBuffers] != 1 {
		t.Errorf("old buffer of x not donated: %v", d)
	}
	if _, err := old.ToHost(); err == nil {
		t.Error("donated buffer still readable")
	}
	if got := x.Float32s(); fmt.Sprint(got) != "[11 12 13]" {
		t.Errorf("x = %v", got)
	}
	// A pending tensor that still reads the old buffer keeps it.
	a := lazy.FromSlice([]float32{1, 2})
	keep := a.MulScalar(2) // not synced below
	a.Assign(a.AddScalar(1))
	d = delta(func() { lazy.Sync(a) })
	if d[lazy.MetricDonatedBuffers] != 0 {
		t.Errorf("buffer donated while a pending tensor reads it: %v", d)
	}
	if got := keep.Float32s(); fmt.Sprint(got) != "[2 4]" {
		t.Errorf("keep = %v", got)
	}
}

func TestOperandsOnTwoDevices(t *testing.T) {
	devs := lazy.DevicesOf(host.NewClient(2))
	a := lazy.FromLiteralOn(devs[0], lazy.FromSlice([]float32{1}).MustLiteral())
	b := lazy.FromLiteralOn(devs[1], lazy.FromSlice([]float32{1}).MustLiteral())
	err := lazy.Try(func() { a.Add(b) })
	if err == nil || !strings.Contains(err.Error(), "different devices") || !strings.Contains(err.Error(), "exec_test.go:") {
		t.Errorf("err = %v", err)
	}
}

// TestPersistentCacheAcrossProcesses runs a child process twice with one
// cache directory: the second compiles nothing. Then an entry is corrupted:
// the third warns and recompiles.
func TestPersistentCacheAcrossProcesses(t *testing.T) {
	if os.Getenv("XLAJIT_CHILD") != "" {
		t.Skip("child process")
	}
	dir := t.TempDir()
	run := func() (string, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPersistentChild$", "-test.v")
		cmd.Env = append(os.Environ(), "XLAJIT_CHILD=1", "XLAJIT_PERSISTENT_CACHE_PATH="+dir, "XLAJIT_QUIET=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("child: %v\n%s\n%s", err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	first, _ := run()
	if !strings.Contains(first, "uncached=1 persistent=0") {
		t.Fatalf("first process: %s", first)
	}
	second, _ := run()
	if !strings.Contains(second, "uncached=0 persistent=1") {
		t.Fatalf("second process: %s", second)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.mlir"))
	if len(entries) != 1 {
		t.Fatalf("cache entries: %v", entries)
	}
	raw, _ := os.ReadFile(entries[0])
	os.WriteFile(entries[0], raw[:len(raw)/2], 0o644) // truncated
	third, stderr := run()
	if !strings.Contains(third, "uncached=1 persistent=0") || !strings.Contains(stderr, "corrupt or truncated") {
		t.Fatalf("third process: %s\nstderr: %s", third, stderr)
	}
}

func TestPersistentChild(t *testing.T) {
	if os.Getenv("XLAJIT_CHILD") == "" {
		t.Skip("run by TestPersistentCacheAcrossProcesses")
	}
	y, _ := smallGraph(3)
	if got := y.Float32s(); fmt.Sprint(got) != "[0 23]" {
		t.Fatalf("got %v", got)
	}
	fmt.Printf("uncached=%d persistent=%d\n", lazy.Counter(lazy.MetricUncachedCompile), lazy.Counter(lazy.MetricPersistentCacheHit))
}

// TestSaveTensorsFile checks XLAJIT_SAVE_TENSORS_FILE in a child process
// (settings are read once at start).
func TestSaveTensorsFile(t *testing.T) {
	if os.Getenv("XLAJIT_CHILD") != "" {
		t.Skip("child process")
	}
	for _, format := range []string{"text", "hlo", "dot"} {
		path := filepath.Join(t.TempDir(), "graphs.txt")
		cmd := exec.Command(os.Args[0], "-test.run=^TestSaveChild$")
		cmd.Env = append(os.Environ(), "XLAJIT_CHILD=1", "XLAJIT_SAVE_TENSORS_FILE="+path, "XLAJIT_SAVE_TENSORS_FMT="+format, "XLAJIT_QUIET=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		want := map[string]string{"text": "= DotGeneral(", "hlo": "stablehlo.dot_general", "dot": "digraph"}[format]
		if strings.Count(s, "Graph Hash: ") != 2 || !strings.Contains(s, want) {
			t.Errorf("%s dump:\n%s", format, s)
		}
	}
}

func TestSaveChild(t *testing.T) {
	if os.Getenv("XLAJIT_CHILD") == "" {
		t.Skip("run by TestSaveTensorsFile")
	}
	y, _ := smallGraph(1)
	y.Float32s()
	y2, _ := smallGraph(4)
	y2.Float32s()
}

// Graphs that differ only in which parameter an operand reads are two
// programs (node hashes see parameters by shape only).
func TestHashSeesWhichParameter(t *testing.T) {
	x, y := lazy.FromSlice([]float32{1, 2}), lazy.FromSlice([]float32{3, 4})
	if got := fmt.Sprint(x.Add(y).Mul(x).Float32s()); got != "[4 12]" {
		t.Fatalf("(x+y)*x = %s", got)
	}
	if got := fmt.Sprint(x.Add(y).Mul(y).Float32s()); got != "[12 24]" {
		t.Errorf("(x+y)*y = %s, want [12 24]", got)
	}
	if got := fmt.Sprint(lazy.Concat(0, y, x, y).Float32s()); got != "[3 4 1 2 3 4]" {
		t.Errorf("Concat(y, x, y) = %s", got)
	}
	if got := fmt.Sprint(lazy.Concat(0, x, y, y).Float32s()); got != "[1 2 3 4 3 4]" {
		t.Errorf("Concat(x, y, y) = %s", got)
	}
}

// TestScalarsLowerToSplats: a Go number applied to a tensor lowers to one
// splat constant of the tensor's shape (not a scalar constant and a
// broadcast), a rank-0 constant that an op reads as it is lowers where it
// is first read, and a constant returned as it is is still lowered. The
// results are the plain values.
func TestScalarsLowerToSplats(t *testing.T) {
	x := lazy.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	s := lazy.FromSlice([]float32{3})
	y := x.MulScalar(0.5).AddScalar(1)             // two splats of f32[2,2]
	z := s.Reshape().AddScalar(2)                  // a rank-0 add: the constant read as it is
	c := lazy.Scalar(lazy.F32, 7)                  // a constant returned as it is
	w := x.Reshape(4).Narrow(0, 0, 1).AddScalar(1) // a one-element splat
	g := lazy.CollectGraph([]lazy.Value{y.IR(), z.IR(), c.IR(), w.IR()})
	m, err := g.Lower("splats")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "splats.mlir", m.String())
	if err := lazy.Sync(y, z, c, w); err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1.5, 2, 2.5, 3}, {5}, {7}, {2}}
	for i, r := range []*lazy.Tensor{y, z, c, w} {
		if got := r.Float32s(); fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("result %d: got %v, want %v", i, got, want[i])
		}
	}
}

// TestEmptySplatRoundTrips: a Go number applied to an empty tensor lowers
// to a constant whose text parses back to itself (the persistent cache
// and the hash-collision check compare modules by their text).
func TestEmptySplatRoundTrips(t *testing.T) {
	x := lazy.FromSlice([]float32{}, 0, 3)
	y := x.AddScalar(1)
	m, err := lazy.CollectGraph([]lazy.Value{y.IR()}).Lower("empty")
	if err != nil {
		t.Fatal(err)
	}
	text := m.String()
	back, err := hlo.ParseModule("empty.mlir", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != text {
		t.Errorf("parsed back:\n%s\nlowered:\n%s", back, text)
	}
	if err := lazy.Sync(y); err != nil || len(y.Float32s()) != 0 {
		t.Errorf("empty result: %v, %v", y.Float32s(), err)
	}
}
