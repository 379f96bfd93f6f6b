package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/xlajit/xlajit/internal/conform"
)

func init() {
	register(command{name: "run", short: "run the entry function of a StableHLO file and print its results", run: runRun})
}

const runUsage = `usage: xlajit run [--device D] [--args "[dense<...> : tensor<...>, ...]"] [--case N] [--function F] FILE.mlir

Parses FILE (a module or a bare list of func.func), runs its entry function
(the only function, else @main, or the one --function names) and prints
each result in MLIR literal syntax, one per line. A file split into cases
by "// -----" needs --case. IREE's test helpers (util.unfoldable_constant,
util.optimization_barrier, flow.tensor.dynamic_constant, tensor.cast, scalar
arguments as rank-0 tensors) run as StableHLO. On the embedded device check
ops run too; a failed check is printed on stderr and makes the exit status 1.

flags:
`

func runRun(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(cliErr)
	device := fs.String("device", "", "run through the device seam on this PJRT_DEVICE spec (CPU, CUDA, /path/plugin.so); default: the embedded device")
	argList := fs.String("args", "", "entry arguments: [dense<...> : tensor<...>, ...]")
	caseN := fs.Int("case", -1, "the case (split part, from 0) of a file with several")
	function := fs.String("function", "", "the function to run (default: the only function, else @main)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage)
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	if *caseN < -1 {
		fmt.Fprintf(cliErr, "xlajit run: --case %d: want a case number, from 0\n", *caseN)
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(cliErr, "xlajit run: %v\n", err)
		return 1
	}
	m, err := conform.LoadFunc(pos[0], *caseN, strings.TrimPrefix(*function, "@"))
	if err != nil {
		return fail(err)
	}
	in, err := conform.ParseArgs(*argList)
	if err != nil {
		return fail(err)
	}
	client, err := openDevice(*device)
	if err != nil {
		return fail(err)
	}
	if client != nil {
		defer client.Close()
	}
	res, log, err := conform.Exec(client, m, in)
	if err != nil {
		if *function != "" {
			err = fmt.Errorf("--function %s (run as the entry @main): %w", *function, err)
		}
		return fail(err)
	}
	for _, r := range res {
		fmt.Fprintln(cliOut, conform.FormatLiteral(r))
	}
	if log != nil && len(log.Failed) > 0 {
		for _, msg := range log.Failed {
			fmt.Fprintf(cliErr, "check failed: %s\n", msg)
		}
		return 1
	}
	return 0
}
