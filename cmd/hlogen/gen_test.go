package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestNewElementwiseRow follows hlo's walk-through for adding an
// elementwise op: its one row must reach every generated file.
func TestNewElementwiseRow(t *testing.T) {
	ops := append(optable.Ops(), optable.Op{Name: "stablehlo.foo", Class: optable.Unary, Form: optable.FormUnary, Infer: "unaryRule(kFpCx)", Builder: "Foo", Params: "x"})
	slices.SortFunc(ops, func(a, b optable.Op) int { return strings.Compare(a.Name, b.Name) })
	files, err := generateFrom(ops)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"ops_forms_gen.go": `defForm("$ attrs : T:same", nil, "stablehlo.foo")`,
		"ops_infer_gen.go": `"stablehlo.foo": unaryRule(kFpCx),`,
		"builder_gen.go":   "// Foo adds stablehlo.foo.\nfunc (s *Scope) Foo(x *Value) *Value {\n\treturn s.emit1(\"stablehlo.foo\", []*Value{x}, nil)\n}",
		"FORMS.md":         "| `stablehlo.foo` | `%x {attrs} : TYPES:same` |  |",
	} {
		if !strings.Contains(squash(string(files[file])), squash(want)) {
			t.Errorf("%s lacks %q", file, want)
		}
	}
}

// squash folds runs of spaces and tabs (gofmt's alignment) into one space.
func squash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}
