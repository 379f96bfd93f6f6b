package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/plugin"
)

// The differential harness, reachable as the hidden
//
//	xlajit devices --diff [--device D] [--every K] [--limit N] [-j N] [--rtol R --atol A] PATH...
//
// runs every case of the .mlir files under PATH on the embedded device and
// on the plugin D (default $PJRT_DEVICE) and compares the results: the
// check ops are lifted into results (plugin.LiftChecks), arguments of the
// entry are generated (plugin.RandomArgs, seeded by the case name), and
// float results must agree within the tolerance (plugin.DefaultTolerance
// unless --rtol/--atol). Prints each differing case and
// "diff: N agree, N differ, N device errors, N reference errors, N skipped";
// exit status 1 when a case differs.

type diffFlags struct {
	on         bool
	every      int
	limit      int
	workers    int
	rtol, atol float64
	timeout    time.Duration
	verbose    bool
	hidden     map[string]bool
}

func newDiffFlags(fs *flag.FlagSet) *diffFlags {
	d := &diffFlags{hidden: map[string]bool{}}
	add := func(name string) { d.hidden[name] = true }
	fs.BoolVar(&d.on, "diff", false, "differential run: embedded device vs --device on the cases of PATH...")
	add("diff")
	fs.IntVar(&d.every, "every", 1, "diff: take every K-th file")
	add("every")
	fs.IntVar(&d.limit, "limit", 0, "diff: at most N cases (0: all)")
	add("limit")
	fs.IntVar(&d.workers, "j", 4, "diff: cases run at once")
	add("j")
	fs.Float64Var(&d.rtol, "rtol", -1, "diff: relative tolerance for floats (default per type)")
	add("rtol")
	fs.Float64Var(&d.atol, "atol", -1, "diff: absolute tolerance for floats (default per type)")
	add("atol")
	fs.DurationVar(&d.timeout, "timeout", time.Minute, "diff: time limit per case")
	add("timeout")
	fs.BoolVar(&d.verbose, "v", false, "diff: print device errors and skips too")
	add("v")
	return d
}

func (d *diffFlags) tolerance() func(hlo.DType) plugin.Tolerance {
	return func(dt hlo.DType) plugin.Tolerance {
		t := plugin.DefaultTolerance(dt)
		if d.rtol >= 0 {
			t.RTol = d.rtol
		}
		if d.atol >= 0 {
			t.ATol = d.atol
		}
		return t
	}
}

// diffCase is one split part of a file.
type diffCase struct {
	file  string
	index int
	text  string
	line  int
}

func (c diffCase) name() string { return fmt.Sprintf("%s#%d", c.file, c.index) }

func splitCases(file string, src []byte) []diffCase {
	var out []diffCase
	for i, ch := range hlo.SplitInputFile(src) {
		out = append(out, diffCase{file, i, ch.Text, ch.Line})
	}
	return out
}

type diffOutcome int

const (
	diffAgree diffOutcome = iota
	diffDiffer
	diffDeviceErr
	diffRefErr
	diffSkip
)

type diffResult struct {
	c       diffCase
	outcome diffOutcome
	msg     string
}

func runDiff(spec string, d *diffFlags, paths []string) int {
	if isEmbedded(spec) {
		fmt.Fprintln(cliErr, "xlajit devices --diff: needs a plugin: --device CUDA|TPU|/path/plugin.so (or PJRT_DEVICE)")
		return 2
	}
	if len(paths) == 0 {
		fmt.Fprintln(cliErr, "xlajit devices --diff: no PATH given")
		return 2
	}
	files, err := mlirFiles(paths)
	if err != nil {
		fmt.Fprintf(cliErr, "xlajit devices --diff: %v\n", err)
		return 2
	}
	if _, set := os.LookupEnv("XLAJIT_QUIET"); !set {
		os.Setenv("XLAJIT_QUIET", "1") // the reference is always the embedded device
	}
	dut, err := pjrt.Open(spec)
	if err != nil {
		fmt.Fprintf(cliErr, "xlajit devices --diff: %v\n", err)
		return 2
	}
	defer dut.Close()
	ref, err := pjrt.Open("CPU")
	if err != nil {
		fmt.Fprintf(cliErr, "xlajit devices --diff: %v\n", err)
		return 2
	}
	defer ref.Close()

	var cases []diffCase
	for i, f := range files {
		if d.every > 1 && i%d.every != 0 {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(cliErr, "xlajit devices --diff: %v\n", err)
			return 2
		}
		cases = append(cases, splitCases(f, src)...)
	}
	if d.limit > 0 && len(cases) > d.limit {
		cases = cases[:d.limit]
	}
	start := time.Now()
	results := make([]diffResult, len(cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(d.workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = diffOneWithTimeout(ref, dut, cases[i], d)
			}
		}()
	}
	for i := range cases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	counts := map[diffOutcome]int{}
	skips := map[string]int{}
	for _, r := range results {
		counts[r.outcome]++
		switch r.outcome {
		case diffDiffer:
			fmt.Fprintf(cliOut, "DIFF %s: %s\n", r.c.name(), r.msg)
		case diffDeviceErr, diffRefErr:
			if d.verbose {
				fmt.Fprintf(cliOut, "ERROR %s: %s\n", r.c.name(), r.msg)
			}
		case diffSkip:
			skips[r.msg]++
			if d.verbose {
				fmt.Fprintf(cliOut, "SKIP %s: %s\n", r.c.name(), r.msg)
			}
		}
	}
	for reason, n := range skips {
		fmt.Fprintf(cliOut, "  skipped %d: %s\n", n, reason)
	}
	fmt.Fprintf(cliErr, "xlajit devices --diff: %d cases in %.1fs on %s\n", len(cases), time.Since(start).Seconds(), dut.Platform())
	fmt.Fprintf(cliOut, "diff: %d agree, %d differ, %d device errors, %d reference errors, %d skipped\n",
		counts[diffAgree], counts[diffDiffer], counts[diffDeviceErr], counts[diffRefErr], counts[diffSkip])
	if counts[diffDiffer] > 0 {
		return 1
	}
	return 0
}

