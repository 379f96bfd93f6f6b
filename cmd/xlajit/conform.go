package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/xlajit/xlajit/internal/conform"
	"github.com/xlajit/xlajit/pjrt"
)

// cliOut and cliErr are where run and conform write (tests swap them).
var (
	cliOut io.Writer = os.Stdout
	cliErr io.Writer = os.Stderr
)

func init() {
	register(command{name: "conform", short: "run StableHLO and IREE conformance files (check ops, FileCheck) and report", run: runConform})
}

const conformUsage = `usage: xlajit conform [--json] [--by-op] [--device D] [--timeout T] [--expected FILE --root DIR] PATH...

Runs every case of the .mlir files under PATH and checks it with its check
ops (StableHLO's and IREE's check dialects) and, where the file's RUN lines
pipe stablehlo-translate --interpret or iree-run-mlir into FileCheck, with
its directives. A file is split into parts at "// -----"; a part's entry is
its only function, else @main; a part with several functions and no @main
is IREE's layout, where every public function is a case of its own. Prints
one line per failing case, the skips by reason, and "conform: N passed, N
failed, N skipped". Exit status 1 if a case failed (with --expected: if a
case failed that the list does not name, or a listed case no longer fails).

flags:
`

// parseInterleaved parses flags that may come before, between or after the
// positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// openDevice opens the client for a --device value; "" means the embedded
// device used directly (nil client).
func openDevice(spec string) (pjrt.Client, error) {
	if spec == "" {
		return nil, nil
	}
	return pjrt.Open(spec)
}

func runConform(args []string) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(cliErr)
	asJSON := fs.Bool("json", false, "print one JSON record per case (summary on stderr)")
	byOp := fs.Bool("by-op", false, "print failures grouped by op and by kind")
	device := fs.String("device", "", "run through the device seam on this PJRT_DEVICE spec (CPU, CUDA, /path/plugin.so); default: the embedded device directly")
	timeout := fs.Duration("timeout", conform.DefaultTimeout, "time limit per case")
	workers := fs.Int("j", 0, "cases run at once (0: GOMAXPROCS)")
	verbose := fs.Bool("v", false, "print whole failure messages (with stacks for panics)")
	expected := fs.String("expected", "", "expected-failures list (path#case reason lines, paths relative to --root)")
	root := fs.String("root", "", "print file names relative to this directory")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), conformUsage)
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	if len(paths) == 0 {
		fs.Usage()
		return 2
	}
	switch {
	case *workers < 0:
		fmt.Fprintf(cliErr, "xlajit conform: -j %d: want the number of cases run at once (0: GOMAXPROCS)\n", *workers)
		return 2
	case *timeout < 0:
		fmt.Fprintf(cliErr, "xlajit conform: --timeout %v: want a time limit per case (0: %v)\n", *timeout, conform.DefaultTimeout)
		return 2
	}
	if *expected != "" {
		// conform.ReadExpected takes a missing list as empty; named on the
		// command line, a missing file is a mistake (every failure it
		// lists would show as a regression).
		if _, err := os.Stat(*expected); err != nil {
			fmt.Fprintf(cliErr, "xlajit conform: --expected: %v\n", err)
			return 2
		}
	}
	client, err := openDevice(*device)
	if err != nil {
		fmt.Fprintf(cliErr, "xlajit conform: %v\n", err)
		return 2
	}
	if client != nil {
		defer client.Close()
	}
	opts := conform.Options{Client: client, Timeout: *timeout, Workers: *workers, Root: *root}
	var enc *json.Encoder
	if *asJSON {
		enc = json.NewEncoder(cliOut)
		opts.Done = func(r *conform.Result) { enc.Encode(r) }
	}
	start := time.Now()
	rs, err := conform.Run(opts, paths...)
	if err != nil {
		fmt.Fprintf(cliErr, "xlajit conform: %v\n", err)
		return 2
	}
	s := conform.Summarize(rs)
	var out io.Writer = cliOut
	if *asJSON {
		out = cliErr
	} else {
		for _, r := range rs {
			if r.Status == conform.Fail {
				fmt.Fprintf(out, "%s: %s\n", r.Name(), failText(r, *verbose))
			}
		}
	}
	s.WriteSkips(out)
	if *byOp {
		s.WriteByOp(out)
	}
	status := 0
	if s.Failed > 0 {
		status = 1
	}
	if *expected != "" {
		status = compareExpected(out, *expected, rs)
	}
	fmt.Fprintf(cliErr, "xlajit conform: %d cases in %.1fs\n", len(rs), time.Since(start).Seconds())
	fmt.Fprintln(out, s.Line())
	return status
}

func failText(r *conform.Result, verbose bool) string {
	msg := r.Reason
	if !verbose {
		msg, _, _ = strings.Cut(msg, "\n")
	}
	if r.Upstream != "" {
		msg += " [upstream " + r.Upstream + "]"
	}
	return msg
}

// compareExpected reports regressions and stale entries against a list and
// returns the exit status.
func compareExpected(out io.Writer, path string, rs []*conform.Result) int {
	exp, err := conform.ReadExpected(path)
	if err != nil {
		fmt.Fprintf(cliErr, "xlajit conform: %v\n", err)
		return 2
	}
	reg, stale, _ := exp.Diff(rs)
	for _, r := range reg {
		fmt.Fprintf(out, "regression: %s: %s\n", r.Name(), failText(r, false))
	}
	for _, id := range stale {
		fmt.Fprintf(out, "stale expected failure (now passes or is skipped): %s\n", id)
	}
	if len(reg) > 0 || len(stale) > 0 {
		return 1
	}
	return 0
}
