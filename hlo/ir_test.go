package hlo

import (
	"fmt"
	"testing"
)

// TestModuleFuncIndex checks Func against a linear scan while the function
// list changes under it (appends, renames, replacements, reordering,
// copies of the module).
func TestModuleFuncIndex(t *testing.T) {
	m := &Module{}
	scan := func(name string) *Func {
		for _, f := range m.Funcs {
			if f.Name == name {
				return f
			}
		}
		return nil
	}
	check := func(step string) {
		t.Helper()
		for i := -1; i <= len(m.Funcs)+1; i++ {
			name := fmt.Sprintf("f%d", i)
			if got, want := m.Func(name), scan(name); got != want {
				t.Fatalf("%s: Func(%q) = %p, want %p", step, name, got, want)
			}
		}
		if got, want := m.Func("main"), scan("main"); got != want {
			t.Fatalf("%s: Func(main) = %p, want %p", step, got, want)
		}
	}
	for i := 0; i < 40; i++ {
		m.Funcs = append(m.Funcs, &Func{Name: fmt.Sprintf("f%d", i)})
		check("append")
	}
	m.Funcs[3].Name = "main"
	check("rename")
	m.Funcs[5] = &Func{Name: "f5"}
	check("replace")
	m.Funcs[7], m.Funcs[30] = m.Funcs[30], m.Funcs[7]
	check("swap")
	m.Funcs = append(m.Funcs, &Func{Name: "f1"}) // a duplicate: the first wins
	check("duplicate")
	m.Funcs = m.Funcs[:20]
	check("truncate")
	c := *m
	c.Funcs = append([]*Func{{Name: "f2"}}, c.Funcs...)
	if c.Func("f2") != c.Funcs[0] {
		t.Fatalf("copy: Func(f2) is not the copy's first function")
	}
	check("original after the copy")
}