func diffOneWithTimeout(ref, dut pjrt.Client, c diffCase, d *diffFlags) diffResult {
	done := make(chan diffResult, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- diffResult{c, diffRefErr, fmt.Sprintf("panic: %v", r)}
			}
		}()
		done <- diffOne(ref, dut, c, d)
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(d.timeout):
		// The case keeps running in the background; the run goes on.
		return diffResult{c, diffDeviceErr, fmt.Sprintf("timed out after %v", d.timeout)}
	}
}

// firstLine keeps a message to one line for the listing.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func diffOne(ref, dut pjrt.Client, c diffCase, d *diffFlags) diffResult {
	parse := func() (*hlo.Module, error) {
		m, err := hlo.ParseModuleAt(c.file, []byte(c.text), c.line)
		if err != nil {
			return nil, err
		}
		if _, err := plugin.LiftChecks(m); err != nil {
			return nil, err
		}
		return m, nil
	}
	// Each side gets its own copy of the module: compilation may annotate it.
	mRef, err := parse()
	if err != nil {
		return diffResult{c, diffSkip, "cannot parse or lift: " + firstLine(err.Error())}
	}
	mDUT, _ := parse()
	if caps, ok := dut.(pjrt.Capabilities); ok {
		var bad string
		for _, f := range mDUT.Funcs {
			f.Body.Walk(func(op *hlo.Op) bool {
				if !caps.SupportsOp(op.Name) {
					bad = op.Name
					return false
				}
				return true
			})
		}
		if bad != "" {
			return diffResult{c, diffSkip, "uses " + bad}
		}
	}
	h := fnv.New64a()
	h.Write([]byte(c.name()))
	args, err := plugin.RandomArgs(mRef.Entry(), h.Sum64())
	if err != nil {
		if d.verbose {
			return diffResult{c, diffSkip, "arguments: " + err.Error()}
		}
		return diffResult{c, diffSkip, "entry arguments that cannot be generated (dynamic, quantized or not tensors)"}
	}
	res := diffModules(ref, dut, mRef, mDUT, args, d.tolerance())
	switch {
	case res.RefErr != nil:
		return diffResult{c, diffRefErr, firstLine(res.RefErr.Error())}
	case res.DUTErr != nil:
		return diffResult{c, diffDeviceErr, firstLine(res.DUTErr.Error())}
	case len(res.Diffs) > 0:
		msgs := make([]string, len(res.Diffs))
		for i, df := range res.Diffs {
			msgs[i] = fmt.Sprintf("output %d: %s", df.Output, df.Msg)
		}
		return diffResult{c, diffDiffer, strings.Join(msgs, "; ")}
	}
	return diffResult{c, diffAgree, ""}
}

// diffModules is plugin.Differential with a separate module per side.
func diffModules(ref, dut pjrt.Client, mRef, mDUT *hlo.Module, args []*hlo.Literal, tol func(hlo.DType) plugin.Tolerance) *plugin.DiffResult {
	want, errRef := plugin.RunOnce(ref, mRef, args)
	got, errDUT := plugin.RunOnce(dut, mDUT, args)
	return plugin.CompareOutputs(got, want, errDUT, errRef, tol)
}

// mlirFiles expands paths (files, or directories walked for *.mlir) into a
// sorted list per argument.
func mlirFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".mlir") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}
