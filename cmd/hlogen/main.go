// Command hlogen writes the hlo package's op tables from the declarative
// table in hlo/optable: the parser's form list, the printer's inherent
// attributes, the type inference map, the boilerplate builder methods
// (ops_*_gen.go) and FORMS.md. hlo runs it through go generate:
//
//	//go:generate go run github.com/xlajit/xlajit/cmd/hlogen
//
// With -check nothing is written: stale or missing files are listed and
// the exit status is 1.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

func main() {
	dir := flag.String("dir", ".", "the hlo package directory")
	check := flag.Bool("check", false, "compare instead of writing")
	flag.Parse()
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hlogen:", err)
		os.Exit(1)
	}
	stale := 0
	for _, n := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(*dir, n)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || string(old) != string(files[n]) {
				fmt.Fprintln(os.Stderr, "hlogen: stale:", path)
				stale++
			}
			continue
		}
		if err := os.WriteFile(path, files[n], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "hlogen:", err)
			os.Exit(1)
		}
	}
	if stale > 0 {
		os.Exit(1)
	}
}
