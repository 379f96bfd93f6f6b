package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/xlajit/xlajit/codegen"
)

func init() {
	register(command{name: "dump", short: "print the fx graph, lazy IR, StableHLO or DOT of a traced function", run: runDump})
}

const dumpUsage = `usage: xlajit dump [-format fx|ir|hlo|dot] [-shapes 'x=f32[2,3] ...'] [-tags T1,T2] PKG FUNC

Traces function FUNC of package PKG (a pattern such as . or ./examples/aot,
or an import path) on placeholder tensors, as xlajit gen does, and prints
it: fx (the captured graph with Go call sites), ir (the lazy IR of its
device graph), hlo (the StableHLO module) or dot (Graphviz of the lazy IR).
The shapes are those of FUNC's //xlajit:trace directive unless -shapes
gives them, in the same form: NAME=DTYPE[D0,...] for a tensor parameter,
NAME=CALL() for any parameter (a call of the package giving an example
value, such as a model from its constructor).

flags:
`

func runDump(args []string) int {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	fs.SetOutput(cliErr)
	format := fs.String("format", "fx", "output: fx, ir, hlo or dot")
	shapes := fs.String("shapes", "", "parameter shapes, e.g. 'x=f32[2,3] w=f32[3,4]' (default: the directive's)")
	tags := fs.String("tags", "", "comma-separated build tags to load and trace with")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), dumpUsage)
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	if len(pos) != 2 {
		fs.Usage()
		return 2
	}
	if _, err := codegen.Format(nil, *format); err != nil {
		fmt.Fprintf(cliErr, "xlajit dump: -format: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := codegen.Dump(ctx, codegen.Config{Tags: splitTags(*tags)}, pos[0], pos[1], *shapes)
	if err != nil {
		fmt.Fprintln(cliErr, err)
		return 1
	}
	text, _ := codegen.Format(res, *format)
	fmt.Fprint(cliOut, text)
	return 0
}
