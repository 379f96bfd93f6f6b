package codegen

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/xlajit/xlajit/codegen/gentrace"
)

const modulePath = "github.com/xlajit/xlajit"

// repoRoot finds this module's root above the package directory.
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+modulePath+"\n") {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("module root not found")
		}
		dir = up
	}
}

// tempModule copies testdata/<pkgs> into a new module that requires this
// one through a replace directive, so the test packages live outside the
// repository (go test ./... never sees them) and generation can write
// into them. The go command works offline from the module cache.
func tempModule(t *testing.T, pkgs ...string) (dir string, cfg Config) {
	t.Helper()
	root := repoRoot(t)
	dir = t.TempDir()
	mainMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// Keep this module's requirements (so the build list is the same) and
	// add the module itself.
	var b strings.Builder
	b.WriteString("module example.com/aotmod\n\n")
	sc := bufio.NewScanner(strings.NewReader(string(mainMod)))
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "module ") {
			b.WriteString(sc.Text() + "\n")
		}
	}
	fmt.Fprintf(&b, "\nrequire %s v0.0.0\n\nreplace %s => %s\n", modulePath, modulePath, root)
	write(t, filepath.Join(dir, "go.mod"), b.String())
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	for _, p := range pkgs {
		if err := os.CopyFS(filepath.Join(dir, p), os.DirFS(filepath.Join("testdata", p))); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	return dir, Config{Dir: dir, Env: env}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tracers lists the tracing files in dir.
func tracers(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, tracerPrefix+"*"))
	return names
}

func goRun(t *testing.T, cfg Config, dir string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", "run", ".")
	cmd.Dir, cmd.Env = dir, cfg.Env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestDirectiveErrors: every problem of the bad package is reported with
// its file:line, before anything is traced.
func TestDirectiveErrors(t *testing.T) {
	dir, cfg := tempModule(t, "badpkg")
	cfg.Dir = filepath.Join(dir, "badpkg")
	_, err := Generate(context.Background(), cfg)
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("want *Error, got %v", err)
	}
	src := read(t, filepath.Join(cfg.Dir, "bad.go"))
	want := map[string]string{
		"UnknownParam": `UnknownParam: no parameter y (parameters: x)`,
		"BadDType":     `x: shape "f33[2]": unknown element type "f33" (want one of i1,`,
		"MissingShape": `MissingShape: no shape for parameter w (add w=DTYPE[D0,...])`,
		"Twice":        `Twice: parameter x is given twice`,
		"NotATensor":   `parameter n is int: give an example value instead of a shape (n=newValue(), a call of this package)`,
		"BadResult":    `result 0 is float32; ahead-of-time traces return *lazy.Tensor values`,
		"BadItem":      `bad item "x:f32[2]" (want NAME=DTYPE[D0,D1,...]`,
		"Dynamic":      `dimension "?" is not a non-negative integer`,
		"Method":       `methods cannot be traced ahead of time`,
		"Typo":         `unknown directive //xlajit:traced (want //xlajit:trace`,
		"notAFunc":     `//xlajit:trace is not attached to a function declaration`,
		"Variadic":     `variadic functions cannot be traced ahead of time`,
		"Good":         `the generated GoodAOT is already declared at bad.go:`,
	}
	if len(e.Problems) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(e.Problems), len(want), e)
	}
	for name, msg := range want {
		// The directive is on the line above the declaration.
		line := 0
		for i, l := range strings.Split(src, "\n") {
			if regexp.MustCompile(`^(func (\(m \*model\) )?|var )` + name + `\b`).MatchString(l) {
				line = i // 1-based line of the directive = 0-based index of the decl
			}
		}
		prefix := fmt.Sprintf("bad.go:%d: ", line)
		found := false
		for _, p := range e.Problems {
			found = found || (strings.HasPrefix(p, prefix) && strings.Contains(p, msg))
		}
		if !found {
			t.Errorf("no problem %q%s in:\n%s", prefix, msg, e)
		}
	}
	if left := tracers(cfg.Dir); len(left) > 0 {
		t.Errorf("tracing files left behind: %v", left)
	}
}

// TestCaptureError: a function reading a global tensor fails generation
// with the capture named and the directive's position.
func TestCaptureError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a tracing program")
	}
	dir, cfg := tempModule(t, "capturepkg")
	cfg.Dir = filepath.Join(dir, "capturepkg")
	_, err := Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"capture.go:7: //xlajit:trace UsesGlobal:", "capture 0, f32[2,2], first read by DotGeneral at capturepkg/capture.go:9", "pass them as parameters"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if left := tracers(cfg.Dir); len(left) > 0 {
		t.Errorf("tracing files left behind: %v", left)
	}
	if files, _ := filepath.Glob(filepath.Join(cfg.Dir, "zz_xlajit_*")); len(files) > 0 {
		t.Errorf("wrote %v", files)
	}
}

