package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand; each lives in its own file and registers
// itself in init.
type command struct {
	name  string
	short string // one line for the overview
	run   func(args []string) int
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

func usage() {
	fmt.Fprintln(os.Stderr, "usage: xlajit <command> [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].short)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'xlajit <command> -h' for a command's flags.")
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "xlajit: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	os.Exit(c.run(os.Args[2:]))
}
