package difftest

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/pjrt/host"
)

var (
	flagN        = flag.Int("difftest.n", 0, "number of programs TestPrograms runs (0: the CI default)")
	flagSeed     = flag.Uint64("difftest.seed", 1, "first seed of TestPrograms")
	flagFeatures = flag.String("difftest.features", "ci", `feature changes: "ci", "all", "none", "Name", "-Name", comma separated`)
	flagShrink   = flag.Int("difftest.shrink", 400, "checks the shrinker may spend on each failure family")
	flagTime     = flag.Duration("difftest.time", 0, "stop TestPrograms after this long (0: no limit)")
	flagSave     = flag.String("difftest.save", "", "append the first seed of each failure family to this seed file")
	flagVerbose  = flag.Bool("difftest.v", false, "print every failing program")
	flagKeep     = flag.String("difftest.keep", "", "write each failure family's shrunk program as JSON into this directory (testdata/repros keeps them)")
)

// ciPrograms is how many programs TestPrograms runs by default (a few
// thousand: 10-20 s on two quiet cores), and ciBudget the time after which
// it stops early on a loaded machine.
const (
	ciPrograms = 3000
	ciBudget   = 40 * time.Second
)

// hangLimit is how long one program may take before the run is aborted
// with the program printed (a hang is a failure too).
const hangLimit = 2 * time.Minute

// checkGuarded is Check with a watchdog.
func checkGuarded(p *Program) (*Failure, Outcome) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(hangLimit):
			panic(fmt.Sprintf("difftest: program seed %d still running after %v:\n%s", p.Seed, hangLimit, p.Text()))
		}
	}()
	return Check(p)
}

type family struct {
	name  string
	count int
	seeds []uint64
	first *Failure
	prog  *Program
}

// TestPrograms generates and checks programs (-difftest.n of them, from
// -difftest.seed, under -difftest.features), then shrinks and prints the
// first program of each failure family.
func TestPrograms(t *testing.T) {
	var f Features
	if err := f.Apply(*flagFeatures); err != nil {
		t.Fatal(err)
	}
	n, limit := *flagN, *flagTime
	if n == 0 {
		// The CI default: a few thousand programs, within a time budget
		// so that a loaded machine still finishes in under a minute.
		n, limit = ciPrograms, ciBudget
		if testing.Short() || raceEnabled {
			n = 300
		}
	}
	start := time.Now()
	fams := map[string]*family{}
	errs := map[string]int{}
	breaks, ran := 0, 0
	for i := 0; i < n; i++ {
		if limit > 0 && time.Since(start) > limit {
			break
		}
		seed := *flagSeed + uint64(i)
		p := Generate(seed, f)
		fail, oc := checkGuarded(p)
		ran++
		if oc.PlainError != "" {
			errs[oc.PlainError]++
		}
		if oc.Breaks {
			breaks++
		}
		if fail == nil {
			continue
		}
		fam := fams[fail.Family]
		if fam == nil {
			fam = &family{name: fail.Family, first: fail, prog: p}
			fams[fail.Family] = fam
		}
		fam.count++
		if len(fam.seeds) < 10 {
			fam.seeds = append(fam.seeds, seed)
		}
		if *flagVerbose {
			t.Logf("seed %d: %s\n%s", seed, fail, p.Text())
		}
	}
	el := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use after the run: %d MiB", ms.HeapInuse>>20)
	t.Logf("%d programs (seeds %d..%d, features %s) in %v (%.1f ms each); %d with graph breaks; %d failed plainly",
		ran, *flagSeed, *flagSeed+uint64(ran)-1, f, el.Round(time.Millisecond), float64(el.Milliseconds())/float64(max(ran, 1)), breaks, sum(errs))
	for _, e := range sortedKeys(errs) {
		t.Logf("  plain error x%d: %s", errs[e], e)
	}
	names := make([]string, 0, len(fams))
	for k := range fams {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fam := fams[k]
		if knownFamily(fam.name) {
			t.Logf("known failure family %q (KnownBrokenFamilies): %d programs (seeds %v): %s", fam.name, fam.count, fam.seeds, fam.first.Detail)
			continue
		}
		small, sf := Shrink(fam.prog, fam.name, *flagShrink)
		if sf == nil {
			sf = fam.first
		}
		t.Errorf("failure family %q: %d programs (seeds %v)\nfirst: seed %d: %s\nshrunk (%d instructions, %d calls): %s\n%s",
			fam.name, fam.count, fam.seeds, fam.prog.Seed, fam.first.Detail, len(small.Body), len(small.Calls), sf.Detail, small.Text())
		if *flagSave != "" {
			appendSeed(t, *flagSave, fam.prog.Seed, f, fam.name)
		}
		if *flagKeep != "" {
			keepRepro(t, *flagKeep, small, sf)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return m[out[i]] > m[out[j]] || m[out[i]] == m[out[j]] && out[i] < out[j] })
	return out
}