// TestGenerate runs the whole cycle on a package main whose code already
// calls the wrappers: generate, run (first calls replay), regenerate
// (byte-identical), change a signature (-check reports the file, the
// program panics at init with the fix), drop a directive (the obsolete
// file is removed).
func TestGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tracing programs")
	}
	ctx := context.Background()
	dir, cfg := tempModule(t, "aotpkg")
	pkg := filepath.Join(dir, "aotpkg")
	cfg.Dir = pkg
	out, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Files) != 3 || filepath.Base(out.Files[0].Path) != "zz_xlajit_model.go" || filepath.Base(out.Files[1].Path) != "zz_xlajit_net.go" ||
		filepath.Base(out.Files[2].Path) != "zz_xlajit_update.go" || len(out.Remove) != 0 {
		t.Fatalf("files %v, remove %v", out.Files, out.Remove)
	}
	if got := out.Stale(); len(got) != 3 {
		t.Errorf("before writing, stale = %v", got)
	}
	if err := out.Write(); err != nil {
		t.Fatal(err)
	}
	model := read(t, filepath.Join(pkg, "zz_xlajit_model.go"))
	for _, want := range []string{
		Header + "\n\n//go:build !xlajit_gen\n\npackage main\n",
		"func AffineAOT(x, w *lazy.Tensor) *lazy.Tensor {",
		"func NoisyAOT(x *lazy.Tensor) (*lazy.Tensor, *lazy.Tensor, error) {",
		"return nil, nil, err",
		`Captures:  []string{"rng"},`,
		"%dotgeneral_1 : f32[2,4] = DotGeneral(%arg0, %arg1",
		"stablehlo.dot_general",
		"xlajitAOT_Affine.Register(AffineAOT)",
	} {
		if !strings.Contains(model, want) {
			t.Errorf("zz_xlajit_model.go lacks %q:\n%s", want, model)
		}
	}
	if strings.Contains(model, "unmarked") || strings.Contains(model, "# ") {
		t.Errorf("unexpected content (unmarked function or call sites):\n%s", model)
	}
	update := read(t, filepath.Join(pkg, "zz_xlajit_update.go"))
	for _, want := range []string{"func UpdateAOT(p, g *lazy.Tensor) {", "if _, err := xlajitAOT_Update.Run(p, g); err != nil {", "output(; %arg0 <- %sub_1)"} {
		if !strings.Contains(update, want) {
			t.Errorf("zz_xlajit_update.go lacks %q:\n%s", want, update)
		}
	}
	netFile := read(t, filepath.Join(pkg, "zz_xlajit_net.go"))
	for _, want := range []string{"func ClassifyAOT(m *net, x *lazy.Tensor) *lazy.Tensor {", "xlajitAOT_Classify.Call(m, x)",
		"return []any{newNet(), lazy.NewShape(lazy.F32, 4, 3)}", "Guard:", "output(%"} {
		if !strings.Contains(netFile, want) {
			t.Errorf("zz_xlajit_net.go lacks %q:\n%s", want, netFile)
		}
	}
	if left := tracers(pkg); len(left) > 0 {
		t.Errorf("tracing files left behind: %v", left)
	}

	res, err := goRun(t, cfg, pkg)
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, res)
	}
	for _, want := range []string{
		"affine: calls=1 traces=0 compiles=1 replays=1",
		"noisy: calls=1 traces=0 compiles=1 replays=1",
		"update: calls=1 traces=0 compiles=1 replays=1 recompiles=0 graph_breaks=0 host_fallbacks=0 [0 1 2]",
		"classify: calls=1 traces=0 compiles=1 replays=1",
	} {
		if !strings.Contains(res, want) {
			t.Errorf("program output lacks %q:\n%s", want, res)
		}
	}

	// Determinism: a second generation gives the same bytes.
	again, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if stale := again.Stale(); len(stale) != 0 {
		t.Errorf("second run differs: %v", stale)
	}

	// A changed signature: the generated file still compiles, -check
	// names it, the program stops at init with the fix.
	write(t, filepath.Join(pkg, "update.go"), strings.Replace(read(t, filepath.Join(pkg, "update.go")),
		"func Update(p, g *lazy.Tensor) {\n\tp.Assign(p.Sub(g.MulScalar(0.25)))\n}",
		"func Update(p, g *lazy.Tensor) *lazy.Tensor {\n\tp.Assign(p.Sub(g.MulScalar(0.25)))\n\treturn p\n}", 1))
	res, err = goRun(t, cfg, pkg)
	if err == nil || !strings.Contains(res, "panic: xlajit: Update is now func(*lazy.Tensor, *lazy.Tensor) *lazy.Tensor but its ahead-of-time trace was generated for func(*lazy.Tensor, *lazy.Tensor); run go generate") {
		t.Errorf("stale program: %v\n%s", err, res)
	}
	check, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if stale := check.Stale(); len(stale) != 1 || filepath.Base(stale[0]) != "zz_xlajit_update.go" {
		t.Errorf("stale = %v, want zz_xlajit_update.go", stale)
	}

	// No directive left in update.go: its generated file is obsolete.
	write(t, filepath.Join(pkg, "update.go"), strings.Replace(read(t, filepath.Join(pkg, "update.go")), "//xlajit:trace p=f32[3] g=f32[3]\n", "", 1))
	write(t, filepath.Join(pkg, "main.go"), strings.Replace(read(t, filepath.Join(pkg, "main.go")), "UpdateAOT", "Update", -1))
	gone, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(gone.Files) != 2 || len(gone.Remove) != 1 || filepath.Base(gone.Remove[0]) != "zz_xlajit_update.go" {
		t.Fatalf("files %v, remove %v", gone.Files, gone.Remove)
	}
	if err := gone.Write(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gone.Remove[0]); !os.IsNotExist(err) {
		t.Errorf("%s not removed", gone.Remove[0])
	}
}

