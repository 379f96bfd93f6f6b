package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xlajit/xlajit/hlo/optable"
)

// TestGeneratedCurrent fails when a file go generate writes into hlo is
// stale (a table row changed without running `go generate ./hlo`).
func TestGeneratedCurrent(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "hlo", name))
		if err != nil {
			t.Errorf("%v (run go generate ./hlo)", err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("hlo/%s is stale (run go generate ./hlo)", name)
		}
	}
}

// TestGenerateDeterministic renders the files twice: map order must not
// leak into them.
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		b, _ := generate()
		for name := range a {
			if string(a[name]) != string(b[name]) {
				t.Fatalf("%s differs between runs", name)
			}
		}
	}
}

// TestValidateRejects makes sure contradictory rows are refused.
func TestValidateRejects(t *testing.T) {
	bad := [][]optable.Op{
		{{Name: "stablehlo.x"}, {Name: "stablehlo.x"}},
		{{Name: "nodialect"}},
		{{Name: "stablehlo.x", Form: "$ attrs : T:same", HandSyntax: "parse_custom.go"}},
		{{Name: "stablehlo.x", Class: optable.Unary, Params: "x"}},
		{{Name: "stablehlo.x", Builder: "X", Params: "x"}},
		{{Name: "stablehlo.x", Class: optable.Binary, Builder: "X", Params: "x"}},
		{{Name: "stablehlo.x", Builder: "X"}, {Name: "stablehlo.y", Builder: "X"}},
		{{Name: "check.x", Spelled: "y.x"}},
	}
	for i, ops := range bad {
		if err := validate(ops); err == nil {
			t.Errorf("case %d: %+v accepted", i, ops)
		}
	}
	if err := validate(optable.Ops()); err != nil {
		t.Errorf("the table: %v", err)
	}
}