func appendSeed(t *testing.T, path string, seed uint64, f Features, fam string) {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fmt.Fprintf(fh, "%d %s # %s\n", seed, f, fam)
}

// seedLine is one line of testdata/seeds.txt: a seed, the features it was
// generated with, and the family it failed with when found.
type seedLine struct {
	seed     uint64
	features Features
	spec     string
	family   string
	line     int
}

func readSeeds(t *testing.T, path string) []seedLine {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []seedLine
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fam := ""
		if i := strings.Index(line, "#"); i >= 0 {
			fam = strings.TrimSpace(line[i+1:])
			line = line[:i]
		}
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 2 {
			t.Fatalf("%s:%d: want \"SEED FEATURES # family\"", path, n)
		}
		seed, err := strconv.ParseUint(fs[0], 10, 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		var f Features
		if err := f.Apply(fs[1]); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, seedLine{seed, f, fs[1], fam, n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// knownBrokenIn returns the features listed in KnownBroken that p uses.
func knownBrokenIn(p *Program) []string {
	var out []string
	for _, name := range KnownBroken {
		if p.Uses(name) {
			out = append(out, name)
		}
	}
	return out
}

// TestSeeds runs every kept seed. A seed whose features include a family
// still listed in KnownBroken may fail (it is logged); any other failure is
// an error.
func TestSeeds(t *testing.T) {
	for _, s := range readSeeds(t, "testdata/seeds.txt") {
		p := Generate(s.seed, s.features)
		fail, _ := checkGuarded(p)
		broken := knownBrokenIn(p)
		switch {
		case fail == nil && len(broken) > 0:
			t.Logf("seed %d (line %d, found as %q) passes now", s.seed, s.line, s.family)
		case fail == nil:
		case len(broken) > 0:
			t.Logf("seed %d (line %d): known failure (%s): %s", s.seed, s.line, strings.Join(broken, ", "), fail.Family)
		default:
			t.Errorf("seed %d (line %d, found as %q): %s\n%s", s.seed, s.line, s.family, fail, p.Text())
		}
	}
}

// TestGeneratorConforms checks that generated programs are well formed
// and stay within their features (so a family switched off never runs),
// that generation is deterministic, and that printing works.
func TestGeneratorConforms(t *testing.T) {
	presets := []string{"ci", "all", "none,Elementwise", "ci,-Errors", "none,Reduce,Shape,HostOps",
		"none,Elementwise,AliasArgs,StructArgs,InterfaceArgs,SharedStructs,NonTensorResults,ArgResults",
		"none,Elementwise,StructArgs,InterfaceArgs,UnexportedFields",
		"none,Elementwise,Consts,StateRestore,AssignArg,AssignLocal", "none,Elementwise,Scalar,OptimSteps,Statics",
		"none,Elementwise,Concurrent,ShapeChange"}
	for _, spec := range presets {
		var f Features
		if err := f.Apply(spec); err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 300; seed++ {
			p := Generate(seed, f)
			if _, err := analyze(p); err != nil {
				t.Fatalf("%s seed %d: malformed: %v\n%s", spec, seed, err, p.Text())
			}
			if !conforms(p) {
				t.Fatalf("%s seed %d: program leaves its features\n%s", spec, seed, p.Text())
			}
			if q := Generate(seed, f); q.Text() != p.Text() {
				t.Fatalf("%s seed %d: generation is not deterministic", spec, seed)
			}
		}
	}
}

var flagLog = flag.Bool("difftest.log", false, "keep the product's log output (recompile warnings) during the runs")

func TestMain(m *testing.M) {
	flag.Parse()
	if !*flagLog {
		log.SetOutput(io.Discard)
	}
	ColdDevice = func() *lazy.Device { return lazy.DevicesOf(host.NewClient(1))[0] }
	spmdDev := lazy.SPMDDevice(host.NewClient(SPMDDevices))
	lazy.SetCacheSize(spmdDev, 64)
	SPMDDevice = func() *lazy.Device { return spmdDev }
	os.Exit(m.Run())
}

// repro is a kept failing program (testdata/repros/*.json): the shrunk
// program itself, so it keeps testing the same thing when the generator
// changes.
type repro struct {
	Family  string
	Detail  string
	Program *Program
}

var reFileName = regexp.MustCompile(`[^A-Za-z0-9]+`)

func keepRepro(t *testing.T, dir string, p *Program, f *Failure) {
	name := strings.Trim(reFileName.ReplaceAllString(f.Family, "_"), "_")
	if len(name) > 60 {
		name = name[:60]
	}
	if uses := knownBrokenIn(p); len(uses) > 0 {
		name += "__" + strings.Join(uses, "_")
	}
	path := filepath.Join(dir, name+".json")
	if _, err := os.Stat(path); err == nil {
		return
	}
	b, err := json.MarshalIndent(repro{f.Family, f.Detail, p}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept %s", path)
}

// TestRepros runs every kept failing program. One using a family still
// listed in KnownBroken may fail (it is logged); any other failure is an
// error.
func TestRepros(t *testing.T) {
	files, err := filepath.Glob("testdata/repros/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var r repro
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if _, err := analyze(r.Program); err != nil {
			t.Errorf("%s: malformed program: %v", file, err)
			continue
		}
		fail, _ := checkGuarded(r.Program)
		broken := knownBrokenIn(r.Program)
		switch {
		case fail == nil && len(broken) > 0:
			t.Logf("%s (%s) passes now", file, r.Family)
		case fail == nil:
		case len(broken) > 0:
			t.Logf("%s: known failure (%s): %s", file, strings.Join(broken, ", "), fail.Family)
		default:
			t.Errorf("%s (found as %q): %s\n%s", file, r.Family, fail, r.Program.Text())
		}
	}
}

// TestFeaturesAreGenerated checks that every program-level feature is
// actually exercised by the generator with all features on, and that
// switching it off rejects such programs (Uses, through the rules the
// shrinker relies on, can say no).
func TestFeaturesAreGenerated(t *testing.T) {
	count := map[string]int{}
	all := AllFeatures()
	for seed := uint64(1); seed <= 600; seed++ {
		p := Generate(seed, all)
		for _, name := range FeatureNames() {
			if p.Uses(name) {
				count[name]++
			}
		}
	}
	for _, name := range FeatureNames() {
		if count[name] == 0 {
			t.Errorf("no program of 600 uses feature %s", name)
		}
	}
	t.Logf("programs using each feature (of 600): %v", count)
}

// TestPrintedProgramsParse checks that printed programs are Go: each one,
// wrapped in a test function, parses. (Type-checked with go vet by hand:
// 400 programs with every feature compile.)
func TestPrintedProgramsParse(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		p := Generate(seed, AllFeatures())
		src := "package p\n\nfunc TestSeed(t *testing.T) {\n" + p.Text() + "}\n"
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0); err != nil {
			t.Fatalf("seed %d: printed program does not parse: %v\n%s", seed, err, p.Text())
		}
	}
}

// knownFamily reports a failure family listed in KnownBrokenFamilies.
func knownFamily(name string) bool {
	for _, p := range KnownBrokenFamilies {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