func TestParseShapes(t *testing.T) {
	items, err := ParseShapes(" x=f32[64, 784]\tw=f32[784,10]  b=i1[] ")
	if err != nil || len(items) != 3 || items[0] != (ParamShape{"x", "f32[64,784]", false}) || items[2] != (ParamShape{"b", "i1[]", false}) {
		t.Fatalf("%v %v", items, err)
	}
	for in, msg := range map[string]string{
		"x=":         `bad item "x="`,
		"=f32[2]":    `bad item "=f32[2]"`,
		"1x=f32[2]":  `bad item "1x=f32[2]"`,
		"x=f32[2":    `want DTYPE[`,
		"x=bogus[2]": `unknown element type "bogus"`,
		"m=new(]":    `want DTYPE[`,
		"m=a+b()":    `not a Go call expression`,
		// A space between two digits is a missing comma, not one number.
		"x=f32[64 784]": `x: shape "f32[64 784]": a space inside "64 784"`,
	} {
		if _, err := ParseShapes(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseShapes(%q): %v, want %q", in, err, msg)
		}
	}
	items, err = ParseShapes("m=newModel(4, []int{1, 2}) x=f32[2]")
	if err != nil || len(items) != 2 || items[0] != (ParamShape{"m", "newModel(4, []int{1, 2})", true}) {
		t.Errorf("an example call: %v %v", items, err)
	}
	if _, err := matchParams(nil, []ParamShape{{"x", "f32[]", false}}); err == nil || !strings.Contains(err.Error(), "(parameters: none)") {
		t.Errorf("matchParams: %v", err)
	}
}

func TestGeneratedName(t *testing.T) {
	if got := GeneratedName("/a/b/model.go"); got != "/a/b/zz_xlajit_model.go" {
		t.Error(got)
	}
}

// TestConcurrentRuns: a generation and a dump of another shape run at once
// in one package (two go generate at the same time), both tracing files
// on disk while each go test runs. Each run builds only its own tracing
// file and gets its own results.
func TestConcurrentRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tracing programs")
	}
	ctx := context.Background()
	dir, cfg := tempModule(t, "aotpkg")
	pkg := filepath.Join(dir, "aotpkg")
	cfg.Dir = pkg

	// Both runs wait, their files written, until both files exist.
	var written sync.WaitGroup
	written.Add(2)
	var mu sync.Mutex
	var seen [][]string
	traceHook = func(string) {
		written.Done()
		written.Wait()
		mu.Lock()
		seen = append(seen, tracers(pkg))
		mu.Unlock()
	}
	defer func() { traceHook = nil }()

	var (
		out     *Output
		dump    *gentrace.Result
		genErr  error
		dumpErr error
		wg      sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); out, genErr = Generate(ctx, cfg) }()
	go func() {
		defer wg.Done()
		dump, dumpErr = Dump(ctx, cfg, ".", "Affine", "x=f32[5,3] w=f32[3,7]")
	}()
	wg.Wait()
	if genErr != nil {
		t.Fatalf("generate: %v", genErr)
	}
	if dumpErr != nil {
		t.Fatalf("dump: %v", dumpErr)
	}
	for _, s := range seen {
		if len(s) != 2 {
			t.Errorf("tracing files while tracing: %v, want two", s)
		}
	}
	if len(out.Files) != 3 {
		t.Fatalf("files %v", out.Files)
	}
	model := string(out.Files[0].Data)
	for _, want := range []string{"func AffineAOT(x, w *lazy.Tensor) *lazy.Tensor {", "%dotgeneral_1 : f32[2,4] = DotGeneral(%arg0, %arg1", "func NoisyAOT("} {
		if !strings.Contains(model, want) {
			t.Errorf("%s lacks %q:\n%s", out.Files[0].Path, want, model)
		}
	}
	if dump.Name != "Affine" || !strings.Contains(dump.GraphSite, ": f32[5,7] = DotGeneral(%arg0, %arg1") || strings.Contains(dump.GraphSite, "f32[2,4]") {
		t.Errorf("dump of Affine at f32[5,3]·f32[3,7]:\n%s", dump.GraphSite)
	}
	if left := tracers(pkg); len(left) > 0 {
		t.Errorf("tracing files left behind: %v", left)
	}
}

