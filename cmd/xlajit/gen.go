package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/xlajit/xlajit/codegen"
)

func init() {
	register(command{name: "gen", short: "generate ahead-of-time traces of //xlajit:trace functions (go generate)", run: runGen})
}

const genUsage = `usage: xlajit gen [-check] [-tags T1,T2] [PATTERN...]

Traces every function marked with a //xlajit:trace directive in the
packages matching PATTERN (default: the package in the current directory)
and writes zz_xlajit_<file>.go beside each source file with directives:
the serialized graph, its StableHLO and hash, and a typed wrapper
<Func>AOT that replays the graph without tracing. Generated files whose
source no longer has directives are removed. Use it from go generate:

	//go:generate go run github.com/xlajit/xlajit/cmd/xlajit gen

	//xlajit:trace x=f32[64,784] w=f32[784,10]
	func Predict(x, w *lazy.Tensor) *lazy.Tensor { ... }

With -check nothing is written: the files are regenerated in memory and
compared; stale ones are listed and the exit status is 1.

flags:
`

func runGen(args []string) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(cliErr)
	check := fs.Bool("check", false, "report stale generated files (exit 1) instead of writing")
	tags := fs.String("tags", "", "comma-separated build tags to load and trace with (added to xlajit_gen)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), genUsage)
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := codegen.Config{Tags: splitTags(*tags)}
	out, err := codegen.Generate(ctx, cfg, pos...)
	if err != nil {
		fmt.Fprintln(cliErr, err)
		return 1
	}
	if *check {
		stale := out.Stale()
		if len(stale) == 0 {
			return 0
		}
		wd, _ := os.Getwd()
		for _, s := range stale {
			if r, err := filepath.Rel(wd, s); err == nil && !strings.HasPrefix(r, "..") {
				s = r
			}
			fmt.Fprintf(cliErr, "%s: stale (run go generate)\n", s)
		}
		return 1
	}
	if err := out.Write(); err != nil {
		fmt.Fprintf(cliErr, "xlajit gen: %v\n", err)
		return 1
	}
	return 0
}

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, t)
	}
	return out
}
