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