// TestStaleTracers: tracing files that killed runs left behind (an earlier
// version's fixed name, a dead process's) are removed and do not break the
// next run; a live run's file and the user's files that merely share the
// prefix are kept.
func TestStaleTracers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a tracing program")
	}
	dir, cfg := tempModule(t, "aotpkg")
	pkg := filepath.Join(dir, "aotpkg")
	cfg.Dir = pkg

	// A process that has exited: its pid is a killed run's.
	done := exec.Command(os.Args[0], "-test.run=^$")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	dead := done.Process.Pid
	host, _ := os.Hostname()
	// What a run writes (stub wrappers and TestXlajitGen), which would not
	// compile beside this run's tracing file if it were built with it.
	body := func(pid int, id string) string {
		return fmt.Sprintf("%s// xlajit gen run: pid %d on host %q.\n\n//go:build xlajit_gen && xlajit_gen_%s\n\npackage main\n\n"+
			"import \"testing\"\n\nfunc TestXlajitGen(t *testing.T) {}\n", tracerMark, pid, host, id)
	}
	files := map[string]string{
		// Killed: removed.
		"xlajit_gen_tmp_0123456789ab_test.go": body(dead, "0123456789ab"),
		legacyTracerFile:                      tracerMark + "\n//go:build xlajit_gen\n\npackage main\n\nimport \"testing\"\n\nfunc TestXlajitGen(t *testing.T) {}\n",
		// Still running (this process): kept, and left out of the build by its tag.
		"xlajit_gen_tmp_ba9876543210_test.go": body(os.Getpid(), "ba9876543210"),
		// The user's: kept.
		"xlajit_gen_tmp_user_test.go": "package main\n\nimport \"testing\"\n\nfunc TestUserFile(t *testing.T) {}\n",
		"xlajit_gen_tmp_notes.txt":    tracerMark,
	}
	for name, src := range files {
		write(t, filepath.Join(pkg, name), src)
	}
	out, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Files) != 3 {
		t.Fatalf("files %v", out.Files)
	}
	if !strings.Contains(string(out.Files[0].Data), "%dotgeneral_1 : f32[2,4] = DotGeneral(%arg0, %arg1") {
		t.Errorf("%s:\n%s", out.Files[0].Path, out.Files[0].Data)
	}
	for name, src := range files {
		_, err := os.Stat(filepath.Join(pkg, name))
		kept := err == nil
		if want := !strings.Contains(name, "0123456789ab") && name != legacyTracerFile; kept != want {
			t.Errorf("%s: kept = %v, want %v", name, kept, want)
		}
		if kept && read(t, filepath.Join(pkg, name)) != src {
			t.Errorf("%s changed", name)
		}
	}
}

// TestEnvAppendsDoNotAlias: what runs append to a Config's Env (the
// tracing program's output path) stays each run's own, also when Env has
// spare capacity, as append(os.Environ(), ...) leaves it. Two runs at once
// wrote their output paths into one slot, and one read back nothing.
func TestEnvAppendsDoNotAlias(t *testing.T) {
	env := make([]string, 1, 8)
	env[0] = "A=1"
	c := &Config{Env: env}
	a := append(c.env(), "OUT=a")
	b := append(c.env(), "OUT=b")
	if a[1] != "OUT=a" || b[1] != "OUT=b" || len(env) != 1 {
		t.Errorf("appends alias: %q and %q", a, b)
	}
}
